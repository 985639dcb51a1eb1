#include "base/base64.h"

#include <array>
#include <cstring>

#include "base/byte_order.h"

namespace sift::base {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Twelve bits at a time: each entry is the two characters of a 12-bit group, so a three-byte group
// is two table loads instead of four shifts and lookups.
constexpr auto kPairs = [] {
  std::array<std::array<char, 2>, 4096> t{};
  for (int v = 0; v < 4096; ++v) t[v] = {kAlphabet[v >> 6], kAlphabet[v & 63]};
  return t;
}();

// The six-bit value of each character of either alphabet; -1 for every other byte.
constexpr auto kValue = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int v = 0; v < 64; ++v) t[static_cast<uint8_t>(kAlphabet[v])] = static_cast<int8_t>(v);
  t[static_cast<uint8_t>('-')] = 62;
  t[static_cast<uint8_t>('_')] = 63;
  return t;
}();

bool Fail(Base64Error::Reason reason, size_t position, Base64Error* error) {
  error->reason = reason;
  error->position = position;
  return false;
}

}  // namespace

void EncodeBase64(const void* bytes, size_t n, char* o) {
  const auto* p = static_cast<const uint8_t*>(bytes);
  size_t i = 0;
  // Six bytes at a time while eight can be read: one big-endian load holds four 12-bit groups.
  for (; i + 8 <= n; i += 6) {
    const uint64_t v = LoadBE64(p + i);
    std::memcpy(o, kPairs[v >> 52].data(), 2);
    std::memcpy(o + 2, kPairs[(v >> 40) & 4095].data(), 2);
    std::memcpy(o + 4, kPairs[(v >> 28) & 4095].data(), 2);
    std::memcpy(o + 6, kPairs[(v >> 16) & 4095].data(), 2);
    o += 8;
  }
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    std::memcpy(o, kPairs[v >> 12].data(), 2);
    std::memcpy(o + 2, kPairs[v & 4095].data(), 2);
    o += 4;
  }
  if (n - i == 1) {
    const uint32_t v = uint32_t{p[i]} << 16;
    *o++ = kAlphabet[v >> 18];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = '=';
    *o++ = '=';
  } else if (n - i == 2) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    *o++ = kAlphabet[v >> 18];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = kAlphabet[(v >> 6) & 63];
    *o++ = '=';
  }
}

void AppendBase64(std::string_view bytes, std::string* out) {
  const size_t at = out->size();
  out->resize(at + Base64EncodedSize(bytes.size()));
  EncodeBase64(bytes.data(), bytes.size(), out->data() + at);
}

std::string_view Base64ReasonText(Base64Error::Reason reason) {
  switch (reason) {
    case Base64Error::Reason::kBadCharacter: return "bad character";
    case Base64Error::Reason::kBadPadding: return "bad padding";
    case Base64Error::Reason::kTruncatedGroup: return "truncated final group";
    case Base64Error::Reason::kUnusedBitsSet: return "unused bits of the final group are not zero";
  }
  return "invalid";
}

bool DecodeBase64(std::string_view text, std::string* out, Base64Error* error) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '=' && text.size() - end < 2) --end;
  if (end < text.size() && text.size() % 4 != 0) return Fail(Base64Error::Reason::kBadPadding, end, error);
  out->clear();
  out->reserve(end / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    const int v = kValue[static_cast<uint8_t>(text[i])];
    if (v < 0) return Fail(Base64Error::Reason::kBadCharacter, i, error);
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (end % 4 == 1) return Fail(Base64Error::Reason::kTruncatedGroup, end - 1, error);
  if ((acc & ((1u << bits) - 1)) != 0) return Fail(Base64Error::Reason::kUnusedBitsSet, end - 1, error);
  return true;
}

}  // namespace sift::base
