// Round trips over the >= 10,000 seeded messages of generate_messages.py (three independent encoders):
// typed JSON (bytes -> JSON -> bytes) and the full decode into pn_message_t, checked against Proton.
#include <proton/codec.h>
#include <proton/message.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/proton_message.h"
#include "amqp/proton_sections.h"
#include "amqp/typed_json.h"
#include "tests/amqp/proton_test_messages.h"

namespace sift::amqp {
namespace {

constexpr uint64_t kSeed = 20261130;
constexpr uint64_t kCount = 10000;

const testing::GeneratedMessages& Messages() {
  static const testing::GeneratedMessages messages = testing::Generate(kSeed, kCount);
  return messages;
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  char buf[4];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}

std::vector<uint8_t> ProtonEncode(pn_message_t* msg) {
  std::vector<uint8_t> out(1 << 16);
  while (true) {
    size_t size = out.size();
    int rc = pn_message_encode(msg, reinterpret_cast<char*>(out.data()), &size);
    if (rc == PN_OVERFLOW) {
      out.resize(out.size() * 2);
      continue;
    }
    EXPECT_EQ(rc, 0);
    out.resize(size);
    return out;
  }
}

TEST(GeneratedJsonRoundTrip, EveryMessageRoundTripsThroughTypedJson) {
  const auto& gen = Messages();
  ASSERT_EQ(gen.error, "");
  size_t exact = 0, stable = 0;
  for (size_t i = 0; i < gen.messages.size(); ++i) {
    const std::vector<uint8_t>& bytes = gen.messages[i];
    std::string json;
    ConversionStatus s = DecodeToTypedJson(bytes, i, &json);
    ASSERT_TRUE(s.ok()) << "record " << i << " (" << gen.kinds[i] << "): " << s.error() << "\n" << Hex(bytes);
    std::vector<uint8_t> again;
    s = EncodeTypedJson(json, i + 1, &again);
    ASSERT_TRUE(s.ok()) << "record " << i << ": " << s.error() << "\n" << json;
    if (gen.kinds[i] == 'm') {
      // Proton's pn_message_encode made these: the bytes come back exactly.
      ASSERT_EQ(Hex(again), Hex(bytes)) << "record " << i << "\n" << json;
      ++exact;
    }
    std::string json_again;
    s = DecodeToTypedJson(again, i, &json_again);
    ASSERT_TRUE(s.ok()) << "record " << i << ": " << s.error();
    ASSERT_EQ(json_again, json) << "record " << i << " (" << gen.kinds[i] << ")";
    ++stable;
  }
  std::printf(
      "typed JSON round trip: %zu messages, %zu byte-exact (pn_message_encode), %zu "
      "JSON-stable\n",
      gen.messages.size(), exact, stable);
  EXPECT_GE(gen.messages.size(), 10000u);
  EXPECT_GT(exact, 3000u);
}

TEST(GeneratedJsonRoundTrip, FullDecodeMatchesProtonMessageDecode) {
  const auto& gen = Messages();
  ASSERT_EQ(gen.error, "");
  pn_message_t* mine = pn_message();
  pn_message_t* reference = pn_message();
  size_t compared = 0, multiple_body = 0, nul_text = 0, decoded = 0;
  for (size_t i = 0; i < gen.messages.size(); ++i) {
    const std::vector<uint8_t>& bytes = gen.messages[i];
    ConversionStatus s = DecodeToProton(bytes, mine);
    ProtonSections sections;
    std::string error;
    ASSERT_TRUE(sections.Split(bytes, &error)) << "record " << i << ": " << error;
    size_t body_sections = 0;
    for (const ProtonSection& section : sections.sections()) {
      body_sections += section.kind == ProtonSectionKind::kData || section.kind == ProtonSectionKind::kAmqpSequence;
    }
    if (body_sections > 1) {
      // pn_message_t holds one body section: the decode refuses rather than dropping data.
      ASSERT_FALSE(s.ok()) << "record " << i;
      EXPECT_TRUE(s.error().find("second body section") != std::string::npos ||
                  s.error().find("holds a NUL character") != std::string::npos)
          << s.error();
      ++multiple_body;
      continue;
    }
    if (!s.ok() && gen.kinds[i] != 'm' && s.error().find("holds a NUL character") != std::string::npos) {
      // pn_message_t's setters take C strings; the decode refuses rather than truncating.
      ++nul_text;
      continue;
    }
    ASSERT_TRUE(s.ok()) << "record " << i << " (" << gen.kinds[i] << "): " << s.error();
    ++decoded;
    if (gen.kinds[i] != 'm') continue;
    // pn_message_decode gets every field of these right (ulong descriptors, no footer): the two
    // decodes must encode to the same bytes, and to the original ones.
    pn_message_clear(reference);  // pn_message_decode does not clear delivery annotations
    ASSERT_EQ(pn_message_decode(reference, reinterpret_cast<const char*>(bytes.data()), bytes.size()), 0);
    std::vector<uint8_t> a = ProtonEncode(mine), b = ProtonEncode(reference);
    ASSERT_EQ(Hex(a), Hex(b)) << "record " << i;
    ASSERT_EQ(Hex(a), Hex(bytes)) << "record " << i;
    ++compared;
  }
  std::printf(
      "full decode: %zu messages decoded, %zu compared with pn_message_decode, refused: %zu "
      "with several body sections, %zu with a NUL in a text property\n",
      decoded, compared, multiple_body, nul_text);
  EXPECT_EQ(decoded + multiple_body + nul_text, gen.messages.size());
  EXPECT_GT(compared, 3000u);
  pn_message_free(mine);
  pn_message_free(reference);
}

// The generator is seeded: the same seed writes the same bytes, another seed other bytes.
TEST(GeneratedMessages, SameSeedSameBytes) {
  std::string dir = std::string(SIFT_BINARY_DIR) + "/tests/generated";
  std::filesystem::create_directories(dir);
  auto run = [&](int seed, const std::string& name) {
    std::string out = dir + "/determinism_" + name + ".amqp";
    std::string command = std::string(SIFT_PYTHON) + " " + SIFT_SOURCE_DIR +
                          "/tests/amqp/generate_messages.py --seed " + std::to_string(seed) + " --count 200 --out " +
                          out;
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return testing::ReadWholeFile(out);
  };
  std::string a = run(7, "a"), b = run(7, "b"), c = run(8, "c");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

}  // namespace
}  // namespace sift::amqp
