// The stored hashes of texts (see text_hash.h; the definitions are in docs/store-format.md).
#include "engine/text_hash.h"

namespace sift::engine {

uint64_t FieldTermSeed(selector::Section section, std::string_view name) {
  return Fmix64(TextHash(name) + (uint64_t{static_cast<uint8_t>(section)} + 1) * 0x9e3779b97f4a7c15ull);
}

uint64_t TextTerm(selector::Section section, std::string_view name, std::string_view text) {
  return TermOfTextHash(FieldTermSeed(section, name), TextHash(text));
}

}  // namespace sift::engine
