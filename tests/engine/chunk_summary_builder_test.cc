// The chunk summary holds, for every field, exactly what MessageFieldSource (the reader filters use)
// reads in each message of the chunk. The builder reads the header and properties lists by a walk of
// its own when they are plain lists of plain elements and through the field source otherwise, and it
// repeats a value without decoding it when its encoding is the previous message's: random encodings
// of both sections (list0 / list8 / list32, nulls, every width of every type, values of the wrong type,
// described and compound elements, extra elements, absent sections, runs of identical headers) and of
// application properties (repeated keys, described values) must give the counts, bounds and sets the
// field source's values give. And the bytes of the summaries stay what they were (digests of the
// summaries of the synthetic profiles, of random encodings and of texts in and out of order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/field_types.h"
#include "amqp/message_layout.h"
#include "amqp/message_view.h"
#include "amqp/validate.h"
#include "engine/chunk_summary_builder.h"
#include "engine/chunk_summary_facts.h"
#include "engine/message_field_source.h"
#include "selector/compare.h"
#include "tests/support/split_mix.h"
#include "tools/synthetic/synthetic_orders.h"

namespace sift::engine {
namespace {

using selector::FieldFacts;
using selector::FieldRef;
using selector::Number;
using selector::Section;
using selector::Value;
using selector::ValueClass;

using Random = sift::testing::SplitMix;

void PutBig(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// One encoded element of any kind a header or properties list may meet.
std::string RandomElement(Random& r) {
  static const char* const kTexts[] = {"", "a", "eu", "us", "order-1", "order-22", "\xc3\xa9t\xc3\xa9", "zz"};
  std::string out;
  const std::string text = kTexts[r.Below(8)];
  switch (r.Below(20)) {
    case 0: out = "\x40"; break;                                                   // null
    case 1: out = r.Below(2) ? "\x41" : "\x42"; break;                             // true / false
    case 2: out = std::string("\x56", 1) + static_cast<char>(r.Below(2)); break;   // boolean
    case 3: out = std::string("\x50", 1) + static_cast<char>(r.Below(10)); break;  // ubyte
    case 4:
      out = "\x70";
      PutBig(&out, r.Below(5) * 1000u, 4);
      break;                                                                      // uint
    case 5: out = std::string("\x52", 1) + static_cast<char>(r.Below(5)); break;  // smalluint
    case 6: out = "\x43"; break;                                                  // uint0
    case 7:
      out = "\x80";
      PutBig(&out, r.Below(7), 8);
      break;                                                                      // ulong
    case 8: out = std::string("\x53", 1) + static_cast<char>(r.Below(7)); break;  // smallulong
    case 9:
      out = "\x83";
      PutBig(&out, 1764460800000ull + r.Below(4) * 10, 8);
      break;  // timestamp
    case 10:
      out = "\x98";
      PutBig(&out, r.Below(3), 8);
      PutBig(&out, 7, 8);
      break;                                                                               // uuid
    case 11: out = std::string("\xa1", 1) + static_cast<char>(text.size()) + text; break;  // str8
    case 12:
      out = "\xb1";
      PutBig(&out, text.size(), 4);
      out += text;
      break;                                                                               // str32
    case 13: out = std::string("\xa3", 1) + static_cast<char>(text.size()) + text; break;  // sym8
    case 14: out = std::string("\xa0", 1) + static_cast<char>(text.size()) + text; break;  // vbin8
    case 15:
      out = "\x81";
      PutBig(&out, r.Below(9), 8);
      break;                                                         // long: wrong for every field
    case 16: out = std::string("\x00\x53\x99\xa1\x02id", 7); break;  // described: wrong for every field
    case 17: out = "\x45"; break;                                    // list0: a compound
    case 18: out = std::string("\xc0\x02\x01\x40", 4); break;        // list8 of one null
    default: out = std::string("\x53", 1) + static_cast<char>(r.Below(7)); break;
  }
  return out;
}

// A list of `count` elements as list0 (when empty, sometimes), list8 or list32.
std::string EncodeList(Random& r, const std::vector<std::string>& elements) {
  std::string body;
  for (const std::string& e : elements) body += e;
  std::string out;
  if (elements.empty() && r.Below(2)) return "\x45";
  if (r.Below(3) == 0) {
    out = "\xd0";
    PutBig(&out, body.size() + 4, 4);
    PutBig(&out, elements.size(), 4);
  } else {
    out = "\xc0";
    PutBig(&out, body.size() + 1, 1);
    PutBig(&out, elements.size(), 1);
  }
  return out + body;
}

std::string EncodeSection(uint8_t descriptor, const std::string& value) {
  return std::string("\x00\x53", 2) + static_cast<char>(descriptor) + value;
}

// A well-formed message: header and properties of random encodings (absent sometimes; the header of
// the message before, byte for byte, often), application properties with a repeated key and values
// of every kind, and a data body.
std::string RandomMessage(Random& r, const std::string& previous_header, std::string* header_out) {
  std::string header;
  if (!previous_header.empty() && r.Below(3) == 0) {
    header = previous_header;
  } else if (r.Below(6) != 0) {
    std::vector<std::string> elements(r.Below(8));
    for (std::string& e : elements) e = RandomElement(r);
    header = EncodeSection(0x70, EncodeList(r, elements));
  }
  *header_out = header;
  std::string message = header;
  if (r.Below(6) != 0) {
    std::vector<std::string> elements(r.Below(16));
    for (std::string& e : elements) e = RandomElement(r);
    message += EncodeSection(0x73, EncodeList(r, elements));
  }
  std::string map;
  const uint32_t entries = r.Below(4);
  for (uint32_t i = 0; i < entries; ++i) {
    const std::string key = r.Below(2) ? "k" : "j";  // repeated keys: the first entry counts
    map += std::string(r.Below(4) == 0 ? "\xa3" : "\xa1", 1) + static_cast<char>(key.size()) + key;
    map += RandomElement(r);
  }
  std::string props = "\xc1";
  PutBig(&props, map.size() + 1, 1);
  PutBig(&props, entries * 2, 1);
  message += EncodeSection(0x74, props + map);
  message += EncodeSection(0x75, std::string("\xa0\x02hi", 4));
  return message;
}

std::vector<FieldRef> Fields() {
  std::vector<FieldRef> refs;
  for (int i = 0; i < amqp::kHeaderFieldCount; ++i) {
    refs.push_back({Section::kHeader, std::string(amqp::HeaderFieldName(static_cast<amqp::HeaderField>(i))), {}});
  }
  for (int i = 0; i < amqp::kPropertiesFieldCount; ++i) {
    refs.push_back(
        {Section::kProperties, std::string(amqp::PropertiesFieldName(static_cast<amqp::PropertiesField>(i))), {}});
  }
  refs.push_back({Section::kApplicationProperties, "k", {}});
  refs.push_back({Section::kApplicationProperties, "j", {}});
  return refs;
}

// What the summary must say of one field: the facts of the values the field source read.
struct Expected {
  FieldFacts facts;
  std::vector<std::string> texts;

  void Add(const Value& v) {
    ++facts.present;
    switch (selector::ClassOf(v.type)) {
      case ValueClass::kAbsent: ++facts.nulls; break;
      case ValueClass::kText: {
        ++facts.texts;
        char buffer[4];
        texts.emplace_back(selector::TextOf(v, buffer));
        break;
      }
      case ValueClass::kNumber: {
        Number n;
        if (!selector::ToNumber(v, &n)) {
          ++facts.others;
          break;
        }
        ++facts.numbers;
        if (n.kind == Number::Kind::kDouble && std::isnan(n.d)) {
          facts.has_nan = true;
        } else if (!facts.has_number_range) {
          facts.number_min = facts.number_max = n;
          facts.has_number_range = true;
        } else {
          if (selector::CompareNumbers(n, facts.number_min) < 0) facts.number_min = n;
          if (selector::CompareNumbers(n, facts.number_max) > 0) facts.number_max = n;
        }
        break;
      }
      case ValueClass::kBoolean:
        ++facts.booleans;
        (v.boolean ? facts.seen_true : facts.seen_false) = true;
        break;
      default: ++facts.others; break;
    }
  }
};

TEST(ChunkSummaryBuilderTest, EveryEncodingIsSummarizedAsTheFieldSourceReadsIt) {
  const std::vector<FieldRef> fields = Fields();
  Random r(20261202);
  ChunkSummaryBuilder builder;
  ChunkSummaryFacts facts(fields);
  MessageFieldSource source(fields);
  amqp::MessageView view;
  std::string summary;
  size_t fields_checked = 0;
  for (int chunk = 0; chunk < 2000; ++chunk) {
    const uint32_t count = 1 + r.Below(12);
    std::vector<std::string> messages(count);
    std::string header;
    for (std::string& m : messages) m = RandomMessage(r, header, &header);
    std::vector<Expected> expected(fields.size());
    builder.Reset();
    for (const std::string& m : messages) {
      builder.Add(m);
      view.Reset(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.data()), m.size()));
      source.Reset(view);
      for (uint32_t slot = 0; slot < fields.size(); ++slot) {
        const Value v = source.Get(slot);
        if (v.present()) expected[slot].Add(v);
      }
      ASSERT_FALSE(source.read_malformed()) << "chunk " << chunk;
    }
    builder.Finish(&summary);
    ASSERT_FALSE(summary.empty()) << "chunk " << chunk << ": well-formed messages get a summary";
    ASSERT_TRUE(facts.Reset(summary));
    for (uint32_t slot = 0; slot < fields.size(); ++slot) {
      const std::string what = "chunk " + std::to_string(chunk) + ", field " + fields[slot].name;
      const FieldFacts& want = expected[slot].facts;
      FieldFacts got;
      ASSERT_TRUE(facts.Field(slot, &got)) << what;
      EXPECT_EQ(got.messages, count) << what;
      EXPECT_EQ(got.present, want.present) << what;
      EXPECT_EQ(got.nulls, want.nulls) << what;
      EXPECT_EQ(got.texts, want.texts) << what;
      EXPECT_EQ(got.numbers, want.numbers) << what;
      EXPECT_EQ(got.booleans, want.booleans) << what;
      EXPECT_EQ(got.others, want.others) << what;
      EXPECT_EQ(got.seen_true, want.seen_true) << what;
      EXPECT_EQ(got.seen_false, want.seen_false) << what;
      EXPECT_EQ(got.has_number_range, want.has_number_range) << what;
      if (want.has_number_range && got.has_number_range) {
        EXPECT_EQ(selector::CompareNumbers(got.number_min, want.number_min), 0) << what;
        EXPECT_EQ(selector::CompareNumbers(got.number_max, want.number_max), 0) << what;
      }
      if (want.texts > 0) {
        const auto [lo, hi] = std::minmax_element(expected[slot].texts.begin(), expected[slot].texts.end());
        EXPECT_EQ(got.text_min, *lo) << what;
        EXPECT_EQ(got.text_max, *hi) << what;
        for (const std::string& t : expected[slot].texts) EXPECT_TRUE(facts.MayHoldText(slot, t)) << what << ": " << t;
        // Texts that only grew along the chunk (a constant, the one text of a message) are told by their
        // bounds and get no set; any others get one, which rules out a text never written.
        if (!std::is_sorted(expected[slot].texts.begin(), expected[slot].texts.end())) {
          EXPECT_FALSE(facts.MayHoldText(slot, "never written")) << what;
        }
      }
      ++fields_checked;
    }
  }
  EXPECT_EQ(fields_checked, 2000 * fields.size());
}

// Texts that only grow along a chunk (sequential ids) get no set: their bounds answer for them, and a
// Bloom filter of one bit pattern per message would be most of the summary. Texts in any other order
// keep theirs.
TEST(ChunkSummaryBuilderTest, AscendingTextsAreSummarizedByTheirBoundsAlone) {
  const std::vector<FieldRef> fields = {{Section::kApplicationProperties, "id", {}}};
  auto summarize = [&](bool shuffled) {
    ChunkSummaryBuilder builder;
    builder.Reset();
    std::vector<std::string> messages;  // the builder may look at earlier messages until Finish()
    messages.reserve(1000);
    for (int i = 0; i < 1000; ++i) {
      const int k = shuffled ? (i * 7919) % 1000 : i;
      char id[16];
      std::snprintf(id, sizeof id, "id-%06d", k);
      std::string props = std::string("\xa1\x02id\xa1", 5) + static_cast<char>(std::strlen(id)) + id;
      messages.push_back(std::string("\x00\x53\x74\xc1", 4) + static_cast<char>(props.size() + 1) + '\x02' + props);
      builder.Add(messages.back());
    }
    std::string summary;
    builder.Finish(&summary);
    return summary;
  };
  const std::string ascending = summarize(false);
  const std::string shuffled = summarize(true);
  EXPECT_LT(ascending.size(), 200u);  // the header fields' defaults, and the id's counts and bounds
  EXPECT_GT(shuffled.size(), 1800u);  // and 1,000 distinct texts at 14.4 bits each
  for (const std::string* summary : {&ascending, &shuffled}) {
    ChunkSummaryFacts facts(fields);
    ASSERT_TRUE(facts.Reset(*summary));
    FieldFacts f;
    ASSERT_TRUE(facts.Field(0, &f));
    EXPECT_EQ(f.texts, 1000u);
    EXPECT_EQ(f.text_min, "id-000000");
    EXPECT_EQ(f.text_max, "id-000999");
    EXPECT_TRUE(facts.MayHoldText(0, "id-000500"));
  }
  ChunkSummaryFacts facts(fields);
  ASSERT_TRUE(facts.Reset(ascending));
  EXPECT_TRUE(facts.MayHoldText(0, "id-000500x"));  // no set: anything within the bounds may be there
}

// The summary's bytes are part of the store format: the same messages must give the same bytes from one
// version of the builder to the next, whatever it does to be faster. Digests of the summaries of the
// synthetic profiles and of random encodings and text orders, recorded from the builder as it was.
// A change here that is meant (a new summary version, or another choice the format allows, such as which
// fields get a set of their texts) updates the digests with the format.

// FNV-1a of every summary, each after its length.
class Digest {
 public:
  void Add(std::string_view summary) {
    const uint64_t size = summary.size();
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(size >> (8 * i)));
    for (const char c : summary) Byte(static_cast<uint8_t>(c));
  }
  uint64_t value() const { return h_; }

