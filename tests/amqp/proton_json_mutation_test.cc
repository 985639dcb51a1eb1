// Malformed input to the full decode and to typed JSON: seeded random mutations of generated messages
// (bytes) and of their typed JSON (text) go through DecodeToTypedJson, DecodeToProton and
// EncodeTypedJson. None may crash or read outside its input (run under ASan in CI); each either
// succeeds or returns an error that says where ("byte N: ...", "line N: ...").
#include <proton/message.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/proton_message.h"
#include "amqp/typed_json.h"
#include "tests/amqp/proton_test_messages.h"

namespace sift::amqp {
namespace {

constexpr uint64_t kSeed = 20261130;
constexpr uint64_t kCount = 10000;
constexpr size_t kMessages = 2000;  // mutated messages: every 5th generated one
constexpr int kMutationsPerMessage = 12;

std::vector<uint8_t> Mutate(std::vector<uint8_t> bytes, std::mt19937_64& rng) {
  if (bytes.empty()) return {static_cast<uint8_t>(rng())};
  switch (rng() % 4) {
    case 0:  // flip a byte
      bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
      break;
    case 1:  // truncate
      bytes.resize(rng() % bytes.size());
      break;
    case 2:  // insert a byte
      bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(rng() % (bytes.size() + 1)), static_cast<uint8_t>(rng()));
      break;
    default:  // set a size-ish byte to an extreme
      bytes[rng() % bytes.size()] = (rng() % 2) ? 0xff : 0x00;
      break;
  }
  return bytes;
}

TEST(ProtonJsonMutation, MutatedBytesDecodeOrFailWithTheByte) {
  const testing::GeneratedMessages gen = testing::Generate(kSeed, kCount);
  ASSERT_EQ(gen.error, "");
  std::mt19937_64 rng(kSeed);
  pn_message_t* msg = pn_message();
  size_t decoded = 0, refused = 0;
  for (size_t i = 0; i < gen.messages.size(); i += gen.messages.size() / kMessages) {
    for (int m = 0; m < kMutationsPerMessage; ++m) {
      std::vector<uint8_t> bytes = Mutate(gen.messages[i], rng);
      std::string json;
      ConversionStatus s = DecodeToTypedJson(bytes, std::nullopt, &json);
      ConversionStatus p = DecodeToProton(bytes, msg);
      if (s.ok()) {
        ++decoded;
        // What decodes also encodes, and decodes again to the same JSON.
        std::vector<uint8_t> again;
        ConversionStatus e = EncodeTypedJson(json, 1, &again);
        ASSERT_TRUE(e.ok()) << e.error() << "\n" << json;
        std::string json_again;
        ASSERT_TRUE(DecodeToTypedJson(again, std::nullopt, &json_again).ok());
        EXPECT_EQ(json_again, json);
      } else {
        ++refused;
        EXPECT_EQ(s.error().rfind("byte ", 0), 0u) << s.error();
        // Typed JSON refuses non-ASCII symbols (its input could not say them); pn_message_t keeps them.
        if (s.error().find("is not ASCII") == std::string::npos) {
          EXPECT_FALSE(p.ok()) << "full decode accepted what the JSON decode refused: " << s.error();
        }
      }
      if (!p.ok()) {
        EXPECT_EQ(p.error().rfind("byte ", 0), 0u) << p.error();
      }
    }
  }
  pn_message_free(msg);
  std::printf("mutated messages: %zu decoded, %zu refused with an error\n", decoded, refused);
  EXPECT_GT(refused, decoded / 4);
}

TEST(ProtonJsonMutation, MutatedJsonEncodesOrFailsWithTheLine) {
  const testing::GeneratedMessages gen = testing::Generate(kSeed, kCount);
  ASSERT_EQ(gen.error, "");
  std::mt19937_64 rng(kSeed + 1);
  static const char kPieces[] = "{}[]\":,0123456789-.eE truefalsenull\\u00";
  size_t encoded = 0, refused = 0;
  for (size_t i = 0; i < gen.messages.size(); i += gen.messages.size() / kMessages) {
    std::string json;
    ASSERT_TRUE(DecodeToTypedJson(gen.messages[i], i, &json).ok());
    for (int m = 0; m < kMutationsPerMessage; ++m) {
      std::string text = json;
      size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = kPieces[rng() % (sizeof kPieces - 1)]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, kPieces[rng() % (sizeof kPieces - 1)]); break;
      }
      std::vector<uint8_t> bytes;
      ConversionStatus s = EncodeTypedJson(text, 42, &bytes);
      if (s.ok()) {
        ++encoded;
        std::string back;
        ConversionStatus d = DecodeToTypedJson(bytes, std::nullopt, &back);
        EXPECT_TRUE(d.ok()) << d.error() << "\n" << text;
      } else {
        ++refused;
        EXPECT_EQ(s.error().rfind("line 42: ", 0), 0u) << s.error();
        EXPECT_TRUE(bytes.empty());
      }
    }
  }
  std::printf("mutated JSON lines: %zu encoded, %zu refused with an error\n", encoded, refused);
  EXPECT_GT(refused, 0u);
  EXPECT_GT(encoded, 0u);
}

}  // namespace
}  // namespace sift::amqp
