// Delivery and DeliveryBatch (see sift/delivery.h): the batch copies matched bytes into one arena it reuses.
#include "sift/delivery.h"

#include <proton/message.h>

#include "amqp/proton_message.h"
#include "base/bytes.h"
#include "amqp/typed_json.h"

namespace sift {

void DeliveryBatch::Clear() {
  arena_.clear();
  deliveries_.clear();
  starts_.clear();
}

void DeliveryBatch::Release() {
  std::string().swap(arena_);
  std::vector<Delivery>().swap(deliveries_);
  std::vector<size_t>().swap(starts_);
}

void DeliveryBatch::Add(uint64_t offset, int64_t timestamp_ms, std::string_view bytes) {
  const char* before = arena_.data();
  const size_t start = arena_.size();
  arena_.append(bytes);
  if (arena_.data() != before) {
    // The arena moved: point earlier deliveries at the new copy.
    for (size_t i = 0; i < deliveries_.size(); ++i) {
      deliveries_[i].bytes_ = std::string_view(arena_.data() + starts_[i], deliveries_[i].bytes_.size());
    }
  }
  deliveries_.emplace_back(offset, timestamp_ms, std::string_view(arena_.data() + start, bytes.size()));
  starts_.push_back(start);
}

Status Delivery::ToProton(pn_message_t* out) const {
  amqp::ConversionStatus s = amqp::DecodeToProton(base::AsBytes(bytes_), out);
  if (!s.ok()) return Status::Corruption("cannot decode message", "offset " + std::to_string(offset_), s.error());
  return Status::OK();
}

Status Delivery::ToJson(std::string* out) const {
  amqp::ConversionStatus s = amqp::DecodeToTypedJson(base::AsBytes(bytes_), offset_, out);
  if (!s.ok()) return Status::Corruption("cannot decode message", "offset " + std::to_string(offset_), s.error());
  return Status::OK();
}

}  // namespace sift