 private:
  void Byte(uint8_t b) { h_ = (h_ ^ b) * 0x100000001b3ull; }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

// The digest of the summaries of `messages` cut into chunks of 1 to `max_chunk` messages.
uint64_t SummaryDigest(const std::vector<std::string>& messages, Random& r, size_t max_chunk) {
  ChunkSummaryBuilder builder;
  Digest digest;
  std::string summary;
  for (size_t begin = 0; begin < messages.size();) {
    const size_t end = std::min(messages.size(), begin + 1 + r.Below(max_chunk));
    builder.Reset();
    for (size_t i = begin; i < end; ++i) builder.Add(messages[i]);
    builder.Finish(&summary);
    digest.Add(summary);
    begin = end;
  }
  return digest.value();
}

std::vector<std::string> Synthetic(const char* profile, int count) {
  synthetic::SyntheticOrdersOptions options;
  options.profile = profile;
  std::unique_ptr<synthetic::SyntheticOrders> gen;
  EXPECT_TRUE(synthetic::SyntheticOrders::Create(options, &gen).ok());
  std::vector<std::string> messages(count);
  for (int i = 0; i < count; ++i) EXPECT_TRUE(gen->Encode(static_cast<uint64_t>(i), &messages[i]).ok());
  return messages;
}

std::string EncodeText(Random& r, std::string_view text) {
  std::string out;
  if (text.size() < 256 && r.Below(4) != 0) {
    out = std::string(r.Below(5) == 0 ? "\xa3" : "\xa1", 1) + static_cast<char>(text.size());
  } else {
    out = r.Below(5) == 0 ? "\xb3" : "\xb1";
    PutBig(&out, text.size(), 4);
  }
  return out.append(text);
}

// Application properties "id" (texts in runs that grow, with breaks, repeats and long or 0xff texts;
// sometimes a char, a number, null or absent) and "n" (numbers of every kind, NaN, booleans).
std::vector<std::string> TextOrderMessages(Random& r, int count) {
  std::vector<std::string> messages;
  uint64_t counter = 0;
  std::string prefix;
  int mode = 0;
  for (int i = 0; i < count; ++i) {
    if (r.Below(500) == 0) {
      mode = static_cast<int>(r.Below(4));
      counter = r.Below(1000);
      prefix = std::string(r.Below(3) == 0 ? 130 + r.Below(40) : r.Below(8), static_cast<char>('a' + r.Below(3)));
    }
    std::string map;
    uint32_t entries = 0;
    auto put = [&map](const char* code, uint64_t value, int bytes) {
      map += code;
      PutBig(&map, value, bytes);
    };
    if (r.Below(20) != 0) {
      map += EncodeText(r, "id");
      ++entries;
      char digits[32];
      std::string text;
      switch (r.Below(400) == 0 ? 9 : mode) {
        case 0:
        case 1:
          if (r.Below(1500) == 0) counter -= std::min<uint64_t>(counter, r.Below(50));  // a break in the order
          if (r.Below(10) != 0) ++counter;                                              // else a repeat
          std::snprintf(digits, sizeof digits, "%08llu", static_cast<unsigned long long>(counter));
          text = (mode == 1 ? prefix : std::string("id-")) + digits;
          map += EncodeText(r, text);
          break;
        case 2: {
          static const char* const kTexts[] = {"", "a", "b", "\xff", "\xff\xff", "zz", "\xc3\xa9"};
          text = r.Below(6) == 0 ? std::string(129 + r.Below(3), '\xff') : std::string(kTexts[r.Below(7)]);
          map += EncodeText(r, text);
          break;
        }
        case 3:
          std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(r.Next() % 100000));
          map += EncodeText(r, prefix + digits);
          break;
        default:
          switch (r.Below(4)) {
            case 0: put("\x73", 0x41 + r.Below(3), 4); break;                                   // char
            case 1: map += "\x40"; break;                                                       // null
            case 2: map += std::string("\x54", 1) + static_cast<char>(r.Below(5)); break;       // smallint
            default: map += std::string("\xa0\x01", 2) + static_cast<char>(r.Below(3)); break;  // binary
          }
          break;
      }
    }
    if (r.Below(3) != 0) {
      map += EncodeText(r, "n");
      ++entries;
      switch (r.Below(9)) {
        case 0: put("\x81", r.Next() % 1000 - 500, 8); break;  // long
        case 1: put("\x80", r.Next(), 8); break;               // ulong
        case 2: put("\x82", 0x7ff8000000000000ull, 8); break;  // NaN
        case 3: {
          const double d = static_cast<double>(r.Below(2000)) / 8 - 100;
          uint64_t bits;
          std::memcpy(&bits, &d, 8);
          put("\x82", bits, 8);
          break;
        }
        case 4: map += std::string("\x51", 1) + static_cast<char>(r.Below(256)); break;  // byte
        case 5: put("\x72", 0x3f800000u + r.Below(1u << 20), 4); break;                  // float
        case 6: map += r.Below(2) ? "\x41" : "\x42"; break;                              // boolean
        case 7: map += std::string("\x55", 1) + static_cast<char>(r.Below(256)); break;  // smalllong
        default: map += "\x44"; break;                                                   // ulong0
      }
    }
    std::string props = "\xd1";
    PutBig(&props, map.size() + 4, 4);
    PutBig(&props, entries * 2, 4);
    messages.push_back(EncodeSection(0x74, props + map) + EncodeSection(0x75, std::string("\xa0\x02hi", 4)));
  }
  return messages;
}

