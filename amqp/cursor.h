// A forward-only, bounds-checked cursor over a sequence of encoded AMQP 1.0 values.
//
// Modelled on simdjson On-Demand: Next() locates the next value in O(1) (a compound is skipped
// through its size prefix, never walked) and yields it as an EncodedValue whose typed getters decode
// on request. A Cursor reads the top-level values of a buffer (the sections of a message) or the
// elements of one compound (list, map — keys and values alternating — or array, whose elements share
// one element constructor).
//
// Invariants: no read leaves [start, limit) of the buffer or compound it was made for; after the
// first malformed value the cursor stops (Next() returns false) and error() says where and why. The
// cursor holds no heap memory; it views bytes that must outlive it and every value it yields.
#ifndef SIFT_ENGINE_AMQP_CURSOR_H_
#define SIFT_ENGINE_AMQP_CURSOR_H_

#include <cstdint>
#include <span>

#include "amqp/decode_error.h"
#include "amqp/encoded_value.h"

namespace sift::amqp {

class Cursor {
 public:
  // An empty cursor: done() at once.
  Cursor() = default;
  // The values filling `bytes` one after another (e.g. a message's sections); offsets in errors are
  // counted from bytes.data().
  explicit Cursor(std::span<const uint8_t> bytes);
  // The values filling [p, limit); offsets in errors are counted from base.
  Cursor(const uint8_t* base, const uint8_t* p, const uint8_t* limit);
  // The elements of a list, array or map (keys and values alternating); empty for other values. A
  // described compound yields the elements of the compound inside it.
  static Cursor Elements(const EncodedValue& compound);

  // Locates the next value: true and *out filled; false when there is none (done()) or the next value
  // is malformed (then !ok()). A compound's cursor stops after its count of elements.
  bool Next(EncodedValue* out);

  // True when every value has been read and no error was met.
  bool done() const { return error_.ok() && (counted_ ? remaining_ == 0 : p_ >= limit_); }
  bool ok() const { return error_.ok(); }
  const DecodeError& error() const { return error_; }
  // The next unread byte and its offset from base.
  const uint8_t* position() const { return p_; }
  uint32_t offset() const { return static_cast<uint32_t>(p_ - base_); }

 private:
  const uint8_t* base_ = nullptr;
  const uint8_t* p_ = nullptr;
  const uint8_t* limit_ = nullptr;
  const uint8_t* element_descriptor_ = nullptr;  // arrays with a described element constructor
  uint32_t remaining_ = 0;                       // elements still to read (compounds); 0 = done
  bool counted_ = false;                         // false: a top-level sequence that ends at limit
  bool array_ = false;                           // elements share the constructor below
  uint8_t element_code_ = 0;
  DecodeError error_;
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_CURSOR_H_
