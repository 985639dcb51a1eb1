// DecodeToProton against an oracle that hands each section to Proton's own decoder
// (oracle_proton_message.h), on every message corpus at hand and on random mutations of valid
// messages: the same verdict, and when both succeed equal messages: every getter, the inferred flag,
// and the content and position of every pn_data_t (message-id, correlation-id, delivery and message
// annotations, application properties, body, footer), compared node by node. The one allowed
// difference: the decoder may refuse a message the oracle accepted when the project's own
// Validate() refuses it too (malformed bytes that Proton, reading out of step with a compound's
// size, happened to decode to the end); such messages are counted apart and reported.
#include <proton/codec.h>
#include <proton/message.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/proton_message.h"
#include "amqp/validate.h"
#include "tools/synthetic/synthetic_orders.h"
#include "tests/amqp/proton_test_messages.h"
#include "tests/amqp/oracle_proton_message.h"
#include "tests/amqp/test_messages.h"
#include "tests/support/split_mix.h"

namespace sift::amqp {
namespace {

using Bytes = std::vector<uint8_t>;

using Random = sift::testing::SplitMix;

std::string Describe(pn_data_t* d) {
  pn_data_rewind(d);
  std::string out(1024, '\0');
  size_t size = out.size();
  while (pn_data_format(d, out.data(), &size) == PN_OVERFLOW) {
    out.resize(out.size() * 2);
    size = out.size();
  }
  out.resize(size);
  return out;
}

// Node-by-node equality of the values at both data objects' current level, from their current node.
bool SameNodes(pn_data_t* a, pn_data_t* b, std::string* why) {
  for (;;) {
    const bool na = pn_data_next(a);
    const bool nb = pn_data_next(b);
    if (na != nb) {
      *why = "different number of values";
      return false;
    }
    if (!na) return true;
    const pn_type_t t = pn_data_type(a);
    if (t != pn_data_type(b)) {
      *why = "types differ";
      return false;
    }
    bool same = true;
    auto bytes_equal = [](pn_bytes_t x, pn_bytes_t y) {
      return x.size == y.size && (x.size == 0 || std::memcmp(x.start, y.start, x.size) == 0);
    };
    switch (t) {
      case PN_NULL: break;
      case PN_BOOL: same = pn_data_get_bool(a) == pn_data_get_bool(b); break;
      case PN_UBYTE: same = pn_data_get_ubyte(a) == pn_data_get_ubyte(b); break;
      case PN_BYTE: same = pn_data_get_byte(a) == pn_data_get_byte(b); break;
      case PN_USHORT: same = pn_data_get_ushort(a) == pn_data_get_ushort(b); break;
      case PN_SHORT: same = pn_data_get_short(a) == pn_data_get_short(b); break;
      case PN_UINT: same = pn_data_get_uint(a) == pn_data_get_uint(b); break;
      case PN_INT: same = pn_data_get_int(a) == pn_data_get_int(b); break;
      case PN_CHAR: same = pn_data_get_char(a) == pn_data_get_char(b); break;
      case PN_ULONG: same = pn_data_get_ulong(a) == pn_data_get_ulong(b); break;
      case PN_LONG: same = pn_data_get_long(a) == pn_data_get_long(b); break;
      case PN_TIMESTAMP: same = pn_data_get_timestamp(a) == pn_data_get_timestamp(b); break;
      case PN_FLOAT: {
        float x = pn_data_get_float(a), y = pn_data_get_float(b);
        same = std::memcmp(&x, &y, sizeof x) == 0;
        break;
      }
      case PN_DOUBLE: {
        double x = pn_data_get_double(a), y = pn_data_get_double(b);
        same = std::memcmp(&x, &y, sizeof x) == 0;
        break;
      }
      case PN_DECIMAL32: same = pn_data_get_decimal32(a) == pn_data_get_decimal32(b); break;
      case PN_DECIMAL64: same = pn_data_get_decimal64(a) == pn_data_get_decimal64(b); break;
      case PN_DECIMAL128: {
        pn_decimal128_t x = pn_data_get_decimal128(a), y = pn_data_get_decimal128(b);
        same = std::memcmp(&x, &y, sizeof x) == 0;
        break;
      }
      case PN_UUID: {
        pn_uuid_t x = pn_data_get_uuid(a), y = pn_data_get_uuid(b);
        same = std::memcmp(&x, &y, sizeof x) == 0;
        break;
      }
      case PN_BINARY: same = bytes_equal(pn_data_get_binary(a), pn_data_get_binary(b)); break;
      case PN_STRING: same = bytes_equal(pn_data_get_string(a), pn_data_get_string(b)); break;
      case PN_SYMBOL: same = bytes_equal(pn_data_get_symbol(a), pn_data_get_symbol(b)); break;
      case PN_LIST: same = pn_data_get_list(a) == pn_data_get_list(b); break;
      case PN_MAP: same = pn_data_get_map(a) == pn_data_get_map(b); break;
      case PN_ARRAY:
        same = pn_data_get_array(a) == pn_data_get_array(b) &&
               pn_data_is_array_described(a) == pn_data_is_array_described(b) &&
               pn_data_get_array_type(a) == pn_data_get_array_type(b);
        break;
      case PN_DESCRIBED: break;
      default: *why = "unexpected type"; return false;
    }
    if (!same) {
      *why = "values differ";
      return false;
    }
    if (t == PN_LIST || t == PN_MAP || t == PN_ARRAY || t == PN_DESCRIBED) {
      pn_data_enter(a);
      pn_data_enter(b);
      if (!SameNodes(a, b, why)) return false;
      pn_data_exit(a);
      pn_data_exit(b);
    }
  }
}

// Equal content, and the same position (what a consumer that does not rewind would see).
std::string DataDifference(const char* name, pn_data_t* a, pn_data_t* b) {
  if (pn_data_size(a) != pn_data_size(b)) {
    return std::string(name) + ": sizes " + std::to_string(pn_data_size(a)) + " vs " + std::to_string(pn_data_size(b));
  }
  if (pn_data_point(a) != pn_data_point(b)) return std::string(name) + ": positions differ";
  const pn_handle_t pa = pn_data_point(a);
  const pn_handle_t pb = pn_data_point(b);
  pn_data_rewind(a);
  pn_data_rewind(b);
  std::string why;
  const bool same = SameNodes(a, b, &why);
  std::string text_a = Describe(a), text_b = Describe(b);
  pn_data_restore(a, pa);
  pn_data_restore(b, pb);
  if (!same) return std::string(name) + ": " + why + ": " + text_a + " vs " + text_b;
  if (text_a != text_b) return std::string(name) + ": " + text_a + " vs " + text_b;
  return "";
}

std::string Str(const char* s) { return s == nullptr ? "(null)" : std::string("\"") + s + "\""; }

// Every difference between two decoded messages, "" when there is none.
std::string MessageDifference(pn_message_t* a, pn_message_t* b) {
  std::string out;
  auto check = [&out](bool same, const char* what) {
    if (!same) out += std::string(what) + " differs; ";
  };
  check(pn_message_is_durable(a) == pn_message_is_durable(b), "durable");
  check(pn_message_get_priority(a) == pn_message_get_priority(b), "priority");
  check(pn_message_get_ttl(a) == pn_message_get_ttl(b), "ttl");
  check(pn_message_is_first_acquirer(a) == pn_message_is_first_acquirer(b), "first-acquirer");
  check(pn_message_get_delivery_count(a) == pn_message_get_delivery_count(b), "delivery-count");
  pn_bytes_t ua = pn_message_get_user_id(a), ub = pn_message_get_user_id(b);
  check(ua.size == ub.size && (ua.size == 0 || std::memcmp(ua.start, ub.start, ua.size) == 0), "user-id");
  check(Str(pn_message_get_address(a)) == Str(pn_message_get_address(b)), "to");
  check(Str(pn_message_get_subject(a)) == Str(pn_message_get_subject(b)), "subject");
  check(Str(pn_message_get_reply_to(a)) == Str(pn_message_get_reply_to(b)), "reply-to");
  check(Str(pn_message_get_content_type(a)) == Str(pn_message_get_content_type(b)), "content-type");
  check(Str(pn_message_get_content_encoding(a)) == Str(pn_message_get_content_encoding(b)), "content-encoding");
  check(pn_message_get_expiry_time(a) == pn_message_get_expiry_time(b), "absolute-expiry-time");
  check(pn_message_get_creation_time(a) == pn_message_get_creation_time(b), "creation-time");
  check(Str(pn_message_get_group_id(a)) == Str(pn_message_get_group_id(b)), "group-id");
  check(pn_message_get_group_sequence(a) == pn_message_get_group_sequence(b), "group-sequence");
  check(Str(pn_message_get_reply_to_group_id(a)) == Str(pn_message_get_reply_to_group_id(b)), "reply-to-group-id");
  check(pn_message_is_inferred(a) == pn_message_is_inferred(b), "inferred");
  const pn_msgid_t ia = pn_message_get_id(a), ib = pn_message_get_id(b);
  check(ia.type == ib.type, "message-id type");
  const pn_msgid_t ca = pn_message_get_correlation_id(a), cb = pn_message_get_correlation_id(b);
  check(ca.type == cb.type, "correlation-id type");
  const std::pair<const char*, pn_data_t* (*)(pn_message_t*)> datas[] = {
      {"message-id", pn_message_id},
      {"correlation-id", pn_message_correlation_id},
      {"delivery-annotations", pn_message_instructions},
      {"message-annotations", pn_message_annotations},
      {"application-properties", pn_message_properties},
      {"body", pn_message_body}};
  for (const auto& [name, get] : datas) out += DataDifference(name, get(a), get(b));
  return out;
}

struct Counts {
  size_t messages = 0;
  size_t ok = 0;
  size_t errors = 0;
  size_t same_text = 0;
  size_t mismatches = 0;
  size_t stricter = 0;  // refused, accepted by the reference, malformed according to Validate()
  std::vector<std::string> stricter_examples;
  std::vector<std::string> examples;
};

class Differential {
 public:
  Differential() : new_(pn_message()), old_(pn_message()), new_footer_(pn_data(0)), old_footer_(pn_data(0)) {}
  ~Differential() {
    pn_message_free(new_);
    pn_message_free(old_);
    pn_data_free(new_footer_);
    pn_data_free(old_footer_);
  }

