// `sift users SUBCOMMAND --file FILE ...`: edits the users file of `sift serve`
// (tools/serve/users_file.h; docs/serve.md, "Users and permissions").
//
//   add --file F USER [--password-file P]
//       adds USER, or changes her password (her permissions stay); the password is the first line of
//       P, else of stdin (read without echo on a terminal), never a flag; F is created when missing
//   remove --file F USER
//   list --file F
//       every user and her permission lines, no hashes
//   grant --file F USER PERMISSIONS PATTERN
//       gives USER (`anonymous`: the anonymous entry, created when missing) PERMISSIONS (read, write,
//       create, manage, comma-separated; all is read,write,create) on the streams PATTERN matches,
//       merged into her line for that exact pattern
//   revoke --file F USER PERMISSIONS PATTERN
//       takes them back from her line for that exact pattern (the line goes once empty)
//
// The file is rewritten atomically (a temporary file renamed over it), mode 0600. Every edit holds
// the file's lock from its read to its rename (users_file_lock.h), so concurrent edits each see the
// one before and none is lost; a symlink is followed and its target edited. A bad name, permission or
// pattern, a missing user, an unreadable or malformed file: an error line, exit 2; a file that cannot
// be locked or written: exit 3.
#include <CLI/CLI.hpp>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <sys/stat.h>

#include "tools/serve/password_hash.h"
#include "tools/serve/users_file.h"
#include "tools/serve/users_file_lock.h"
#include "tools/sift/command.h"

