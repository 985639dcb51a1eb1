/* A full disk for one folder, without privileges (no tmpfs or loop device to mount): loaded into a
 * process with LD_PRELOAD, it makes write, pwrite, writev, fsync, fdatasync and fallocate fail
 * with ENOSPC for files under $SIFT_ENOSPC_DIR while the file $SIFT_ENOSPC_FLAG exists
 * (sync_file_range is left alone: it only starts write-back, and RocksDB probes it on every new file,
 * expecting success). Removing the flag file is "space returns". Every other call passes through to libc.
 * RocksDB's info log (a file named LOG) is spared, as a real full disk would make it drop lines, not
 * fail the store. With $SIFT_ENOSPC_STATVFS set, statvfs of the folder also reports no free space
 * while the flag exists. Test support only: it costs a stat and a readlink per call while the flag
 * exists. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static void* next_symbol(const char* name) { return dlsym(RTLD_NEXT, name); }

/* The full folder while the flag file exists, else NULL. */
static const char* full_dir(void) {
  const char* dir = getenv("SIFT_ENOSPC_DIR");
  const char* flag = getenv("SIFT_ENOSPC_FLAG");
  if (dir == NULL || flag == NULL || dir[0] == '\0') return NULL;
  struct stat st;
  return stat(flag, &st) == 0 ? dir : NULL;
}

/* 1 when the absolute `path` is `dir` or under it. */
static int under(const char* path, const char* dir) {
  const size_t len = strlen(dir);
  return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/* 1 when a call on `fd` must fail now. */
static int disk_full_for(int fd) {
  const char* dir = full_dir();
  if (dir == NULL) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  if (!under(path, dir)) return 0;
  const char* base = strrchr(path, '/');
  if (base != NULL && strcmp(base + 1, "LOG") == 0) return 0;
  return 1;
}

#define FAIL_IF_FULL(fd)   \
  do {                     \
    if (disk_full_for(fd)) { \
      errno = ENOSPC;      \
      return -1;           \
    }                      \
  } while (0)

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*real)(int, const void*, size_t);
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t))next_symbol("write");
  FAIL_IF_FULL(fd);
  return real(fd, buf, count);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t, off_t))next_symbol("pwrite");
  FAIL_IF_FULL(fd);
  return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (real == NULL) real = (ssize_t(*)(int, const void*, size_t, off_t))next_symbol("pwrite64");
  FAIL_IF_FULL(fd);
  return real(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static ssize_t (*real)(int, const struct iovec*, int);
  if (real == NULL) real = (ssize_t(*)(int, const struct iovec*, int))next_symbol("writev");
  FAIL_IF_FULL(fd);
  return real(fd, iov, iovcnt);
}

int fsync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))next_symbol("fsync");
  FAIL_IF_FULL(fd);
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))next_symbol("fdatasync");
  FAIL_IF_FULL(fd);
  return real(fd);
}

int fallocate(int fd, int mode, off_t offset, off_t len) {
  static int (*real)(int, int, off_t, off_t);
  if (real == NULL) real = (int (*)(int, int, off_t, off_t))next_symbol("fallocate");
  FAIL_IF_FULL(fd);
  return real(fd, mode, offset, len);
}

int fallocate64(int fd, int mode, off_t offset, off_t len) {
  static int (*real)(int, int, off_t, off_t);
  if (real == NULL) real = (int (*)(int, int, off_t, off_t))next_symbol("fallocate64");
  FAIL_IF_FULL(fd);
  return real(fd, mode, offset, len);
}

/* 1 when statvfs of `path` must report no free space now. */
static int no_space_for_path(const char* path) {
  const char* dir = getenv("SIFT_ENOSPC_STATVFS") != NULL ? full_dir() : NULL;
  char resolved[PATH_MAX];
  return dir != NULL && realpath(path, resolved) != NULL && under(resolved, dir);
}

int statvfs(const char* path, struct statvfs* buf) {
  static int (*next)(const char*, struct statvfs*) = NULL;
  if (next == NULL) next = (int (*)(const char*, struct statvfs*))next_symbol("statvfs");
  const int rc = next(path, buf);
  if (rc == 0 && no_space_for_path(path)) {
    buf->f_bavail = 0;
    buf->f_bfree = 0;
  }
  return rc;
}
