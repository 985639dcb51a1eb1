// Reading the common name back out of a subject printed in RFC 2253 form (see certificate_name.h).
#include "tools/serve/certificate_name.h"

#include <cstdint>
#include <vector>

#include "base/utf8.h"

namespace sift::tools {
namespace {

struct NameEntry {
  std::string type;
  std::string value;      // unescaped bytes
  bool der_dump = false;  // `#hex`: the value is no string
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Splits the subject into its attribute entries, undoing the escapes. False with *why when the text is
// not what X509_NAME_print_ex writes.
bool SplitSubject(std::string_view subject, std::vector<NameEntry>* entries, std::string* why) {
  size_t i = 0;
  while (i < subject.size()) {
    NameEntry entry;
    const size_t equals = subject.find('=', i);
    if (equals == std::string_view::npos || equals == i) {
      *why = "malformed certificate subject (an attribute without a type)";
      return false;
    }
    entry.type = std::string(subject.substr(i, equals - i));
    i = equals + 1;
    entry.der_dump = i < subject.size() && subject[i] == '#';
    while (i < subject.size() && subject[i] != ',' && subject[i] != '+') {
      if (subject[i] != '\\') {
        entry.value += subject[i++];
        continue;
      }
      // `\XX` is a byte; `\c` a special character (never a hex digit, so the two cannot be confused).
      if (i + 2 < subject.size() && HexDigit(subject[i + 1]) >= 0 && HexDigit(subject[i + 2]) >= 0) {
        entry.value += static_cast<char>(HexDigit(subject[i + 1]) * 16 + HexDigit(subject[i + 2]));
        i += 3;
      } else if (i + 1 < subject.size()) {
        entry.value += subject[i + 1];
        i += 2;
      } else {
        *why = "malformed certificate subject (it ends in an escape)";
        return false;
      }
    }
    entries->push_back(std::move(entry));
    if (i < subject.size()) ++i;  // the separator
  }
  return true;
}

// Why `name` (UTF-8 bytes) cannot name a user, or "" when it can.
std::string NameFault(std::string_view name) {
  if (name.empty()) return "the common name is empty";
  const auto* bytes = reinterpret_cast<const uint8_t*>(name.data());
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = 0;
    const size_t len = base::DecodeUtf8(bytes + i, name.size() - i, &cp);
    if (len == 0) return "the common name is not valid UTF-8";
    if (cp == 0) return "the common name holds a NUL byte";
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "the common name holds a control character";
    i += len;
  }
  return "";
}

}  // namespace

bool CommonNameFromSubject(std::string_view subject, std::string* name, std::string* why) {
  std::vector<NameEntry> entries;
  if (!SplitSubject(subject, &entries, why)) return false;
  const NameEntry* cn = nullptr;
  int count = 0;
  for (const NameEntry& e : entries) {
    if (e.type != "CN") continue;
    ++count;
    cn = &e;
  }
  if (count == 0) {
    *why = "the certificate subject has no common name (CN)";
    return false;
  }
  if (count > 1) {
    *why = "the certificate subject has " + std::to_string(count) + " common names (CN), not one";
    return false;
  }
  if (cn->der_dump) {
    *why = "the common name is not a string";
    return false;
  }
  if (std::string fault = NameFault(cn->value); !fault.empty()) {
    *why = fault;
    return false;
  }
  *name = cn->value;
  return true;
}

}  // namespace sift::tools
