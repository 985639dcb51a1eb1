// Synthetic order messages: field generation (pure functions of seed and index) and encoding through
// Proton's C encoder. See synthetic_orders.h for the profiles and the determinism contract.
#include "tools/synthetic/synthetic_orders.h"

#include <proton/codec.h>
#include <proton/error.h>
#include <proton/message.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace sift::synthetic {
namespace {

constexpr std::array<std::string_view, 3> kProfiles = {"orders", "wide", "minimal"};

// Regions are skewed (real traffic is); colors are uniform; subjects follow an order's life cycle.
constexpr std::array<std::string_view, 8> kRegions = {"eu-west",  "us-east",      "eu-central", "us-west",
                                                      "ap-south", "ap-northeast", "sa-east",    "af-south"};
constexpr std::array<uint32_t, 8> kRegionWeights = {25, 25, 15, 12, 10, 8, 4, 1};  // percent
constexpr std::array<std::string_view, 8> kColors = {"red",   "green", "blue",   "yellow",
                                                     "black", "white", "purple", "orange"};
constexpr std::array<std::string_view, 6> kSubjects = {"created",   "paid",      "shipped",
                                                       "delivered", "cancelled", "refunded"};
constexpr std::array<uint32_t, 6> kSubjectWeights = {40, 25, 20, 10, 4, 1};
constexpr std::array<std::string_view, 3> kSources = {"web", "mobile", "store"};
constexpr std::array<std::string_view, 5> kCurrencies = {"EUR", "USD", "GBP", "JPY", "BRL"};
constexpr int32_t kPartitions = 8;

// SplitMix64 (Steele, Lea, Flood 2014): a counter-based generator, identical everywhere.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t index) : state_(Mix(seed * 0x9E3779B97F4A7C15ull ^ Mix(index + 0x632BE59BD9B4E019ull))) {}
  uint64_t Next() { return Mix(state_ += 0x9E3779B97F4A7C15ull); }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Next() % n); }
  bool Percent(uint32_t p) { return Below(100) < p; }
  template <size_t N>
  size_t Weighted(const std::array<uint32_t, N>& weights) {
    uint32_t total = 0;
    for (uint32_t w : weights) total += w;
    uint32_t r = Below(total);
    for (size_t i = 0; i < N; ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return N - 1;
  }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

pn_bytes_t Bytes(std::string_view s) { return pn_bytes(s.size(), s.data()); }

void PutString(pn_data_t* data, std::string_view key, std::string_view value) {
  pn_data_put_string(data, Bytes(key));
  pn_data_put_string(data, Bytes(value));
}

}  // namespace

struct SyntheticOrders::ProtonState {
  pn_message_t* message = pn_message();
  ~ProtonState() { pn_message_free(message); }
};

std::span<const std::string_view> SyntheticOrders::Profiles() { return kProfiles; }

Status SyntheticOrders::Create(const SyntheticOrdersOptions& options, std::unique_ptr<SyntheticOrders>* out) {
  Profile profile;
  if (options.profile == "orders") {
    profile = Profile::kOrders;
  } else if (options.profile == "wide") {
    profile = Profile::kWide;
  } else if (options.profile == "minimal") {
    profile = Profile::kMinimal;
  } else {
    return Status::InvalidArgument("unknown profile", options.profile, "expected orders, wide or minimal");
  }
  if (options.customers == 0) return Status::InvalidArgument("bad option", "customers", "must be at least 1");
  out->reset(new SyntheticOrders(options, profile));
  return Status::OK();
}

SyntheticOrders::SyntheticOrders(const SyntheticOrdersOptions& options, Profile profile)
    : options_(options), profile_(profile), proton_(std::make_unique<ProtonState>()), buffer_(4096) {}

SyntheticOrders::~SyntheticOrders() = default;

SyntheticOrder SyntheticOrders::Describe(uint64_t index) const {
  Rng rng(options_.seed, index);
  SyntheticOrder o;
  o.index = index;
  o.region = kRegions[rng.Weighted(kRegionWeights)];
  o.color = kColors[rng.Below(kColors.size())];
  o.subject = kSubjects[rng.Weighted(kSubjectWeights)];
  o.amount = 1 + rng.Below(1000);
  o.price = static_cast<double>(50 + rng.Below(99950)) / 100.0;  // 0.50 .. 999.99, two decimals
  o.customer = rng.Below(options_.customers);
  o.vip = rng.Percent(5);
  o.tier = static_cast<uint8_t>(rng.Below(4));
  // Priority: mostly the AMQP default 4, sometimes urgent (9) or bulk (0..3).
  uint32_t p = rng.Below(100);
  o.priority = p < 70 ? 4 : p < 80 ? 9 : static_cast<uint8_t>(p % 10);
  o.partition = static_cast<int32_t>(rng.Below(kPartitions));
  o.creation_time_ms = options_.start_time_ms + static_cast<int64_t>(index) * 10 + rng.Below(10);
  o.ordered_at_ms = o.creation_time_ms - static_cast<int64_t>(rng.Below(3600000));
  return o;
}

