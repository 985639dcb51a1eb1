// Parsing, formatting and atomic writing of the users file (see users_file.h).
#include "tools/serve/users_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tools/serve/password_hash.h"
#include "tools/serve/stream_pattern.h"

namespace sift::tools {
namespace {

constexpr Permission kEach[] = {kPermissionRead, kPermissionWrite, kPermissionCreate, kPermissionManage};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Errno(const std::string& path, const char* what) { return path + ": " + what + ": " + strerror(errno); }

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool UserEntry::Allows(Permission permission, std::string_view stream) const {
  for (const Grant& g : grants) {
    if ((g.permissions & permission) != 0 && StreamPatternMatches(g.pattern, stream)) return true;
  }
  return false;
}

const UserEntry* UsersFile::Find(std::string_view name) const {
  for (const UserEntry& u : users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

UserEntry* UsersFile::Find(std::string_view name) {
  return const_cast<UserEntry*>(static_cast<const UsersFile*>(this)->Find(name));
}

const char* PermissionName(Permission permission) {
  switch (permission) {
    case kPermissionRead: return "read";
    case kPermissionWrite: return "write";
    case kPermissionCreate: return "create";
    case kPermissionManage: return "manage";
  }
  return "?";
}

std::string PermissionsText(Permissions permissions) {
  std::string out;
  if ((permissions & kAllPermissions) == kAllPermissions) {
    out = "all";
    permissions &= static_cast<Permissions>(~kAllPermissions);
  }
  for (Permission p : kEach) {
    if ((permissions & p) == 0) continue;
    if (!out.empty()) out += ',';
    out += PermissionName(p);
  }
  return out.empty() ? "none" : out;
}

bool ParsePermissions(std::string_view text, Permissions* permissions, std::string* why) {
  *permissions = 0;
  while (true) {
    size_t comma = text.find(',');
    std::string_view word = text.substr(0, comma);
    bool known = word == "all";
    if (known) *permissions |= kAllPermissions;
    for (Permission p : kEach) {
      if (word == PermissionName(p)) {
        *permissions |= p;
        known = true;
      }
    }
    if (!known) {
      *why = "unknown permission '" + std::string(word) + "' (expected read, write, create, manage or all)";
      return false;
    }
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool CheckUserName(std::string_view name, std::string* why) {
  if (name.empty()) {
    *why = "empty user name";
    return false;
  }
  if (name[0] == '#') {
    *why = "a user name may not start with '#'";
    return false;
  }
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ':' || u <= ' ' || u == 0x7f) {
      *why = "a user name may not hold ':', white space or control characters";
      return false;
    }
  }
  return true;
}

bool CheckStreamPattern(std::string_view pattern, std::string* why) {
  if (pattern.empty()) {
    *why = "empty stream pattern";
    return false;
  }
  for (char c : pattern) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= ' ' || u == 0x7f) {
      *why = "a stream pattern may not hold white space or control characters";
      return false;
    }
  }
  return true;
}

bool ParseUsersFile(std::string_view text, const std::string& path, UsersFile* file, std::string* error) {
  *file = UsersFile();
  int number = 0;
  auto fail = [&](const std::string& why) {
    *error = path + ": line " + std::to_string(number) + ": " + why;
    return false;
  };
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') {
      if (file->users.empty()) file->header.emplace_back(line);
      continue;
    }
    std::string why;
    if (IsSpace(line[0])) {  // a permission line of the user above
      if (file->users.empty()) return fail("a permission line before any user");
      size_t gap = trimmed.find_first_of(" \t");
      if (gap == std::string_view::npos) return fail("expected PERMISSIONS PATTERN, e.g. 'read orders-*'");
      Grant grant;
      if (!ParsePermissions(trimmed.substr(0, gap), &grant.permissions, &why)) return fail(why);
      std::string_view pattern = Trim(trimmed.substr(gap));
      if (!CheckStreamPattern(pattern, &why)) return fail(why);
      grant.pattern = std::string(pattern);
      file->users.back().grants.push_back(std::move(grant));
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return fail("expected NAME:HASH");
    UserEntry user;
    user.name = std::string(line.substr(0, colon));
    user.hash = std::string(Trim(line.substr(colon + 1)));
    if (!CheckUserName(user.name, &why)) return fail(why);
    if (file->Find(user.name) != nullptr) return fail("user '" + user.name + "' is listed twice");
    if (user.name == kAnonymousUser) {
      if (!user.hash.empty()) return fail("the anonymous entry takes no password (write 'anonymous:')");
    } else if (user.hash.empty()) {
      return fail("user '" + user.name + "' has no password hash");
    } else if (!CheckPasswordHash(user.hash, &why)) {
      return fail("user '" + user.name + "': " + why);
    }
    file->users.push_back(std::move(user));
  }
  return true;
}

bool ReadUsersFile(const std::string& path, UsersFile* file, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = Errno(path, "cannot read the users file");
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    *error = Errno(path, "cannot read the users file");
    return false;
  }
  return ParseUsersFile(text.str(), path, file, error);
}

std::string FormatUsersFile(const UsersFile& file) {
  std::string out;
  for (const std::string& line : file.header) out += line + "\n";
  for (const UserEntry& user : file.users) {
    out += user.name + ":" + user.hash + "\n";
    for (const Grant& g : user.grants) out += "  " + PermissionsText(g.permissions) + " " + g.pattern + "\n";
  }
  return out;
}

bool WriteUsersFile(const std::string& path, const UsersFile& file, std::string* error) {
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkstemp(temp.data());  // mode 0600
  if (fd < 0) {
    *error = Errno(path, "cannot create a temporary file beside it");
    return false;
  }
  const std::string text = FormatUsersFile(file);
  bool ok = fchmod(fd, 0600) == 0 && WriteAll(fd, text) && fsync(fd) == 0;
  if (!ok) *error = Errno(path, "cannot write the temporary file");
  if (close(fd) != 0 && ok) {
    ok = false;
    *error = Errno(path, "cannot write the temporary file");
  }
  if (ok && rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    *error = Errno(path, "cannot replace the file");
  }
  if (!ok) {
    unlink(temp.c_str());
    return false;
  }
  int dir = open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    (void)fsync(dir);  // the rename is durable once the folder is; a failure here loses no data
    close(dir);
  }
  return true;
}

}  // namespace sift::tools