// A Bloom filter's probes are (hash + k * step) mod 2^64 mod bits; the builder steps from one to the
// next without a division, and must land where a reader's division does when the sum wraps past 2^64.
// The two texts below were searched for: their hashes are within 9 steps of 2^64, so their later
// probes wrap. Every text of the chunk, wrapped or not, must be found in its set.
TEST(ChunkSummaryBuilderTest, BloomProbesThatWrapPast64BitsAreFound) {
  std::vector<std::string> texts = {"wrap-38294076", "wrap-210189486"};
  for (int i = 0; i < 60; ++i) texts.push_back("text-" + std::to_string((i * 37) % 60));
  std::vector<std::string> messages;  // a summarizer views them until Finish()
  for (const std::string& t : texts) {
    std::string map = std::string("\xa1\x01k", 3) + static_cast<char>('\xa1') + static_cast<char>(t.size()) + t;
    std::string props = "\xc1";
    PutBig(&props, map.size() + 1, 1);
    PutBig(&props, 2, 1);
    messages.push_back(EncodeSection(0x74, props + map) + EncodeSection(0x75, std::string("\xa0\x02hi", 4)));
  }
  ChunkSummaryBuilder builder;
  builder.Reset();
  for (const std::string& m : messages) builder.Add(m);
  std::string summary;
  builder.Finish(&summary);
  const std::vector<FieldRef> fields = Fields();
  const auto slot = static_cast<uint32_t>(amqp::kHeaderFieldCount + amqp::kPropertiesFieldCount);
  ASSERT_EQ(fields[slot].name, "k");
  ChunkSummaryFacts facts(fields);
  ASSERT_TRUE(facts.Reset(summary));
  FieldFacts f;
  ASSERT_TRUE(facts.Field(slot, &f));
  ASSERT_EQ(f.texts, texts.size());
  for (const std::string& t : texts) EXPECT_TRUE(facts.MayHoldText(slot, t)) << t;
  EXPECT_FALSE(facts.MayHoldText(slot, "wrap-1") && facts.MayHoldText(slot, "text-999") &&
               facts.MayHoldText(slot, "absent"))
      << "a set that holds everything tells nothing";
}

