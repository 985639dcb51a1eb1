// The users file of `sift serve`: who may log in, with which password hash, and what each user may do
// on which streams (docs/serve.md, "Users and permissions").
//
//   # comment lines start with '#'; blank lines are ignored
//   alice:$y$j9T$...          a user: NAME:HASH, the hash in crypt(3) format (password_hash.h)
//     read,write orders-*     her permission lines, indented: PERMISSIONS PATTERN
//     create orders-*
//   anonymous:                the anonymous entry: no hash; its permission lines are what SASL
//     read public-*           ANONYMOUS clients may do (without the entry, ANONYMOUS is not offered)
//
// PERMISSIONS is a comma-separated list of `read` (attach a receiver: consume), `write` (attach a
// sender: publish) and `create` (a link to a stream that does not exist creates it), or `all`.
// PATTERN is a glob on the stream name (stream_pattern.h). A user may do what any of her lines
// grants; with no lines, she may log in and do nothing. A user name is any run of printable bytes
// without ':' or white space, not starting with '#'. Everything else (a clear-text password, a
// truncated hash, a permission line before any user, an unknown permission, a user listed twice) is
// an error naming the line.
//
// `sift users` edits the file through Read/Write below: the comment lines before the first user are
// kept, the rest is rewritten in this canonical form.
#ifndef SIFT_TOOLS_SERVE_USERS_FILE_H_
#define SIFT_TOOLS_SERVE_USERS_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sift::tools {

enum Permission : uint8_t { kPermissionRead = 1, kPermissionWrite = 2, kPermissionCreate = 4, kPermissionManage = 8 };
using Permissions = uint8_t;  // a set of Permission bits
// What `all` grants: every permission on messages. `manage` (the management node: create, change and
// delete streams on a running server) is granted by name only, so files written before it existed
// grant nobody management.
inline constexpr Permissions kAllPermissions = kPermissionRead | kPermissionWrite | kPermissionCreate;

// The name of the entry whose permissions apply to SASL ANONYMOUS clients.
inline constexpr std::string_view kAnonymousUser = "anonymous";

struct Grant {
  Permissions permissions = 0;
  std::string pattern;  // glob on stream names
};

struct UserEntry {
  std::string name;
  std::string hash;  // crypt(3); empty for the anonymous entry only
  std::vector<Grant> grants;

  // True when one of the grants gives `permission` on `stream`.
  bool Allows(Permission permission, std::string_view stream) const;
};

struct UsersFile {
  std::vector<std::string> header;  // comment and blank lines before the first user, verbatim
  std::vector<UserEntry> users;     // in file order

  const UserEntry* Find(std::string_view name) const;
  UserEntry* Find(std::string_view name);
};

// "read" (one permission's name).
const char* PermissionName(Permission permission);
// "read,write", "all" for read, write and create, "all,manage", "none" for the empty set.
std::string PermissionsText(Permissions permissions);
// Reads a comma-separated list of read, write, create, manage and all; false with *why naming a bad
// word.
bool ParsePermissions(std::string_view text, Permissions* permissions, std::string* why);

// False with *why when `name` cannot be a user name (see above).
bool CheckUserName(std::string_view name, std::string* why);
// False with *why when `pattern` cannot be a stream pattern (empty, or holds white space).
bool CheckStreamPattern(std::string_view pattern, std::string* why);

// Parses the text of a users file; false with *error "PATH: line N: why" at the first bad line.
bool ParseUsersFile(std::string_view text, const std::string& path, UsersFile* file, std::string* error);
// Reads and parses PATH; false with *error "PATH: why" (cannot read) or as ParseUsersFile.
bool ReadUsersFile(const std::string& path, UsersFile* file, std::string* error);
// The canonical text of `file`.
std::string FormatUsersFile(const UsersFile& file);
// Replaces PATH atomically by the canonical text of `file`: a temporary file beside it, mode 0600,
// written and fsynced, renamed over PATH, the folder fsynced. False with *error "PATH: why". A
// symlink PATH is itself replaced: editors pass the target (users_file_lock.h), under its lock.
bool WriteUsersFile(const std::string& path, const UsersFile& file, std::string* error);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_USERS_FILE_H_
