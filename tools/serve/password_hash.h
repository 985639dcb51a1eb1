// Salted, slow password hashes in crypt(3) format (libxcrypt), for the users file of `sift serve`.
//
// New hashes are yescrypt (`$y$`, libxcrypt's default cost). A stored hash may also be gost-yescrypt
// (`$gy$`), scrypt (`$7$`), bcrypt (`$2b$`), sha512crypt (`$6$`) or sha256crypt (`$5$`); the older,
// weak methods (DES, MD5, ...) and anything that is not a complete hash of one of those methods are
// refused by CheckPasswordHash, so a clear-text password never passes for a hash.
#ifndef SIFT_TOOLS_SERVE_PASSWORD_HASH_H_
#define SIFT_TOOLS_SERVE_PASSWORD_HASH_H_

#include <string>
#include <string_view>

namespace sift::tools {

// A new yescrypt hash of `password` with a fresh random salt. False with *error when the system
// cannot make one (no entropy, or libxcrypt without yescrypt).
bool HashPassword(std::string_view password, std::string* hash, std::string* error);

// True when `password` hashes to `hash`. The comparison of the computed and the stored hash takes
// the same time wherever they differ; the hashing itself is slow on purpose (tens of milliseconds).
// A password with a NUL byte never verifies (crypt(3) would cut it there).
bool VerifyPassword(std::string_view password, const std::string& hash);

// Spends the time of one VerifyPassword against a hash of the default method, so that a login with
// an unknown user name takes as long as one with a wrong password.
void VerifyNothing(std::string_view password);

// True when `hash` is a complete hash of an accepted method; else false with *why ("not a crypt(3)
// hash: ...", "the method ... is too weak", "the hash is truncated").
bool CheckPasswordHash(std::string_view hash, std::string* why);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_PASSWORD_HASH_H_