TEST(ChunkSummaryBuilderTest, SummaryBytesAreThoseOfTheFormat) {
  Random r(20261203);
  EXPECT_EQ(SummaryDigest(Synthetic("orders", 20000), r, 3000), 5671531729107380469u) << "orders";
  EXPECT_EQ(SummaryDigest(Synthetic("wide", 6000), r, 1000), 13922851834238876180u) << "wide";
  EXPECT_EQ(SummaryDigest(Synthetic("minimal", 3000), r, 1000), 9530965506941998101u) << "minimal";
  std::vector<std::string> random(20000);
  std::string header;
  for (std::string& m : random) m = RandomMessage(r, header, &header);
  EXPECT_EQ(SummaryDigest(random, r, 12), 10575773288113317711u) << "random encodings";
  EXPECT_EQ(SummaryDigest(random, r, 400), 15112070922603490237u) << "random encodings, long chunks";
  EXPECT_EQ(SummaryDigest(TextOrderMessages(r, 60000), r, 800), 529645452566431364u) << "text orders";
}

// An element validation accepts, of any kind.
std::string WellFormedElement(Random& r) {
  for (;;) {
    std::string e = RandomElement(r);
    if (amqp::ValidateValue(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(e.data()), e.size())).ok()) {
      return e;
    }
  }
}

