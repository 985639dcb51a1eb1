// Fixed-width unsigned integers in a given byte order, loaded from and stored into byte buffers.
//
// Little-endian is the order of every integer inside sift's stored values (chunk headers, index and
// summary entries, store and stream records) and of the words the chunk summaries' text hash and the
// portable CRC32C read; big-endian is the order of the integers inside RocksDB keys, where bytewise
// key order must equal numeric order, and of every integer of the AMQP 1.0 encoding (core part 1,
// section 1.2: amqp's readers, record-file length prefixes). The functions take `const void*` /
// `void*` so that char and uint8_t buffers serve alike; they do no bounds checks (the caller has the
// bytes).
//
// Each is one memcpy and, on a host of the other order, one byte swap: compilers turn that into a
// single load or store, and the functions are constexpr where the standard allows (the swaps).
#ifndef SIFT_BASE_BYTE_ORDER_H_
#define SIFT_BASE_BYTE_ORDER_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace sift::base {

constexpr uint16_t ByteSwap16(uint16_t v) { return static_cast<uint16_t>((v << 8) | (v >> 8)); }
constexpr uint32_t ByteSwap32(uint32_t v) { return __builtin_bswap32(v); }
constexpr uint64_t ByteSwap64(uint64_t v) { return __builtin_bswap64(v); }

namespace internal {

constexpr uint16_t Swap(uint16_t v) { return ByteSwap16(v); }
constexpr uint32_t Swap(uint32_t v) { return ByteSwap32(v); }
constexpr uint64_t Swap(uint64_t v) { return ByteSwap64(v); }

// `v` converted between host order and `order` (the same operation in both directions).
template <std::endian order, typename T>
constexpr T ToOrder(T v) {
  static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
                "mixed-endian hosts are not supported");
  if constexpr (order == std::endian::native) {
    return v;
  } else {
    return Swap(v);
  }
}

template <std::endian order, typename T>
inline T Load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return ToOrder<order>(v);
}

template <std::endian order, typename T>
inline void Store(void* p, T v) {
  v = ToOrder<order>(v);
  std::memcpy(p, &v, sizeof v);
}

template <std::endian order, typename T>
inline void Append(std::string* out, T v) {
  v = ToOrder<order>(v);
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out->append(bytes, sizeof v);
}

}  // namespace internal

// Little-endian: the least significant byte first.
inline uint16_t LoadLE16(const void* p) { return internal::Load<std::endian::little, uint16_t>(p); }
inline uint32_t LoadLE32(const void* p) { return internal::Load<std::endian::little, uint32_t>(p); }
inline uint64_t LoadLE64(const void* p) { return internal::Load<std::endian::little, uint64_t>(p); }
inline void StoreLE16(void* p, uint16_t v) { internal::Store<std::endian::little>(p, v); }
inline void StoreLE32(void* p, uint32_t v) { internal::Store<std::endian::little>(p, v); }
inline void StoreLE64(void* p, uint64_t v) { internal::Store<std::endian::little>(p, v); }
inline void AppendLE16(std::string* out, uint16_t v) { internal::Append<std::endian::little>(out, v); }
inline void AppendLE32(std::string* out, uint32_t v) { internal::Append<std::endian::little>(out, v); }
inline void AppendLE64(std::string* out, uint64_t v) { internal::Append<std::endian::little>(out, v); }

// Big-endian: the most significant byte first.
inline uint16_t LoadBE16(const void* p) { return internal::Load<std::endian::big, uint16_t>(p); }
inline uint32_t LoadBE32(const void* p) { return internal::Load<std::endian::big, uint32_t>(p); }
inline uint64_t LoadBE64(const void* p) { return internal::Load<std::endian::big, uint64_t>(p); }
inline void StoreBE16(void* p, uint16_t v) { internal::Store<std::endian::big>(p, v); }
inline void StoreBE32(void* p, uint32_t v) { internal::Store<std::endian::big>(p, v); }
inline void StoreBE64(void* p, uint64_t v) { internal::Store<std::endian::big>(p, v); }
inline void AppendBE16(std::string* out, uint16_t v) { internal::Append<std::endian::big>(out, v); }
inline void AppendBE32(std::string* out, uint32_t v) { internal::Append<std::endian::big>(out, v); }
inline void AppendBE64(std::string* out, uint64_t v) { internal::Append<std::endian::big>(out, v); }

}  // namespace sift::base

#endif  // SIFT_BASE_BYTE_ORDER_H_
