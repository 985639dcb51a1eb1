// sift/delivery.h: one message a consumer's filter matched (Delivery), and the batch that holds
// deliveries (DeliveryBatch).
//
// A Delivery is cheap: an offset, the append timestamp and a view of the encoded bytes. The bytes are
// owned by the DeliveryBatch it came in and live until that batch is cleared or refilled (the next
// Consumer::Poll into it) or destroyed. A full decode — into a Proton message or into typed JSON
// (docs/typed-json.md) — happens only when the caller asks for it, so a consumer that forwards
// bytes (a broker sending a transfer) never pays for it.
//
// ToProton fills a Proton message (the Qpid Proton C API, proton/message.h): this header only declares
// the type, so a program that does not call ToProton includes nothing of Proton.
//
// Thread safety: a batch and its deliveries are plain values; reading them from several threads is
// safe, filling one batch from two threads is not.
#ifndef SIFT_DELIVERY_H_
#define SIFT_DELIVERY_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/status.h"

struct pn_message_t;  // Proton C API (proton/message.h)

namespace sift {

class Delivery {
 public:
  Delivery() = default;
  // A delivery viewing `bytes`, which must outlive it (a batch's deliveries view the batch's bytes; a
  // parallel scan's view the match it hands to its sink).
  Delivery(uint64_t offset, int64_t timestamp_ms, std::string_view bytes)
      : offset_(offset), timestamp_ms_(timestamp_ms), bytes_(bytes) {}

  uint64_t offset() const { return offset_; }
  int64_t timestamp_ms() const { return timestamp_ms_; }  // append time, ms since the Unix epoch
  std::string_view bytes() const { return bytes_; }       // one encoded AMQP 1.0 message

  // Full decode into `out` (owned by the caller, cleared first). Corruption when the stored bytes are
  // not a message Proton can hold (the reason names the byte offset).
  Status ToProton(pn_message_t* out) const;

  // Full decode into one line of typed JSON (docs/typed-json.md) with "offset" set, no trailing
  // newline. Corruption when the stored bytes are not a message typed JSON can write (the reason
  // names the byte offset).
  Status ToJson(std::string* out) const;

 private:
  friend class DeliveryBatch;
  uint64_t offset_ = 0;
  int64_t timestamp_ms_ = 0;
  std::string_view bytes_;
};

class DeliveryBatch {
 public:
  DeliveryBatch() = default;
  DeliveryBatch(const DeliveryBatch&) = delete;  // deliveries view the batch's own bytes
  DeliveryBatch& operator=(const DeliveryBatch&) = delete;

  size_t size() const { return deliveries_.size(); }
  bool empty() const { return deliveries_.empty(); }
  const Delivery& operator[](size_t i) const { return deliveries_[i]; }
  std::vector<Delivery>::const_iterator begin() const { return deliveries_.begin(); }
  std::vector<Delivery>::const_iterator end() const { return deliveries_.end(); }

  // Forgets every delivery; keeps the memory for the next fill.
  void Clear();
  // Forgets every delivery and frees the memory Clear keeps: for a batch that held large messages and
  // may now wait a long time before its next fill.
  void Release();

 private:
  friend class Consumer;  // the only filler: a batch holds what a poll matched
  // Copies `bytes` into the batch and adds a delivery viewing the copy.
  void Add(uint64_t offset, int64_t timestamp_ms, std::string_view bytes);

  // Bytes of all deliveries back to back; views are rebuilt when the arena moves.
  std::string arena_;
  std::vector<Delivery> deliveries_;
  std::vector<size_t> starts_;  // arena offset of each delivery's bytes
};

}  // namespace sift

#endif  // SIFT_DELIVERY_H_
