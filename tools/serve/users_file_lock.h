// The exclusive edit of a users file (users_file.h) by `sift users`: which file an edit replaces, and
// the lock that serializes every read-modify-write of it.
//
// The file is replaced by rename (WriteUsersFile), so a lock on the file itself would guard an inode
// that the first edit retires: a second editor could open the new file and lock it while a third
// still holds the old one. The lock is therefore flock(2) on a sidecar `TARGET.lock` beside the
// target, which is never renamed nor removed (removing it would let a waiter hold a lock on an
// unlinked file while a newcomer locks a fresh one). The kernel drops the lock when its holder exits,
// however it exits, so no stale lock outlives a crashed edit. Readers (`sift users list`, `sift
// serve`) take no lock: the rename shows them the whole old file or the whole new one.
//
// A symlink is followed to its target, as an editor would follow it: the target is read, locked and
// replaced in its own folder, and the link stays a link. Two edits through different links to one
// file share the target's lock.
#ifndef SIFT_TOOLS_SERVE_USERS_FILE_LOCK_H_
#define SIFT_TOOLS_SERVE_USERS_FILE_LOCK_H_

#include <string>

namespace sift::tools {

class UsersFileLock {
 public:
  UsersFileLock() = default;
  ~UsersFileLock();
  UsersFileLock(const UsersFileLock&) = delete;
  UsersFileLock& operator=(const UsersFileLock&) = delete;

  // Follows `path` through symlinks to the file an edit replaces (which may not exist yet), creates
  // `TARGET.lock` (mode 0600) when missing and waits until no other edit holds it. False with
  // *error "PATH: why" (a symlink loop, a lock file that cannot be created or locked); then nothing
  // is held.
  bool Acquire(const std::string& path, std::string* error);

  // The file to read and replace: `path` itself unless it is a symlink. Valid after Acquire.
  const std::string& target() const { return target_; }

 private:
  std::string target_;
  int fd_ = -1;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_USERS_FILE_LOCK_H_
