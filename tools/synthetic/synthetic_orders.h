// Deterministic, realistic synthetic order messages (for `sift gen`, demos, tests and benchmarks).
//
// Message number `index` of a (profile, seed) pair is a pure function of the three: the same inputs
// give the same bytes on every machine and every run, messages can be generated in any order or in
// parallel, and a test can rebuild the expected message of any offset. Randomness comes from a
// counter-based generator (SplitMix64 of seed and index), never from <random> distributions, whose
// output differs between standard libraries.
//
// Profiles (AMQP 1.0 core part 3 sections, encoded by Proton's C encoder, pn_message_encode):
// - "orders" (default, ~450 bytes): header (durable, priority, ttl), message annotations
//   (x-opt-partition), properties (message-id, to, subject, content-type, creation-time), 8 application properties —
//   region (string), color (string), amount (long 1..1000), price (double 0.50..999.99), customer (string
//   "cust-NNNNN"), vip (boolean, ~5%), tier (ubyte 0..3), ordered_at (timestamp) — and a ~200-byte JSON data body.
// - "wide" (~1.5 KB): the same plus 24 more application properties attr_00..attr_23 of mixed types
//   (string, long, int, double, boolean, timestamp, symbol, short) and an ~800-byte body.
// - "minimal" (~60 bytes): application properties region and amount only, no other section.
// creation-time grows by 10 ms per message (from 2025-11-30T00:00:00Z), so time ranges are ordered.
//
// Thread safety: a SyntheticOrders object is not thread-safe (it reuses one Proton message); use one
// per thread. Objects with equal options produce equal bytes.
//
// This is a support library (sift_synthetic), not part of the engine: `sift gen`, the tests, the
// benchmarks and the embedding example link it; an embedder of sift_engine does not carry it.
#ifndef SIFT_TOOLS_SYNTHETIC_SYNTHETIC_ORDERS_H_
#define SIFT_TOOLS_SYNTHETIC_SYNTHETIC_ORDERS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/status.h"

namespace sift::synthetic {

// Errors are the engine's Status values, so callers handle them like any other sift error.
using Status = Status;

struct SyntheticOrdersOptions {
  // The message shape: "orders", "wide" or "minimal" (see above).
  std::string profile = "orders";
  // Different seeds give different, equally realistic streams.
  uint64_t seed = 1;
  // creation-time of message 0, ms since the Unix epoch; message i is created at this + 10 * i (+ jitter < 10).
  int64_t start_time_ms = 1764460800000;
  // Distinct customers ("cust-NNNNN", drawn uniformly): fewer makes each one common, more makes a
  // customer's orders rare (a selective query). At least 1.
  uint32_t customers = 50000;
};

// The application-property values of one generated message, as generated (for reference checks).
struct SyntheticOrder {
  uint64_t index = 0;
  std::string_view region;
  std::string_view color;
  std::string_view subject;
  int64_t amount = 0;
  double price = 0;
  uint32_t customer = 0;  // the NNNNN of "cust-NNNNN"
  bool vip = false;
  uint8_t tier = 0;
  uint8_t priority = 4;
  int32_t partition = 0;
  int64_t creation_time_ms = 0;
  int64_t ordered_at_ms = 0;
};

class SyntheticOrders {
 public:
  // The known profile names.
  static std::span<const std::string_view> Profiles();

  // Creates a generator; InvalidArgument when the profile is unknown.
  static Status Create(const SyntheticOrdersOptions& options, std::unique_ptr<SyntheticOrders>* out);

  ~SyntheticOrders();
  SyntheticOrders(const SyntheticOrders&) = delete;
  SyntheticOrders& operator=(const SyntheticOrders&) = delete;

  // Replaces *out with the encoded bytes of message number `index` (one AMQP 1.0 message, no record
  // length prefix). Reuses out's capacity.
  Status Encode(uint64_t index, std::string* out);

  // The generated field values of message `index` (no encoding; string views are static).
  SyntheticOrder Describe(uint64_t index) const;

  const SyntheticOrdersOptions& options() const { return options_; }

 private:
  struct ProtonState;
  enum class Profile : uint8_t { kOrders, kWide, kMinimal };
  SyntheticOrders(const SyntheticOrdersOptions& options, Profile profile);

  SyntheticOrdersOptions options_;
  Profile profile_;
  std::unique_ptr<ProtonState> proton_;
  std::vector<char> buffer_;  // encode scratch, grows as needed
  std::string body_;          // body scratch
};

}  // namespace sift::synthetic

#endif  // SIFT_TOOLS_SYNTHETIC_SYNTHETIC_ORDERS_H_
