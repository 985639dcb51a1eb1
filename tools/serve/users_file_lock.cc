// Symlink resolution and the sidecar flock of a users file edit (see users_file_lock.h).
#include "tools/serve/users_file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace sift::tools {
namespace {

// Linux gives up after as many hops (path_resolution(7)); so does an edit.
constexpr int kMaxSymlinkHops = 40;

// The last component of `path` followed through symlinks. realpath(3) would do it, but it fails on a
// dangling link, and `sift users add` through a link to a file not made yet must create that file.
bool FollowSymlinks(const std::string& named, std::string* target, std::string* error) {
  std::string path = named;
  for (int hop = 0; hop <= kMaxSymlinkHops; ++hop) {
    struct stat st;
    // A path that cannot be examined is left for the read or the write to report in its own words.
    if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      *target = std::move(path);
      return true;
    }
    std::vector<char> buffer(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    const ssize_t n = readlink(path.c_str(), buffer.data(), buffer.size());
    if (n < 0) {
      *error = path + ": cannot read the symbolic link: " + strerror(errno);
      return false;
    }
    if (static_cast<size_t>(n) == buffer.size()) continue;  // it grew since lstat: read it again
    std::string link(buffer.data(), static_cast<size_t>(n));
    const size_t slash = path.rfind('/');
    path =
        (!link.empty() && link.front() == '/') || slash == std::string::npos ? link : path.substr(0, slash + 1) + link;
  }
  *error = named + ": too many levels of symbolic links";
  return false;
}

}  // namespace

UsersFileLock::~UsersFileLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

bool UsersFileLock::Acquire(const std::string& path, std::string* error) {
  if (!FollowSymlinks(path, &target_, error)) return false;
  const std::string lock_path = target_ + ".lock";
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = lock_path + ": cannot create the lock file: " + strerror(errno);
    return false;
  }
  int rc;
  do {
    rc = flock(fd, LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    *error = lock_path + ": cannot lock: " + strerror(errno);
    close(fd);
    return false;
  }
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  return true;
}

}  // namespace sift::tools