// The application-properties section of a map32 of `entries` entries, encoded in `map` (keys and
// values in turn).
std::string ApplicationPropertiesSection(const std::string& map, uint32_t entries) {
  std::string props = "\xd1";
  PutBig(&props, map.size() + 4, 4);
  PutBig(&props, entries * 2, 4);
  return EncodeSection(0x74, props + map);
}

const std::string kDataBody = EncodeSection(0x75, std::string("\xa0\x02hi", 4));

// The header and properties of a message validation accepts, of random encodings: each element of its
// field's type or null (a described null sometimes, which the builder leaves to the field source), and
// extra properties elements of any kind.
std::string WellFormedHeaderAndProperties(Random& r, const std::string& previous_header, std::string* header_out) {
  auto field_element = [&](bool header, int i) {
    if (r.Below(12) == 0) return std::string("\x00\x53\x99\x40", 4);  // a described null
    for (;;) {
      std::string e = WellFormedElement(r);
      const uint8_t code = static_cast<uint8_t>(e[0]);
      const bool ok = header ? amqp::HeaderFieldCodeOk(i, code) : amqp::PropertiesFieldCodeOk(i, code);
      if (code == 0x40 || ok) return e;
    }
  };
  std::string header;
  if (!previous_header.empty() && r.Below(3) == 0) {
    header = previous_header;
  } else if (r.Below(6) != 0) {
    std::vector<std::string> elements(r.Below(6));
    for (size_t i = 0; i < elements.size(); ++i) elements[i] = field_element(true, static_cast<int>(i));
    header = EncodeSection(0x70, EncodeList(r, elements));
  }
  *header_out = header;
  std::string message = header;
  if (r.Below(6) != 0) {
    std::vector<std::string> elements(r.Below(16));
    for (size_t i = 0; i < elements.size(); ++i) {
      elements[i] = i < amqp::kPropertiesFieldCount ? field_element(false, static_cast<int>(i)) : WellFormedElement(r);
    }
    message += EncodeSection(0x73, EncodeList(r, elements));
  }
  return message;
}