Status SyntheticOrders::Encode(uint64_t index, std::string* out) {
  const SyntheticOrder o = Describe(index);
  // A second stream of randomness for fields that only shape bytes (not described above).
  Rng rng(options_.seed ^ 0x5EEDF00Dull, index);
  pn_message_t* m = proton_->message;
  pn_message_clear(m);
  char text[64];

  if (profile_ != Profile::kMinimal) {
    // Header (core 3.2.1).
    pn_message_set_durable(m, o.subject != "created" || o.vip || rng.Percent(90));
    pn_message_set_priority(m, o.priority);
    if (o.subject == "created") pn_message_set_ttl(m, 60000);

    // Message annotations (core 3.2.3): symbol keys.
    pn_data_t* ma = pn_message_annotations(m);
    pn_data_put_map(ma);
    pn_data_enter(ma);
    pn_data_put_symbol(ma, Bytes("x-opt-partition"));
    pn_data_put_int(ma, o.partition);
    pn_data_exit(ma);

    // Properties (core 3.2.4).
    int n = std::snprintf(text, sizeof text, "order-%08" PRIu64, index);
    pn_msgid_t id;
    id.type = PN_STRING;
    id.u.as_bytes = pn_bytes(static_cast<size_t>(n), text);
    pn_message_set_id(m, id);
    pn_message_set_address(m, "orders");
    pn_message_set_subject(m, std::string(o.subject).c_str());
    pn_message_set_content_type(m, "application/json");
    pn_message_set_creation_time(m, o.creation_time_ms);
  }

  // Application properties (core 3.2.5): string keys, simple values.
  pn_data_t* ap = pn_message_properties(m);
  pn_data_put_map(ap);
  pn_data_enter(ap);
  PutString(ap, "region", o.region);
  pn_data_put_string(ap, Bytes("amount"));
  pn_data_put_long(ap, o.amount);
  if (profile_ != Profile::kMinimal) {
    PutString(ap, "color", o.color);
    pn_data_put_string(ap, Bytes("price"));
    pn_data_put_double(ap, o.price);
    std::snprintf(text, sizeof text, "cust-%05u", o.customer);
    PutString(ap, "customer", text);
    pn_data_put_string(ap, Bytes("vip"));
    pn_data_put_bool(ap, o.vip);
    pn_data_put_string(ap, Bytes("tier"));
    pn_data_put_ubyte(ap, o.tier);
    pn_data_put_string(ap, Bytes("ordered_at"));
    pn_data_put_timestamp(ap, o.ordered_at_ms);
  }
  if (profile_ == Profile::kWide) {
    for (int k = 0; k < 24; ++k) {
      std::snprintf(text, sizeof text, "attr_%02d", k);
      pn_data_put_string(ap, Bytes(text));
      switch (k % 8) {
        case 0: {
          char v[32];
          int len = std::snprintf(v, sizeof v, "value-%06u", rng.Below(1000000));
          pn_data_put_string(ap, pn_bytes(static_cast<size_t>(len), v));
          break;
        }
        case 1: pn_data_put_long(ap, static_cast<int64_t>(rng.Next() % 2000000) - 1000000); break;
        case 2: pn_data_put_int(ap, static_cast<int32_t>(rng.Below(100000))); break;
        case 3: pn_data_put_double(ap, static_cast<double>(rng.Below(1000000)) / 1000.0); break;
        case 4: pn_data_put_bool(ap, rng.Percent(50)); break;
        case 5: pn_data_put_timestamp(ap, o.creation_time_ms - rng.Below(86400000)); break;
        case 6: pn_data_put_symbol(ap, Bytes(kSources[rng.Below(kSources.size())])); break;
        default: pn_data_put_short(ap, static_cast<int16_t>(rng.Below(30000))); break;
      }
    }
  }
  pn_data_exit(ap);

  if (profile_ != Profile::kMinimal) {
    // Body (core 3.2.6): one data section holding a JSON document of a fixed size.
    const size_t body_size = profile_ == Profile::kWide ? 800 : 200;
    body_.clear();
    char item[160];
    int len = std::snprintf(item, sizeof item,
                            "{\"order\":\"order-%08" PRIu64
                            "\",\"customer\":\"cust-%05u\",\"currency\":\"%s\","
                            "\"items\":[{\"sku\":\"SKU-%05u\",\"qty\":%u}",
                            index, o.customer, std::string(kCurrencies[rng.Below(kCurrencies.size())]).c_str(),
                            rng.Below(100000), 1 + rng.Below(9));
    body_.append(item, static_cast<size_t>(len));
    // More items while they fit, then a note that pads to exactly body_size bytes.
    while (body_.size() + 40 + 16 < body_size) {
      len = std::snprintf(item, sizeof item, ",{\"sku\":\"SKU-%05u\",\"qty\":%u}", rng.Below(100000), 1 + rng.Below(9));
      body_.append(item, static_cast<size_t>(len));
    }
    body_ += "],\"note\":\"";
    while (body_.size() + 2 < body_size) body_.push_back(static_cast<char>('a' + rng.Below(26)));
    body_ += "\"}";
    pn_message_set_inferred(m, true);  // a binary body is encoded as a data section (Proton's rule)
    pn_data_put_binary(pn_message_body(m), Bytes(body_));
  }

  for (;;) {
    size_t size = buffer_.size();
    int rc = pn_message_encode(m, buffer_.data(), &size);
    if (rc == 0) {
      out->assign(buffer_.data(), size);
      return Status::OK();
    }
    if (rc != PN_OVERFLOW || buffer_.size() > (64u << 20)) {
      return Status::IOError("cannot encode message", "index " + std::to_string(index),
                             pn_error_text(pn_message_error(m)));
    }
    buffer_.resize(buffer_.size() * 2);
  }
}

}  // namespace sift::synthetic