  // Decodes `bytes` with both decoders (with and without a footer) and records any difference.
  void Compare(const std::string& label, std::span<const uint8_t> bytes, Counts* c) {
    ++c->messages;
    for (int with_footer = 0; with_footer < 2; ++with_footer) {
      ConversionStatus got = DecodeToProton(bytes, new_, with_footer ? new_footer_ : nullptr);
      const sift::testing::oracle::Verdict want =
          sift::testing::oracle::OracleDecodeToProton(bytes, old_, with_footer ? old_footer_ : nullptr);
      std::string difference;
      if (!got.ok() && want.ok() && !Validate(bytes).ok()) {
        // Stricter than the reference, on a message the project's validator refuses too: bytes
        // the reference's walk let through because Proton's decoder, reading out of step with a
        // compound's size, happened to end where the section ends (or, for a map of odd count,
        // kept it as a map missing a value). Counted, never silently.
        if (!with_footer) {
          ++c->stricter;
          if (c->stricter_examples.size() < 5) c->stricter_examples.push_back(label + ": " + got.error());
        }
      } else if (got.ok() != want.ok()) {
        difference = "verdicts differ: new " + (got.ok() ? std::string("ok") : got.error()) + ", reference " +
                     (want.ok() ? std::string("ok") : want.error());
      } else if (got.ok()) {
        difference = MessageDifference(new_, old_);
        if (with_footer) difference += DataDifference("footer", new_footer_, old_footer_);
      }
      if (!difference.empty()) {
        ++c->mismatches;
        if (c->examples.size() < 20) {
          std::string hex;
          char buf[4];
          for (size_t i = 0; i < bytes.size() && i < 160; ++i) {
            std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
            hex += buf;
          }
          c->examples.push_back(label + (with_footer ? " (footer)" : "") + ": " + difference + "\n    bytes " + hex);
        }
      }
      if (with_footer) continue;
      if (got.ok()) {
        ++c->ok;
      } else {
        ++c->errors;
        if (!want.ok() && got.error() == want.error()) ++c->same_text;
      }
    }
  }