// A message validation accepts, of random encodings: WellFormedHeaderAndProperties, application
// properties with a repeated key and values of every kind, and now and then more of them than
// validation lays out (MessageLayout).
std::string RandomWellFormedMessage(Random& r, const std::string& previous_header, std::string* header_out) {
  std::string message = WellFormedHeaderAndProperties(r, previous_header, header_out);
  std::string map;
  const uint32_t entries = r.Below(20) == 0 ? amqp::kLaidOutPropertyEntries + r.Below(3) : r.Below(5);
  for (uint32_t i = 0; i < entries; ++i) {
    const std::string key = r.Below(2) ? "k" : (r.Below(2) ? "j" : "k" + std::to_string(i));
    map += std::string("\xa1", 1) + static_cast<char>(key.size()) + key;
    map += WellFormedElement(r);
  }
  if (r.Below(8) != 0) message += ApplicationPropertiesSection(map, entries);
  return message + kDataBody;
}

// AddChecked() is strict validation and Add() in one: it accepts exactly what amqp::Validate accepts,
// and a chunk of well-formed messages gets the bytes Add() gives it.
TEST(ChunkSummaryBuilderTest, AddCheckedIsValidationThenAdd) {
  Random r(20261204);
  std::vector<std::vector<std::string>> corpora = {Synthetic("orders", 6000), Synthetic("wide", 2000),
                                                   Synthetic("minimal", 2000)};
  std::string header;
  corpora.emplace_back(30000);
  for (std::string& m : corpora.back()) m = RandomWellFormedMessage(r, header, &header);
  corpora.emplace_back(20000);
  for (std::string& m : corpora.back()) m = RandomMessage(r, header, &header);  // many malformed
  ChunkSummaryBuilder plain, checked;
  std::string expected, got;
  size_t well_formed_chunks = 0, malformed_messages = 0;
  for (size_t c = 0; c < corpora.size(); ++c) {
    const std::vector<std::string>& messages = corpora[c];
    for (size_t begin = 0; begin < messages.size();) {
      const size_t end = std::min(messages.size(), begin + 1 + r.Below(c < 3 ? 3000 : 12));
      plain.Reset();
      checked.Reset();
      bool all = true;
      for (size_t i = begin; i < end; ++i) {
        const std::string& m = messages[i];
        const bool ok =
            amqp::Validate(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.data()), m.size())).ok();
        plain.Add(m);
        ASSERT_EQ(checked.AddChecked(m), ok) << "corpus " << c << ", message " << i;
        all = all && ok;
        malformed_messages += ok ? 0 : 1;
      }
      plain.Finish(&expected);
      checked.Finish(&got);
      if (all) {
        ++well_formed_chunks;
        ASSERT_EQ(got, expected) << "corpus " << c << ", messages " << begin << ".." << end;
      } else {
        EXPECT_TRUE(got.empty()) << "corpus " << c << ", messages " << begin << ".." << end;
      }
      begin = end;
    }
    if (c < 4) {
      EXPECT_EQ(malformed_messages, 0u) << "corpus " << c << " is well formed";
    }
  }
  EXPECT_GT(well_formed_chunks, 3000u);
  EXPECT_GT(malformed_messages, 1000u);
}

