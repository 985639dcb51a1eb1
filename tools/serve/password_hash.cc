// crypt(3) hashes through libxcrypt's reentrant calls (see password_hash.h).
#include "tools/serve/password_hash.h"

#include <crypt.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace sift::tools {
namespace {

// A hash of the empty password at the default cost: VerifyNothing hashes against it.
constexpr const char* kDummyHash = "$y$j9T$nTQI4mph2U7rgscWqAg3t.$GBBh8caSXegAv8l7HTSOb1AvTWnC3vvnH1Q4mtXV.9.";

struct Method {
  std::string_view prefix;
  size_t digest;  // length of the last `$`-separated field (bcrypt: salt and digest together)
};
constexpr Method kMethods[] = {{"$y$", 43}, {"$gy$", 43}, {"$7$", 43}, {"$2b$", 53}, {"$6$", 86}, {"$5$", 43}};

bool IsHashChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '/';
}

// crypt_rn of `password` with the settings of `hash`; empty when crypt refuses them. The work area is
// about 32 KiB, too big for the stack of every thread.
std::string Crypt(std::string_view password, const char* setting) {
  if (password.find('\0') != std::string_view::npos) return {};
  auto data = std::make_unique<crypt_data>();
  std::string phrase(password);
  const char* out = crypt_rn(phrase.c_str(), setting, data.get(), sizeof(crypt_data));
  std::string result = (out == nullptr || out[0] == '*') ? std::string() : std::string(out);
  explicit_bzero(data.get(), sizeof(crypt_data));
  explicit_bzero(phrase.data(), phrase.size());
  return result;
}

}  // namespace

bool HashPassword(std::string_view password, std::string* hash, std::string* error) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$y$", 0, nullptr, 0, setting, sizeof setting) == nullptr) {
    *error = std::string("cannot make a salt: ") + strerror(errno);
    return false;
  }
  *hash = Crypt(password, setting);
  if (hash->empty()) {
    *error = "cannot hash the password (a password may not contain a NUL byte)";
    return false;
  }
  return true;
}

bool VerifyPassword(std::string_view password, const std::string& hash) {
  std::string computed = Crypt(password, hash.c_str());
  // Constant time in the content of both: the lengths are public (the method's).
  unsigned char diff = computed.size() == hash.size() ? 0 : 1;
  const size_t n = computed.size() < hash.size() ? computed.size() : hash.size();
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(computed[i] ^ hash[i]);
  return diff == 0 && !computed.empty();
}

void VerifyNothing(std::string_view password) { (void)VerifyPassword(password, kDummyHash); }

bool CheckPasswordHash(std::string_view hash, std::string* why) {
  if (hash.empty() || hash[0] != '$') {
    *why = "not a crypt(3) hash (clear-text passwords are refused; set one with 'sift users add')";
    return false;
  }
  const Method* method = nullptr;
  for (const Method& m : kMethods) {
    if (hash.substr(0, m.prefix.size()) == m.prefix) method = &m;
  }
  if (method == nullptr) {
    *why = "unknown or weak hash method '" + std::string(hash.substr(0, hash.find('$', 1) + 1)) +
           "' (accepted: $y$, $gy$, $7$, $2b$, $6$, $5$)";
    return false;
  }
  for (char c : hash) {
    if (c != '$' && !IsHashChar(c)) {
      *why = "a crypt(3) hash holds only letters, digits, '.', '/' and '$'";
      return false;
    }
  }
  const size_t last = hash.rfind('$');
  if (last + 1 + method->digest != hash.size() || last < method->prefix.size()) {
    *why = "an incomplete " + std::string(method->prefix) + " hash (" + std::to_string(hash.size() - last - 1) +
           " characters after the last '$', expected " + std::to_string(method->digest) + ")";
    return false;
  }
  std::string setting(hash);
  if (crypt_checksalt(setting.c_str()) != CRYPT_SALT_OK) {
    *why = "bad settings for " + std::string(method->prefix) + " (libxcrypt refuses or disabled them)";
    return false;
  }
  return true;
}

}  // namespace sift::tools
