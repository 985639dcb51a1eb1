// Malformed input: every truncation of a set of valid messages and 100,000 seeded random mutations go
// through MessageView and Validate. Nothing may crash or read outside the buffer (the asan preset
// checks the latter), every invalid message gets an error naming an offset inside the message and a
// reason, and a message Validate accepts must read through MessageView without any error.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "amqp/cursor.h"
#include "amqp/message_view.h"
#include "amqp/validate.h"
#include "tests/amqp/exercise_view.h"
#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using testing::B;
using testing::ByteVector;
using testing::Cat;
using testing::List8;
using testing::Map8;
using testing::Section;
using testing::Str8;
using testing::Sym8;

// Valid messages covering every section, descriptor form and compound encoding.
std::vector<ByteVector> ValidMessages() {
  std::vector<ByteVector> out;
  for (int n = 0; n < 8; ++n) out.push_back(testing::RichMessage(n));
  // Symbol descriptors, list32/map32, footer, multiple data sections.
  out.push_back(Cat({B({0x00}), Sym8("amqp:header:list"), B({0xd0, 0, 0, 0, 7, 0, 0, 0, 2, 0x41, 0x50, 0x07}),
                     B({0x00}), Sym8("amqp:application-properties:map"), B({0xd1, 0, 0, 0, 16, 0, 0, 0, 2}), Str8("k"),
                     B({0x80, 0, 0, 0, 0, 0, 0, 0, 1}), Section(0x75, B({0xa0, 0x02, 'a', 'b'})),
                     Section(0x75, B({0xb0, 0, 0, 0, 1, 'c'})),
                     Section(0x78, Map8(4, Cat({Sym8("x-hash"), Str8("abc"), B({0x53, 0x09, 0x41})})))}));
  // amqp-sequence bodies with arrays, including a described element constructor.
  out.push_back(Cat(
      {Section(0x72, Map8(2, Cat({B({0x53, 0x01}), B({0xe0, 0x08, 0x02, 0x00, 0xa3, 0x01, 'd', 0x50, 0x07, 0x09})}))),
       Section(0x76, List8(2, B({0x43, 0x44}))),
       Section(0x76, List8(1, B({0xf0, 0, 0, 0, 7, 0, 0, 0, 2, 0x56, 1, 0})))}));
  // amqp-value with nested compounds and every fixed-width type.
  out.push_back(
      Section(0x77, List8(6, Cat({B({0x00, 0x53, 0x01, 0x45}), Map8(2, Cat({Str8("k"), List8(1, B({0x40}))})),
                                  B({0x73, 0, 0, 0, 'a'}), B({0x94, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                                  B({0x98, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
                                  B({0x83, 0, 0, 1, 0, 0, 0, 0, 0})}))));
  return out;
}

// The checks every input gets; returns whether Validate accepted it.
bool CheckOne(const ByteVector& bytes) {
  MessageView view(bytes);
  testing::ExerciseView(view);
  const DecodeError e = Validate(bytes);
  if (e.ok()) {
    // Accepted messages read cleanly, every accessor.
    MessageView fresh(bytes);
    testing::ExerciseView(fresh);
    EXPECT_TRUE(fresh.error().ok()) << fresh.error().Message();
    return true;
  }
  EXPECT_LE(e.offset, bytes.size());
  const std::string message = e.Message();
  EXPECT_EQ(message.rfind("byte " + std::to_string(e.offset) + ": ", 0), 0u) << message;
  EXPECT_GT(e.Reason().size(), 8u) << message;
  EXPECT_EQ(message.find("unknown error"), std::string::npos);
  if (!view.error().ok()) {
    EXPECT_LE(view.error().offset, bytes.size());
  }
  return false;
}

TEST(MalformedTest, ValidSetIsValid) {
  for (const auto& m : ValidMessages()) EXPECT_TRUE(Validate(m).ok()) << Validate(m).Message();
}

TEST(MalformedTest, EveryTruncation) {
  int invalid = 0;
  for (const auto& m : ValidMessages()) {
    // Cutting exactly between two sections leaves a valid (shorter) message; anywhere else not.
    std::vector<size_t> boundaries;
    Cursor c(m);
    EncodedValue v;
    while (c.Next(&v)) boundaries.push_back(v.offset() + v.raw().size());
    for (size_t cut = 0; cut < m.size(); ++cut) {
      ByteVector prefix(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(cut));
      const bool at_boundary = cut > 0 && std::find(boundaries.begin(), boundaries.end(), cut) != boundaries.end();
      const bool valid = CheckOne(prefix);
      EXPECT_EQ(valid, at_boundary) << "cut at " << cut << " of " << m.size();
      invalid += !valid;
    }
  }
  EXPECT_GT(invalid, 1000);
}

TEST(MalformedTest, HundredThousandSeededMutations) {
  const std::vector<ByteVector> valid = ValidMessages();
  std::mt19937_64 rng(20261130);
  static const uint8_t kInteresting[] = {0x00, 0x01, 0x40, 0x45, 0x53, 0x56, 0x70, 0x7f, 0x80,
                                         0xa1, 0xb1, 0xc0, 0xc1, 0xd0, 0xe0, 0xf0, 0xfe, 0xff};
  int invalid = 0;
  constexpr int kMutations = 100000;
  for (int i = 0; i < kMutations; ++i) {
    ByteVector m = valid[rng() % valid.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !m.empty(); ++k) {
      const size_t at = rng() % m.size();
      switch (rng() % 5) {
        case 0: m[at] = static_cast<uint8_t>(rng()); break;
        case 1: m[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 2: m[at] = kInteresting[rng() % sizeof kInteresting]; break;
        case 3: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
        case 4: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), kInteresting[rng() % sizeof kInteresting]); break;
      }
    }
    invalid += !CheckOne(m);
    if (::testing::Test::HasFailure()) FAIL() << "mutation " << i;
  }
  // Most mutations break something; a few land on harmless bytes (string contents).
  EXPECT_GT(invalid, kMutations / 2);
  RecordProperty("invalid", invalid);
}

}  // namespace
}  // namespace sift::amqp
