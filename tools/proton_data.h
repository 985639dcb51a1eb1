// Reading and writing the values of a Proton pn_data_t that the tools' AMQP ends exchange: text of
// either kind, integers of any width.
#ifndef SIFT_TOOLS_PROTON_DATA_H_
#define SIFT_TOOLS_PROTON_DATA_H_

#include <proton/codec.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace sift::tools {

// The string or symbol at the data's current node; nullopt for any other type.
inline std::optional<std::string> TextAt(pn_data_t* data) {
  pn_bytes_t b;
  switch (pn_data_type(data)) {
    case PN_STRING: b = pn_data_get_string(data); break;
    case PN_SYMBOL: b = pn_data_get_symbol(data); break;
    default: return std::nullopt;
  }
  return std::string(b.start, b.size);
}

// An integer of any width at the data's current node: unsigned types as uint64_t, signed ones as
// int64_t; nullopt for any other type.
inline std::optional<std::variant<uint64_t, int64_t>> IntegerAt(pn_data_t* data) {
  switch (pn_data_type(data)) {
    case PN_UBYTE: return uint64_t{pn_data_get_ubyte(data)};
    case PN_USHORT: return uint64_t{pn_data_get_ushort(data)};
    case PN_UINT: return uint64_t{pn_data_get_uint(data)};
    case PN_ULONG: return uint64_t{pn_data_get_ulong(data)};
    case PN_BYTE: return int64_t{pn_data_get_byte(data)};
    case PN_SHORT: return int64_t{pn_data_get_short(data)};
    case PN_INT: return int64_t{pn_data_get_int(data)};
    case PN_LONG: return int64_t{pn_data_get_long(data)};
    default: return std::nullopt;
  }
}

// Puts `text` as an AMQP string.
inline void PutText(pn_data_t* data, std::string_view text) {
  pn_data_put_string(data, pn_bytes(text.size(), text.data()));
}

}  // namespace sift::tools

#endif  // SIFT_TOOLS_PROTON_DATA_H_