// A well-formed message whose application properties take `keys` keys out of `pool` ("key-0" ..), each
// with a random value, behind a random header and properties.
std::string KeyedMessage(Random& r, uint32_t pool, uint32_t keys) {
  std::string header;
  std::string message = WellFormedHeaderAndProperties(r, std::string(), &header);
  std::string map;
  for (uint32_t i = 0; i < keys; ++i) {
    const std::string key = "key-" + std::to_string(r.Below(pool));
    map += std::string("\xa1", 1) + static_cast<char>(key.size()) + key;
    map += WellFormedElement(r);
  }
  return message + ApplicationPropertiesSection(map, keys) + kDataBody;
}

// A builder keeps its fields from one chunk to the next: a chunk must still get the bytes a fresh
// builder gives it, whatever fields the chunks before had (fields that come and go, more than the cap
// of fields in a chunk, more fields over the chunks than the builder keeps).
TEST(ChunkSummaryBuilderTest, AReusedBuilderSummarizesEachChunkAsAFreshOneDoes) {
  Random r(20261205);
  ChunkSummaryBuilder reused, reused_checked;
  std::string got, got_checked, expected;
  size_t capped = 0;
  for (int chunk = 0; chunk < 1500; ++chunk) {
    const uint32_t pool = 1 + r.Below(chunk % 3 == 0 ? 1000 : 12);
    const size_t count = 1 + r.Below(chunk % 5 == 0 ? 40 : 6);
    std::vector<std::string> messages(count);
    for (std::string& m : messages) m = KeyedMessage(r, pool, r.Below(12));
    ChunkSummaryBuilder fresh;
    reused.Reset();
    reused_checked.Reset();
    for (const std::string& m : messages) {
      fresh.Add(m);
      reused.Add(m);
      ASSERT_TRUE(reused_checked.AddChecked(m)) << "chunk " << chunk;
    }
    fresh.Finish(&expected);
    reused.Finish(&got);
    reused_checked.Finish(&got_checked);
    ASSERT_FALSE(expected.empty()) << "chunk " << chunk;
    ASSERT_EQ(got, expected) << "chunk " << chunk;
    ASSERT_EQ(got_checked, expected) << "chunk " << chunk;
    capped += (expected[2] & 1) == 0;  // the flags after the version and the count (< 128: one byte)
  }
  EXPECT_GT(capped, 20u) << "chunks past the cap of fields";
}

}  // namespace
}  // namespace sift::engine
