// Building the benchmark corpora: see record_buffer.h for what a base corpus and a variant are.
#include "bench/filter/record_buffer.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "base/byte_order.h"
#include "amqp/encoded_value.h"
#include "amqp/message_view.h"
#include "amqp/record_file.h"
#include "amqp/validate.h"
#include "tools/synthetic/synthetic_orders.h"

namespace sift::bench {

void RecordBuffer::Append(std::span<const uint8_t> message) {
  uint8_t prefix[4];
  base::StoreBE32(prefix, static_cast<uint32_t>(message.size()));
  bytes_.insert(bytes_.end(), prefix, prefix + 4);
  bytes_.insert(bytes_.end(), message.begin(), message.end());
  starts_.push_back(bytes_.size());
}

void RecordBuffer::Reserve(size_t bytes, size_t records) {
  bytes_.reserve(bytes);
  starts_.reserve(records + 1);
}

std::string_view PlacementName(Placement placement) {
  switch (placement) {
    case Placement::kAsGenerated: return "as-generated";
    case Placement::kFirst: return "first";
    case Placement::kLast: return "last";
  }
  return "?";
}

size_t PlantedCount(size_t count, uint64_t per_million) {
  return static_cast<size_t>((static_cast<unsigned __int128>(count) * per_million + 500000) / 1000000);
}

namespace {

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

bool SameBytes(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

// Where the "customer" entry of a message's application-properties map lies, as offsets from the
// message start.
struct CustomerEntry {
  size_t entries_begin = 0;  // first byte of the map's first key
  size_t entries_end = 0;    // one past the map's last value
  size_t pair_begin = 0;     // first byte of the key "customer"
  size_t pair_end = 0;       // one past its value
  size_t value_text = 0;     // first byte of the value's text "cust-NNNNN"
};

bool FindCustomer(std::span<const uint8_t> message, CustomerEntry* out, std::string* why) {
  amqp::MessageView view(message);
  amqp::EncodedValue map;
  if (!view.FindSection(amqp::SectionKind::kApplicationProperties, &map) || !map.is_map()) {
    *why = "no application-properties map";
    return false;
  }
  const uint8_t* base = message.data();
  const uint8_t* p = map.payload().data();
  const uint8_t* limit = p + map.payload().size();
  out->entries_begin = static_cast<size_t>(p - base);
  out->entries_end = static_cast<size_t>(limit - base);
  bool found = false;
  for (uint32_t i = 0; i + 1 < map.count(); i += 2) {
    const uint8_t* pair = p;
    amqp::EncodedValue key, value;
    amqp::DecodeError error;
    p = amqp::ReadValue(base, p, limit, &key, &error);
    if (p != nullptr) p = amqp::ReadValue(base, p, limit, &value, &error);
    if (p == nullptr) {
      *why = "application-properties map does not parse";
      return false;
    }
    std::string_view k, v;
    if (!found && key.GetString(&k) && k == "customer") {
      if (!value.GetString(&v) || v.size() != kPlantedCustomer.size() || v.substr(0, 5) != "cust-") {
        *why = "application property \"customer\" is not a string \"cust-NNNNN\"";
        return false;
      }
      out->pair_begin = static_cast<size_t>(pair - base);
      out->pair_end = static_cast<size_t>(p - base);
      out->value_text = static_cast<size_t>(reinterpret_cast<const uint8_t*>(v.data()) - base);
      found = true;
    }
  }
  if (!found) *why = "no application property \"customer\"";
  return found;
}

// A multiplier coprime with n near n / golden ratio: i -> i * a mod n is then a permutation of [0, n)
// that scatters consecutive indices.
uint64_t ScatterMultiplier(uint64_t n) {
  if (n <= 2) return 1;
  uint64_t a = static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887498949);
  while (std::gcd(a, n) != 1) ++a;
  return a;
}

}  // namespace

bool LoadBaseCorpus(std::string_view profile, size_t count, const std::string& record_file, RecordBuffer* out,
                    std::string* error) {
  std::unique_ptr<synthetic::SyntheticOrders> generator;
  synthetic::SyntheticOrdersOptions options;
  options.profile = std::string(profile);
  options.seed = 1;
  Status status = synthetic::SyntheticOrders::Create(options, &generator);
  if (!status.ok()) {
    *error = status.ToString();
    return false;
  }
  *out = RecordBuffer();
  std::string message;
  const std::string source = record_file.empty() ? "generated " + options.profile : record_file;
  amqp::RecordFileReader reader;
  if (!record_file.empty() && !reader.Open(record_file)) {
    *error = reader.error();
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    std::span<const uint8_t> bytes;
    if (record_file.empty()) {
      status = generator->Encode(i, &message);
      if (!status.ok()) {
        *error = status.ToString();
        return false;
      }
      bytes = AsBytes(message);
    } else if (!reader.Next(&bytes)) {
      *error = reader.ok() ? record_file + ": holds " + std::to_string(i) + " records, " + std::to_string(count) +
                                 " needed (regenerate it with sift gen)"
                           : reader.error();
      return false;
    }
    if (i == 0) out->Reserve((bytes.size() + 4) * count * 21 / 20 + 4096, count);
    amqp::DecodeError bad = amqp::Validate(bytes);
    if (!bad.ok()) {
      *error = source + ": record " + std::to_string(i) + " is not a well-formed message: " + bad.Message();
      return false;
    }
    // A file must hold the generator's messages, or the figures would not be comparable across runs.
    if (!record_file.empty() && (i == 0 || i + 1 == count)) {
      status = generator->Encode(i, &message);
      if (!status.ok() || !SameBytes(bytes, AsBytes(message))) {
        *error = record_file + ": record " + std::to_string(i) + " differs from message " + std::to_string(i) +
                 " of `sift gen --profile " + options.profile + " --seed 1`";
        return false;
      }
    }
    out->Append(bytes);
  }
  return true;
}

bool BuildVariant(const RecordBuffer& base, Placement placement, uint64_t per_million, RecordBuffer* out,
                  std::string* error) {
  *out = base;
  const size_t n = out->count();
  const size_t planted = PlantedCount(n, per_million);
  const uint64_t a = ScatterMultiplier(n);
  for (size_t i = 0; i < n; ++i) {
    std::span<uint8_t> m = out->mutable_message(i);
    CustomerEntry e;
    std::string why;
    if (!FindCustomer(m, &e, &why)) {
      *error = "record " + std::to_string(i) + ": " + why;
      return false;
    }
    size_t text = e.value_text;
    if (placement == Placement::kFirst) {
      std::rotate(m.begin() + e.entries_begin, m.begin() + e.pair_begin, m.begin() + e.pair_end);
      text = e.entries_begin + (e.value_text - e.pair_begin);
    } else if (placement == Placement::kLast) {
      std::rotate(m.begin() + e.pair_begin, m.begin() + e.pair_end, m.begin() + e.entries_end);
      text = e.entries_end - (e.pair_end - e.value_text);
    }
    if (static_cast<uint64_t>((static_cast<unsigned __int128>(i) * a) % n) < planted) {
      std::memcpy(m.data() + text, kPlantedCustomer.data(), kPlantedCustomer.size());
    }
  }
  return true;
}

}  // namespace sift::bench
