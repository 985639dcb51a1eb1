// Text as the bytes it holds: the codec reads std::span<const uint8_t>, while messages travel through
// the API and the store as std::string_view.
#ifndef SIFT_BASE_BYTES_H_
#define SIFT_BASE_BYTES_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace sift::base {

inline std::span<const uint8_t> AsBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace sift::base

#endif  // SIFT_BASE_BYTES_H_