 private:
  pn_message_t* new_;
  pn_message_t* old_;
  pn_data_t* new_footer_;
  pn_data_t* old_footer_;
};

void Report(const char* corpus, const Counts& c) {
  std::printf(
      "%s: %zu messages, %zu ok, %zu errors (%zu with the reference's exact text), "
      "%zu refused that the reference accepted (all malformed per Validate), %zu mismatches\n",
      corpus, c.messages, c.ok, c.errors, c.same_text, c.stricter, c.mismatches);
  for (const std::string& e : c.stricter_examples) std::printf("  stricter: %s\n", e.c_str());
  for (const std::string& e : c.examples) std::printf("  %s\n", e.c_str());
}

std::vector<Bytes> ValidMessages() {
  std::vector<Bytes> out;
  for (int n = 0; n < 64; ++n) out.push_back(sift::testing::RichMessage(n));
  for (std::string_view profile : {"orders", "wide", "minimal"}) {
    synthetic::SyntheticOrdersOptions options;
    options.profile = std::string(profile);
    std::unique_ptr<synthetic::SyntheticOrders> gen;
    if (!synthetic::SyntheticOrders::Create(options, &gen).ok()) continue;
    std::string bytes;
    for (uint64_t i = 0; i < 32; ++i) {
      if (!gen->Encode(i, &bytes).ok()) continue;
      out.emplace_back(bytes.begin(), bytes.end());
    }
  }
  const amqp::testing::GeneratedMessages gen = amqp::testing::Generate(20261130, 10000);
  for (size_t i = 0; i < gen.messages.size() && i < 2000; ++i) out.push_back(gen.messages[i]);
  return out;
}

TEST(ProtonMessageDifferential, RichMessages) {
  Differential d;
  Counts c;
  for (int n = 0; n < 500; ++n) d.Compare("RichMessage(" + std::to_string(n) + ")", sift::testing::RichMessage(n), &c);
  Report("RichMessage", c);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.ok, c.messages);
}

TEST(ProtonMessageDifferential, GeneratedMessages) {
  const amqp::testing::GeneratedMessages gen = amqp::testing::Generate(20261130, 10000);
  ASSERT_EQ(gen.error, "");
  ASSERT_GE(gen.messages.size(), 10000u);
  Differential d;
  Counts c;
  for (size_t i = 0; i < gen.messages.size(); ++i) {
    d.Compare("generated " + std::to_string(i), gen.messages[i], &c);
  }
  Report("generate_messages.py", c);
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(ProtonMessageDifferential, SyntheticOrders) {
  Differential d;
  for (std::string_view profile : synthetic::SyntheticOrders::Profiles()) {
    synthetic::SyntheticOrdersOptions options;
    options.profile = std::string(profile);
    std::unique_ptr<synthetic::SyntheticOrders> gen;
    ASSERT_TRUE(synthetic::SyntheticOrders::Create(options, &gen).ok());
    Counts c;
    std::string bytes;
    for (uint64_t i = 0; i < 5000; ++i) {
      ASSERT_TRUE(gen->Encode(i, &bytes).ok());
      d.Compare(std::string(profile) + " " + std::to_string(i),
                {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, &c);
    }
    Report(("synthetic " + std::string(profile)).c_str(), c);
    EXPECT_EQ(c.mismatches, 0u);
    EXPECT_EQ(c.ok, c.messages);
  }
}

TEST(ProtonMessageDifferential, FuzzCorpora) {
  Differential d;
  Counts c;
  const std::filesystem::path root = std::filesystem::path(SIFT_SOURCE_DIR) / "tests/fuzz/corpus";
  for (const auto& dir : std::filesystem::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
      if (!file.is_regular_file()) continue;
      const std::string text = amqp::testing::ReadWholeFile(file.path().string());
      const Bytes bytes(text.begin(), text.end());
      const std::string label = dir.path().filename().string() + "/" + file.path().filename().string();
      d.Compare(label, bytes, &c);
      // Every prefix too, and the bytes after a 4-byte record length if they look like one.
      for (size_t n = 0; n < bytes.size() && n < 2048; ++n) {
        d.Compare(label + " prefix " + std::to_string(n), std::span<const uint8_t>(bytes.data(), n), &c);
      }
    }
  }
  Report("fuzz corpora (files and every prefix)", c);
  EXPECT_GT(c.messages, 100u);
  EXPECT_EQ(c.mismatches, 0u);
}

// Random mutations of valid messages: byte flips, interesting bytes, insertions, deletions,
// truncations, spliced sections.
TEST(ProtonMessageDifferential, RandomMutations) {
  const std::vector<Bytes> seeds = ValidMessages();
  ASSERT_GT(seeds.size(), 100u);
  static constexpr uint8_t kInteresting[] = {0x00, 0x40, 0x41, 0x45, 0x53, 0x70, 0x73, 0x75, 0x77, 0x78, 0xa0, 0xa1,
                                             0xa3, 0xb1, 0xc0, 0xc1, 0xd0, 0xd1, 0xe0, 0xf0, 0xff, 0x01, 0x02, 0x7f};
  Random rng{20261201};
  Differential d;
  Counts c;
  constexpr size_t kMutations = 200000;
  for (size_t m = 0; m < kMutations; ++m) {
    Bytes b = seeds[rng.Below(seeds.size())];
    const size_t edits = 1 + rng.Below(3);
    for (size_t e = 0; e < edits && !b.empty(); ++e) {
      const size_t at = rng.Below(b.size());
      switch (rng.Below(7)) {
        case 0: b[at] ^= static_cast<uint8_t>(1u << rng.Below(8)); break;
        case 1: b[at] = kInteresting[rng.Below(sizeof kInteresting)]; break;
        case 2: b[at] = static_cast<uint8_t>(rng.Next()); break;
        case 3: b.insert(b.begin() + static_cast<ptrdiff_t>(at), kInteresting[rng.Below(sizeof kInteresting)]); break;
        case 4: b.erase(b.begin() + static_cast<ptrdiff_t>(at)); break;
        case 5: b.resize(at); break;
        case 6: {  // a slice of another message spliced in
          const Bytes& other = seeds[rng.Below(seeds.size())];
          const size_t from = rng.Below(other.size());
          const size_t n = rng.Below(std::min<size_t>(32, other.size() - from) + 1);
          b.insert(b.begin() + static_cast<ptrdiff_t>(at), other.begin() + static_cast<ptrdiff_t>(from),
                   other.begin() + static_cast<ptrdiff_t>(from + n));
          break;
        }
      }
    }
    d.Compare("mutation " + std::to_string(m), b, &c);
  }
  Report("random mutations", c);
  EXPECT_EQ(c.messages, kMutations);
  EXPECT_EQ(c.mismatches, 0u);
}

}  // namespace
}  // namespace sift::amqp