namespace sift::tools {
namespace {

struct UsersOptions {
  std::string file;
  std::string user;
  std::string password_file;
  std::string permissions;
  std::string pattern;
};

int Usage(const std::string& command, const std::string& why) {
  PrintError("usage", command, why);
  return kExitUsage;
}

int Input(const std::string& where, const std::string& why) {
  PrintError("bad users file", where, why);
  return kExitUsage;
}

// Reads F; a missing F is an empty file when `missing_ok`.
bool Load(const std::string& path, bool missing_ok, UsersFile* file, int* rc) {
  struct stat st;
  if (missing_ok && stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    *file = UsersFile();
    file->header = {"# users of sift serve (sift users add / grant / revoke edit this file)"};
    return true;
  }
  std::string error;
  if (ReadUsersFile(path, file, &error)) return true;
  PrintError("bad users file", "", error);
  *rc = kExitUsage;
  return false;
}

// Takes the edit lock of o.file before an edit reads it; *lock then names the file to read and replace.
bool Lock(const UsersOptions& o, UsersFileLock* lock, int* rc) {
  std::string error;
  if (lock->Acquire(o.file, &error)) return true;
  PrintError("cannot lock users file", "", error);
  *rc = kExitStorage;
  return false;
}

int Save(const std::string& path, const UsersFile& file) {
  std::string error;
  if (WriteUsersFile(path, file, &error)) return kExitMatched;
  PrintError("cannot write users file", "", error);
  return kExitStorage;
}

// The first line of `password_file`, else of stdin (without echo when it is a terminal).
bool ReadPassword(const UsersOptions& o, std::string* password, std::string* error) {
  if (!o.password_file.empty()) {
    std::ifstream in(o.password_file);
    if (!in || !std::getline(in, *password)) {
      *error = o.password_file + ": cannot read the password file";
      return false;
    }
  } else {
    termios old;
    const bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
      fprintf(stderr, "password for %s: ", o.user.c_str());
      termios quiet = old;
      quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    const bool ok = static_cast<bool>(std::getline(std::cin, *password));
    if (tty) {
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
      fprintf(stderr, "\n");
    }
    if (!ok) {
      *error = "stdin: no password (give it on stdin or with --password-file)";
      return false;
    }
  }
  if (!password->empty() && password->back() == '\r') password->pop_back();
  if (password->empty()) {
    *error = "empty password";
    return false;
  }
  return true;
}

int RunAdd(const UsersOptions& o) {
  std::string why;
  if (!CheckUserName(o.user, &why)) return Usage("sift users add", o.user + ": " + why);
  if (o.user == kAnonymousUser) {
    return Usage("sift users add",
                 "anonymous: the anonymous entry has no password; 'sift users grant' gives it permissions");
  }
  // Hashed before the lock is taken: the hash is slow on purpose, and other edits need not wait for it.
  std::string password, error, hash;
  if (!ReadPassword(o, &password, &error)) return Usage("sift users add", error);
  if (!HashPassword(password, &hash, &error)) return Usage("sift users add", error);
  UsersFileLock lock;
  UsersFile file;
  int rc = 0;
  if (!Lock(o, &lock, &rc) || !Load(lock.target(), /*missing_ok=*/true, &file, &rc)) return rc;
  UserEntry* entry = file.Find(o.user);
  const bool added = entry == nullptr;
  if (added) {
    file.users.push_back(UserEntry{o.user, hash, {}});
  } else {
    entry->hash = hash;
  }
  rc = Save(lock.target(), file);
  if (rc == kExitMatched) printf("%s '%s'\n", added ? "added user" : "changed the password of", o.user.c_str());
  return rc;
}

int RunRemove(const UsersOptions& o) {
  UsersFileLock lock;
  UsersFile file;
  int rc = 0;
  if (!Lock(o, &lock, &rc) || !Load(lock.target(), false, &file, &rc)) return rc;
  for (auto it = file.users.begin(); it != file.users.end(); ++it) {
    if (it->name != o.user) continue;
    file.users.erase(it);
    rc = Save(lock.target(), file);
    if (rc == kExitMatched) printf("removed user '%s'\n", o.user.c_str());
    return rc;
  }
  return Input(o.file, "no user '" + o.user + "'");
}

int RunList(const UsersOptions& o) {
  UsersFile file;
  int rc = 0;
  if (!Load(o.file, false, &file, &rc)) return rc;
  for (const UserEntry& u : file.users) {
    printf("%s\n", u.name.c_str());
    for (const Grant& g : u.grants) printf("  %s %s\n", PermissionsText(g.permissions).c_str(), g.pattern.c_str());
  }
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunGrant(const UsersOptions& o, bool grant) {
  const std::string command = grant ? "sift users grant" : "sift users revoke";
  Permissions permissions = 0;
  std::string why;
  if (!ParsePermissions(o.permissions, &permissions, &why)) return Usage(command, why);
  if (!CheckStreamPattern(o.pattern, &why)) return Usage(command, why);
  UsersFileLock lock;
  UsersFile file;
  int rc = 0;
  if (!Lock(o, &lock, &rc) || !Load(lock.target(), false, &file, &rc)) return rc;
  UserEntry* entry = file.Find(o.user);
  if (entry == nullptr && grant && o.user == kAnonymousUser) {
    file.users.push_back(UserEntry{std::string(kAnonymousUser), "", {}});
    entry = &file.users.back();
  }
  if (entry == nullptr) return Input(o.file, "no user '" + o.user + "' (sift users add creates her)");
  Grant* line = nullptr;
  for (Grant& g : entry->grants) {
    if (g.pattern == o.pattern) line = &g;
  }
  if (grant) {
    if (line == nullptr) {
      entry->grants.push_back(Grant{0, o.pattern});
      line = &entry->grants.back();
    }
    line->permissions |= permissions;
  } else {
    if (line == nullptr || (line->permissions & permissions) == 0) {
      return Input(o.file, "user '" + o.user + "' has no " + PermissionsText(permissions) + " permission on '" +
                               o.pattern + "'");
    }
    line->permissions &= static_cast<Permissions>(~permissions);
    if (line->permissions == 0) entry->grants.erase(entry->grants.begin() + (line - entry->grants.data()));
  }
  rc = Save(lock.target(), file);
  if (rc == kExitMatched) {
    printf("%s %s %s '%s' on '%s'\n", grant ? "granted" : "revoked", PermissionsText(permissions).c_str(),
           grant ? "to" : "from", o.user.c_str(), o.pattern.c_str());
  }
  return rc;
}

CLI::App* Sub(CLI::App* users, const char* name, const char* help, UsersOptions* o) {
  CLI::App* sub = users->add_subcommand(name, help);
  sub->add_option("--file", o->file, "The users file of sift serve (--users)")->required();
  return sub;
}

}  // namespace

Command AddUsersCommand(CLI::App& app) {
  CLI::App* users = app.add_subcommand("users", "Edit the users file of sift serve: add, remove, list, grant, revoke");
  users->require_subcommand(1);
  auto o = std::make_shared<UsersOptions>();

  CLI::App* add = Sub(users, "add", "Add a user or change her password (read from stdin or --password-file)", o.get());
  add->add_option("USER", o->user, "User name")->required();
  add->add_option("--password-file", o->password_file, "Read the password from the first line of this file")
      ->check(CLI::ExistingFile);

  CLI::App* remove = Sub(users, "remove", "Remove a user", o.get());
  remove->add_option("USER", o->user, "User name")->required();

  CLI::App* list = Sub(users, "list", "List the users and their permissions", o.get());

  CLI::App* grant = Sub(users, "grant", "Give a user permissions on the streams a pattern matches", o.get());
  CLI::App* revoke = Sub(users, "revoke", "Take permissions on a pattern back from a user", o.get());
  for (CLI::App* sub : {grant, revoke}) {
    sub->add_option("USER", o->user, "User name (anonymous: the anonymous entry)")->required();
    sub->add_option("PERMISSIONS", o->permissions,
                    "read, write, create, manage (comma-separated); all: read,write,create")
        ->required();
    sub->add_option("PATTERN", o->pattern, "Glob on stream names: * any run, ? one character")->required();
  }

  return {users, [=] {
            if (add->parsed()) return RunAdd(*o);
            if (remove->parsed()) return RunRemove(*o);
            if (list->parsed()) return RunList(*o);
            return RunGrant(*o, grant->parsed());
          }};
}

}  // namespace sift::tools
