// End-to-end tests of the commands that need no store: gen, check, explain, filter, cat, and the
// usage errors every command shares (exit codes and error lines, README.md "The `sift` command").
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/synthetic/synthetic_orders.h"
#include "tests/tools/cli_runner.h"

namespace sift::testing {
namespace {

constexpr uint64_t kMessages = 2000;

class CliOfflineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScratchDir>(::testing::UnitTest::GetInstance()->current_test_info()->name());
    CliResult gen = RunSift("gen --count " + std::to_string(kMessages) + " --seed 7 -o orders.amqp", dir_->path());
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }

  // Offsets of the generated messages for which `predicate` holds, from the generator's own values.
  template <typename Predicate>
  std::vector<std::string> Expected(Predicate predicate) {
    std::unique_ptr<synthetic::SyntheticOrders> orders;
    synthetic::SyntheticOrdersOptions options;
    options.seed = 7;
    EXPECT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
    std::vector<std::string> offsets;
    for (uint64_t i = 0; i < kMessages; ++i) {
      if (predicate(orders->Describe(i))) offsets.push_back(std::to_string(i));
    }
    return offsets;
  }

  CliResult Sift(const std::string& args) { return RunSift(args, dir_->path()); }
  std::string Path(const std::string& name) { return *dir_ / name; }

  std::unique_ptr<ScratchDir> dir_;
};

// Splits a record file into its messages.
std::vector<std::string> Records(const std::string& bytes) {
  std::vector<std::string> records;
  size_t p = 0;
  while (p + 4 <= bytes.size()) {
    uint32_t n = (uint32_t{static_cast<uint8_t>(bytes[p])} << 24) |
                 (uint32_t{static_cast<uint8_t>(bytes[p + 1])} << 16) |
                 (uint32_t{static_cast<uint8_t>(bytes[p + 2])} << 8) | uint32_t{static_cast<uint8_t>(bytes[p + 3])};
    records.push_back(bytes.substr(p + 4, n));
    p += 4 + n;
  }
  EXPECT_EQ(p, bytes.size());
  return records;
}

// ---- gen ----

TEST_F(CliOfflineTest, GenIsDeterministicPerSeed) {
  ASSERT_EQ(Sift("gen -n 100 --seed 7 -o a.amqp").exit_code, 0);
  ASSERT_EQ(Sift("gen -n 100 --seed 7 -o b.amqp").exit_code, 0);
  ASSERT_EQ(Sift("gen -n 100 --seed 8 -o c.amqp").exit_code, 0);
  EXPECT_EQ(ReadFile(Path("a.amqp")), ReadFile(Path("b.amqp")));
  EXPECT_NE(ReadFile(Path("a.amqp")), ReadFile(Path("c.amqp")));
  EXPECT_EQ(Records(ReadFile(Path("a.amqp"))).size(), 100u);
  // The same prefix as the 2000-message file of the fixture, and --first generates a later slice.
  EXPECT_EQ(ReadFile(Path("orders.amqp")).substr(0, ReadFile(Path("a.amqp")).size()), ReadFile(Path("a.amqp")));
  ASSERT_EQ(Sift("gen -n 50 --first 50 --seed 7 -o d.amqp").exit_code, 0);
  EXPECT_EQ(ReadFile(Path("a.amqp")).substr(ReadFile(Path("a.amqp")).size() - ReadFile(Path("d.amqp")).size()),
            ReadFile(Path("d.amqp")));
}

TEST_F(CliOfflineTest, GenOnEveryCoreWritesTheSameBytesAsOnOne) {
  // Batches of 8,192 messages encoded on several threads are written in index order: several batches,
  // a partial last one, and a slice that starts inside a batch.
  ASSERT_EQ(Sift("gen -n 30000 --first 77 --seed 5 --threads 1 -o one.amqp").exit_code, 0);
  ASSERT_EQ(Sift("gen -n 30000 --first 77 --seed 5 --threads 4 -o four.amqp").exit_code, 0);
  ASSERT_EQ(Sift("gen -n 30000 --first 77 --seed 5 -o every.amqp").exit_code, 0);
  const std::string one = ReadFile(Path("one.amqp"));
  EXPECT_EQ(Records(one).size(), 30000u);
  EXPECT_EQ(ReadFile(Path("four.amqp")), one);
  EXPECT_EQ(ReadFile(Path("every.amqp")), one);
  CliResult r = Sift("gen -n 10 --threads 0 -o x.amqp");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(CliOfflineTest, GenWritesStdoutAndProfiles) {
  CliResult r = Sift("gen -n 10 --profile wide > wide.amqp && " + Quote(SiftBinary()) +
                     " gen -n 10 --profile minimal > min.amqp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> wide = Records(ReadFile(Path("wide.amqp")));
  std::vector<std::string> minimal = Records(ReadFile(Path("min.amqp")));
  ASSERT_EQ(wide.size(), 10u);
  ASSERT_EQ(minimal.size(), 10u);
  EXPECT_GT(wide[0].size(), 1000u);
  EXPECT_LT(minimal[0].size(), 100u);
  std::vector<std::string> orders = Records(ReadFile(Path("orders.amqp")));
  EXPECT_GT(orders[0].size(), 350u);
  EXPECT_LT(orders[0].size(), 550u);
}

TEST_F(CliOfflineTest, GenUnknownProfileIsUsageError) {
  CliResult r = Sift("gen -n 1 --profile bogus -o x.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sift: unknown profile: bogus: expected orders, wide or minimal\n");
}

// ---- usage errors ----

TEST_F(CliOfflineTest, UnknownFlagIsExit2WithHouseErrorLine) {
  CliResult r = Sift("filter --bogus orders.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  ASSERT_EQ(r.ErrLines().size(), 1u) << r.err;
  EXPECT_TRUE(r.err.rfind("sift: usage: sift filter: ", 0) == 0) << r.err;
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

TEST_F(CliOfflineTest, UnknownCommandAndMissingCommandAreExit2) {
  CliResult r = Sift("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift: ", 0) == 0) << r.err;
  r = Sift("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift: ", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, BadOptionValueIsExit2) {
  CliResult r = Sift("filter -f yaml orders.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift filter: ", 0) == 0) << r.err;
  r = Sift("gen -n lots");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift gen: ", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, HelpGoesToStdoutWithExit0) {
  CliResult r = Sift("replay --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--on-corruption"), std::string::npos);
  EXPECT_NE(r.out.find("--sql"), std::string::npos);
}

TEST_F(CliOfflineTest, ServeIsACommandOfSift) {
  CliResult r = Sift("serve --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--listen"), std::string::npos) << r.out;
  r = Sift("serve --bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift serve: ", 0) == 0) << r.err;
  EXPECT_NE(Sift("serve --help").out.find("--retention-interval"), std::string::npos);
}

TEST_F(CliOfflineTest, ServeSizeAndDurationFlagsAreReadStrictly) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--retention-max-age 7", "--retention-max-age: bad duration '7': a duration needs a unit"},
      {"--retention-max-bytes 5MB", "--retention-max-bytes: bad size '5MB': unit 'MB' is ambiguous"},
      {"--retention-interval 1.5s", "--retention-interval: bad duration '1.5s'"},
      {"--max-chunk-bytes 2G", "--max-chunk-bytes: bad size '2G': must be from 1 to 1GiB"},
  };
  for (const auto& [flags, error] : cases) {
    CliResult r = Sift("serve --listen 127.0.0.1:0 --store never " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_TRUE(r.out.empty()) << flags << ": " << r.out;
    EXPECT_TRUE(r.err.rfind("sift: usage: sift serve: " + error, 0) == 0) << flags << ": " << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(Path("never")));
}

// ---- check and explain ----

TEST_F(CliOfflineTest, CheckAcceptsValidFilters) {
  CliResult r = Sift(
      "check -e \"region = 'eu-west' AND amount > 500\" --jms \"JMSPriority > 4\" "
      "--properties '{\"subject\": \"&p:pa\"}' --application-properties '{\"vip\": true}'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(r.err.empty());
}

TEST_F(CliOfflineTest, CheckNeedsAFilter) {
  CliResult r = Sift("check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: usage: sift check: ", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, BadSelectorShowsCaretUnderTheColumn) {
  // '#' starts no token; it is byte 23 of the expression, column 24.
  const std::string expression = "region = 'eu-west' AND # amount > 5";
  CliResult r = Sift("check -e " + Quote(expression));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  std::vector<std::string> lines = r.ErrLines();
  ASSERT_EQ(lines.size(), 3u) << r.err;
  EXPECT_TRUE(lines[0].rfind("sift: bad selector: --sql column 24: ", 0) == 0) << lines[0];
  EXPECT_EQ(lines[1], "  " + expression);
  EXPECT_EQ(lines[2], std::string(2 + 23, ' ') + "^");
}

TEST_F(CliOfflineTest, BadSelectorCaretCountsCodePoints) {
  // "é" is two bytes but one column: '#' is byte 18, column 18.
  const std::string expression = "color = 'bl\xC3\xA9' OR #";
  CliResult r = Sift("check -e " + Quote(expression));
  EXPECT_EQ(r.exit_code, 2);
  std::vector<std::string> lines = r.ErrLines();
  ASSERT_EQ(lines.size(), 3u) << r.err;
  EXPECT_TRUE(lines[0].rfind("sift: bad selector: --sql column 18: ", 0) == 0) << lines[0];
  EXPECT_EQ(lines[2], std::string(2 + 17, ' ') + "^");
}

TEST_F(CliOfflineTest, BadSelectorAtTheEndPointsPastTheText) {
  const std::string expression = "amount >";
  CliResult r = Sift("explain -e " + Quote(expression));
  EXPECT_EQ(r.exit_code, 2);
  std::vector<std::string> lines = r.ErrLines();
  ASSERT_EQ(lines.size(), 3u) << r.err;
  EXPECT_TRUE(lines[0].rfind("sift: bad selector: --sql column 9: ", 0) == 0) << lines[0];
  EXPECT_EQ(lines[2], std::string(2 + 8, ' ') + "^");
}

TEST_F(CliOfflineTest, BadSelectorNamesWhichFlagOfSeveral) {
  CliResult r = Sift("check -e 'amount > 1' -e 'amount >> 2'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: bad selector: --sql #2 column ", 0) == 0) << r.err;
  r = Sift("check --jms 'JMSPriority >'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: bad selector: --jms column 14: ", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, BadPropertyFilterJsonIsExit2) {
  CliResult r = Sift("check --properties '{\"subject\": }'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: bad filter: --properties column ", 0) == 0) << r.err;
  r = Sift("check --application-properties '[1, 2]'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: bad filter: --application-properties: ", 0) == 0) << r.err;
  r = Sift("check --application-properties '{\"tier\": {\"type\": \"ubyte\", \"value\": 300}}'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
  r = Sift("check --application-properties '{\"region\": \"&x:eu\"}'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.err.rfind("sift: bad filter: --application-properties", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, ExplainPrintsThePlanOnStdout) {
  CliResult r = Sift("explain -e \"region = 'eu-west' AND amount > 500\" --properties '{\"subject\": \"paid\"}'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("region"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("amount"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("subject"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty());
}

// ---- filter ----

TEST_F(CliOfflineTest, FilterOffsetsMatchTheGeneratedValues) {
  CliResult r = Sift("filter -e \"region = 'eu-west' AND amount > 500\" orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(),
            Expected([](const synthetic::SyntheticOrder& o) { return o.region == "eu-west" && o.amount > 500; }));
  EXPECT_TRUE(r.err.empty());
}

TEST_F(CliOfflineTest, FilterReadsStdin) {
  CliResult r = RunSift("filter -e \"color = 'purple'\" -f count -", dir_->path(), Path("orders.amqp"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      std::to_string(Expected([](const synthetic::SyntheticOrder& o) { return o.color == "purple"; }).size()) + "\n");
  r = RunShell("cat orders.amqp | " + Quote(SiftBinary()) + " filter -e \"color = 'purple'\" -f count", dir_->path());
  EXPECT_EQ(
      r.out,
      std::to_string(Expected([](const synthetic::SyntheticOrder& o) { return o.color == "purple"; }).size()) + "\n");
}

TEST_F(CliOfflineTest, FilterWithoutFiltersMatchesEverything) {
  CliResult r = Sift("filter -f count orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(kMessages) + "\n");
}

TEST_F(CliOfflineTest, FilterNothingMatchedIsExit1) {
  CliResult r = Sift("filter -e \"region = 'mars'\" orders.amqp");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  r = Sift("filter -e \"region = 'mars'\" -f count orders.amqp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "0\n");
}

TEST_F(CliOfflineTest, FiltersAreAnded) {
  CliResult r = Sift(
      "filter -e \"amount > 900\" --jms \"JMSType = 'paid'\" "
      "--application-properties '{\"region\": \"&p:eu-\"}' --properties '{\"to\": \"orders\"}' orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), Expected([](const synthetic::SyntheticOrder& o) {
              return o.amount > 900 && o.subject == "paid" && o.region.substr(0, 3) == "eu-";
            }));
}

TEST_F(CliOfflineTest, PropertyFilterModifiers) {
  CliResult r = Sift("filter --application-properties '{\"region\": \"&s:-west\", \"vip\": true}' orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), Expected([](const synthetic::SyntheticOrder& o) {
              return o.vip && (o.region == "eu-west" || o.region == "us-west");
            }));
  r = Sift("filter --application-properties '{\"tier\": {\"type\": \"ubyte\", \"value\": 2}}' -f count orders.amqp");
  EXPECT_EQ(r.out,
            std::to_string(Expected([](const synthetic::SyntheticOrder& o) { return o.tier == 2; }).size()) + "\n");
  r = Sift("filter --properties '{\"message_id\": \"order-00000042\"}' orders.amqp");
  EXPECT_EQ(r.out, "42\n") << r.err;
}

TEST_F(CliOfflineTest, FilterCountLimitsMatches) {
  CliResult r = Sift("filter -e \"vip\" -c 3 orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> all = Expected([](const synthetic::SyntheticOrder& o) { return o.vip; });
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(r.OutLines(), std::vector<std::string>(all.begin(), all.begin() + 3));
}

TEST_F(CliOfflineTest, FilterJsonOutputIsTypedJsonWithOffsets) {
  CliResult r = Sift("filter -e \"vip AND tier = 3\" -f json orders.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected = Expected([](const synthetic::SyntheticOrder& o) { return o.vip && o.tier == 3; });
  std::vector<std::string> lines = r.OutLines();
  ASSERT_EQ(lines.size(), expected.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(std::to_string(j["offset"].get<uint64_t>()), expected[i]);
    EXPECT_EQ(j["application_properties"]["vip"], true);
    EXPECT_EQ(j["application_properties"]["tier"]["type"], "ubyte");
    EXPECT_EQ(j["application_properties"]["tier"]["value"], 3);
    EXPECT_EQ(j["properties"]["message_id"], "order-" + std::string(8 - expected[i].size(), '0') + expected[i]);
  }
}

TEST_F(CliOfflineTest, FilterAmqpOutputIsARecordFileOfTheMatches) {
  CliResult r = Sift("filter -e \"color = 'red' AND price < 100\" -f amqp orders.amqp > red.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> all = Records(ReadFile(Path("orders.amqp")));
  std::vector<std::string> matched = Records(ReadFile(Path("red.amqp")));
  std::vector<std::string> expected_offsets =
      Expected([](const synthetic::SyntheticOrder& o) { return o.color == "red" && o.price < 100; });
  ASSERT_EQ(matched.size(), expected_offsets.size());
  for (size_t i = 0; i < matched.size(); ++i) EXPECT_EQ(matched[i], all[std::stoul(expected_offsets[i])]);
  // The output is itself a valid input: filtering it again keeps every record.
  r = Sift("filter -f count red.amqp");
  EXPECT_EQ(r.out, std::to_string(matched.size()) + "\n");
}

TEST_F(CliOfflineTest, FilterJsonLinesInput) {
  ASSERT_EQ(Sift("cat orders.amqp > orders.jsonl").exit_code, 0);
  CliResult r = Sift("filter --format json -e \"region = 'us-east' AND NOT vip\" orders.jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines(), Expected([](const synthetic::SyntheticOrder& o) { return o.region == "us-east" && !o.vip; }));
}

TEST_F(CliOfflineTest, FilterStatsLineOnStderr) {
  CliResult r = Sift("filter -e \"amount = 1\" -f count --stats orders.amqp");
  EXPECT_LE(r.exit_code, 1) << r.err;
  EXPECT_TRUE(IsStatsLine(r.err, 2000, /*chunks=*/false)) << r.err;
}

TEST_F(CliOfflineTest, MalformedRecordNamesRecordAndByte) {
  // Record 0 valid, record 1 a described list header claiming more bytes than it has.
  std::vector<std::string> records = Records(ReadFile(Path("orders.amqp")));
  std::string bytes = ReadFile(Path("orders.amqp")).substr(0, 4 + records[0].size());
  const std::string bad("\x00\x53\x70\xc0\x20\x01\x41", 7);  // header list8: size 0x20 but 2 bytes left
  bytes += std::string("\x00\x00\x00\x07", 4) + bad;
  WriteFile(Path("bad.amqp"), bytes);
  CliResult r = Sift("filter bad.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "0\n");  // the good record before it was written out
  ASSERT_EQ(r.ErrLines().size(), 1u) << r.err;
  const size_t record_start = 4 + records[0].size();
  EXPECT_TRUE(r.err.rfind("sift: malformed record: bad.amqp: record 1 at byte ", 0) == 0) << r.err;
  // The byte is inside record 1 (after its 4-byte length).
  const std::string marker = "record 1 at byte ";
  const size_t at = r.err.find(marker);
  ASSERT_NE(at, std::string::npos);
  const size_t byte = std::stoul(r.err.substr(at + marker.size()));
  EXPECT_GE(byte, record_start + 4);
  EXPECT_LT(byte, record_start + 4 + bad.size());
}

TEST_F(CliOfflineTest, TruncatedRecordNamesRecordAndByte) {
  std::string bytes = ReadFile(Path("orders.amqp"));
  std::vector<std::string> records = Records(bytes);
  const size_t third = 4 + records[0].size() + 4 + records[1].size();
  WriteFile(Path("cut.amqp"), bytes.substr(0, third + 10));
  CliResult r = Sift("filter -f count cut.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: malformed record: cut.amqp: record 2 at byte " + std::to_string(third) + ": ", 0) == 0)
      << r.err;
}

// A hand-made message: a header whose boolean field holds 2 (malformed: a boolean is 0 or 1),
// application properties color = `color_value` (given encoded) and amount = 7, a data body.
std::string OddMessage(bool bad_header, const std::string& color_value) {
  std::string header = bad_header ? std::string("\x00\x53\x70\xc0\x03\x01\x56\x02", 8)
                                  : std::string("\x00\x53\x70\xc0\x03\x01\x56\x01", 8);
  std::string entries = std::string("\xa1\x05", 2) + "color" + color_value + std::string("\xa1\x06", 2) + "amount" +
                        std::string("\x55\x07", 2);
  std::string props = std::string("\x00\x53\x74\xc1", 4) + static_cast<char>(entries.size() + 1) + '\x04' + entries;
  return header + props + std::string("\x00\x53\x75\xa0\x01x", 6);
}

std::string Record(const std::string& message) {
  const uint32_t n = static_cast<uint32_t>(message.size());
  return std::string{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                     static_cast<char>(n)} +
         message;
}

const std::string kRed = std::string("\xa1\x03", 2) + "red";

TEST_F(CliOfflineTest, FilterValidatesLazilyAndStrictValidatesEveryRecord) {
  // Record 1's header is malformed, but `amount > 100` reads only application-properties: lazily the
  // record is rejected on its (well-formed) amount; --strict refuses the file at record 1.
  const std::string bytes =
      Record(OddMessage(false, kRed)) + Record(OddMessage(true, kRed)) + Record(OddMessage(false, kRed));
  WriteFile(Path("odd.amqp"), bytes);
  CliResult lazy = Sift("filter --sql 'amount > 100' -f count odd.amqp");
  EXPECT_EQ(lazy.exit_code, 1) << lazy.err;
  EXPECT_EQ(lazy.out, "0\n");
  CliResult strict = Sift("filter --strict --sql 'amount > 100' -f count odd.amqp");
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_EQ(strict.out, "");  // no count is printed as if it were the answer
  const size_t second = 4 + OddMessage(false, kRed).size();
  EXPECT_EQ(strict.err, "sift: malformed record: odd.amqp: record 1 at byte " + std::to_string(second + 4 + 7) +
                            ": boolean byte 0x02 is neither 0x00 nor 0x01 (byte 7 of the message)\n");
}

TEST_F(CliOfflineTest, FilterValidatesEveryRecordItDelivers) {
  // The same malformed header, in a record the filter matches: it is validated before it is written.
  const std::string bytes = Record(OddMessage(false, kRed)) + Record(OddMessage(true, kRed));
  WriteFile(Path("odd.amqp"), bytes);
  for (const char* format : {"count", "offsets", "json", "amqp"}) {
    CliResult r = Sift(std::string("filter --sql \"color = 'red'\" -f ") + format + " odd.amqp > out.bin");
    EXPECT_EQ(r.exit_code, 2) << format;
    const std::string out = ReadFile(Path("out.bin"));
    EXPECT_EQ(out.find('1'), std::string::npos) << format << ": record 1 was written: " << out;
    if (std::string(format) == "count") {
      EXPECT_EQ(out, "") << "no count after an error";
    }
    EXPECT_TRUE(r.err.rfind("sift: malformed record: odd.amqp: record 1 at byte ", 0) == 0) << r.err;
  }
}

TEST_F(CliOfflineTest, FilterValidatesARecordWhoseReadFieldsAreMalformed) {
  // Record 1's color value claims 64 bytes of the 4 left: reading amount must pass it, so the filter's
  // "no" would rest on broken bytes; the record is validated and refused.
  const std::string bad_color = std::string("\xa1\x40", 2) + "red";
  const std::string bytes = Record(OddMessage(false, kRed)) + Record(OddMessage(false, bad_color));
  WriteFile(Path("odd.amqp"), bytes);
  CliResult r = Sift("filter --sql 'amount > 100' -f count odd.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.rfind("sift: malformed record: odd.amqp: record 1 at byte ", 0) == 0) << r.err;
  // A filter that never reads the broken section does not look at it (the prefilter finds no 'zzz').
  CliResult unread = Sift("filter --sql \"region = 'zzz'\" -f count odd.amqp");
  EXPECT_EQ(unread.exit_code, 1) << unread.err;
}

TEST_F(CliOfflineTest, JsonOutputOnWorkerThreadsKeepsOrderAndStopsAtTheFirstFailure) {
  // Typed JSON is written in batches on worker threads: every line comes out in record order, and a
  // record the JSON writer refuses (a header of six fields, which validation lets pass) stops the run
  // after exactly the lines before it.
  std::vector<std::string> records = Records(ReadFile(Path("orders.amqp")));
  CliResult all = Sift("filter -f json orders.amqp");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  std::vector<std::string> lines = CliResult::Lines(all.out);
  ASSERT_EQ(lines.size(), kMessages);
  for (uint64_t i = 0; i < kMessages; ++i) {
    ASSERT_EQ(nlohmann::json::parse(lines[i])["offset"], i);
  }
  const std::string six_fields =
      std::string("\x00\x53\x70\xc0\x07\x06\x40\x40\x40\x40\x40\x40", 12) + std::string("\x00\x53\x75\xa0\x01x", 6);
  std::string bytes;
  for (size_t i = 0; i < records.size(); ++i) bytes += Record(i == 1500 ? six_fields : records[i]);
  WriteFile(Path("six.amqp"), bytes);
  CliResult r = Sift("filter -f json six.amqp");
  EXPECT_EQ(r.exit_code, 2);
  std::vector<std::string> before = CliResult::Lines(r.out);
  ASSERT_EQ(before.size(), 1500u);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], lines[i]);
  EXPECT_TRUE(r.err.rfind("sift: cannot decode message: offset 1500: ", 0) == 0) << r.err;
  EXPECT_NE(r.err.find("6 fields"), std::string::npos) << r.err;
}

TEST_F(CliOfflineTest, FilterInParallelRangesAgreesWithOneThread) {
  // --threads 2 filters ranges of records on two threads from the first record; --threads 1 on one.
  // Same output, same counts, same first error, in every output format, with -c and --strict.
  for (const std::string args : {"--sql \"color = 'red'\"", "--sql 'amount > 500 AND vip = true' -f json",
                                 "--sql \"region = 'eu-west'\" -f count", "-e 'amount < 300' -f amqp",
                                 "-e 'amount < 300' -c 7", "--strict -e 'amount > 990' -f count"}) {
    CliResult one = Sift("filter --threads 1 " + args + " orders.amqp > one.out");
    CliResult two = Sift("filter --threads 2 " + args + " orders.amqp > two.out");
    EXPECT_EQ(one.exit_code, two.exit_code) << args;
    EXPECT_EQ(ReadFile(Path("one.out")), ReadFile(Path("two.out"))) << args;
    EXPECT_FALSE(ReadFile(Path("one.out")).empty()) << args;
  }
  // A malformed record in the middle: both stop there, with the matches before it written.
  std::vector<std::string> records = Records(ReadFile(Path("orders.amqp")));
  std::string bytes;
  for (size_t i = 0; i < records.size(); ++i) bytes += Record(i == 1234 ? OddMessage(true, kRed) : records[i]);
  WriteFile(Path("odd.amqp"), bytes);
  for (const char* flags : {"--sql \"color = 'red'\"", "--strict -e 'amount > 990'"}) {
    CliResult one = Sift(std::string("filter --threads 1 ") + flags + " odd.amqp");
    CliResult two = Sift(std::string("filter --threads 2 ") + flags + " odd.amqp");
    EXPECT_EQ(one.exit_code, 2) << flags;
    EXPECT_EQ(two.exit_code, 2) << flags;
    EXPECT_EQ(one.out, two.out) << flags;
    EXPECT_EQ(one.err, two.err) << flags;
    EXPECT_TRUE(two.err.rfind("sift: malformed record: odd.amqp: record 1234 at byte ", 0) == 0) << two.err;
  }
  EXPECT_EQ(Sift("filter --threads 65 orders.amqp").exit_code, 2);
}

// A large file of cheap records is cut in two at a guessed record boundary and filtered on two threads
// (the default, --threads 0, after a first stretch read on one); --threads 1 reads it all on one. The
// output and every error must be the same, whatever the guess.
class CliSplitFilterTest : public CliOfflineTest {
 protected:
  static constexpr uint64_t kLarge = 50000;  // past the first stretch of 32768, with megabytes left

  void GenerateLarge() {
    CliResult gen = Sift("gen --count " + std::to_string(kLarge) + " --seed 7 -o large.amqp");
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
  }

  // Runs `args` on `file` with the default threads and with --threads 1; both must agree.
  void ExpectSameAsOneThread(const std::string& args, const std::string& file) {
    CliResult split = Sift("filter " + args + " " + file + " > split.out");
    CliResult one = Sift("filter --threads 1 " + args + " " + file + " > one.out");
    EXPECT_EQ(split.exit_code, one.exit_code) << args;
    EXPECT_EQ(split.err, one.err) << args;
    EXPECT_EQ(ReadFile(Path("split.out")), ReadFile(Path("one.out"))) << args;
  }
};

TEST_F(CliSplitFilterTest, AgreesWithOneThread) {
  GenerateLarge();
  for (const std::string args : {"--sql \"color = 'zzz'\" -f count", "--sql \"color = 'red'\"",
                                 "--sql \"color = 'red'\" -f json", "--sql \"region = 'eu-west'\" -f amqp",
                                 "--sql \"color = 'red'\" -c 6000", "--strict --sql \"color = 'zzz'\" -f count"}) {
    ExpectSameAsOneThread(args, "large.amqp");
  }
  CliResult red = Sift("filter --sql \"color = 'red'\" -f count large.amqp");
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  synthetic::SyntheticOrdersOptions options;
  options.seed = 7;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
  uint64_t expected = 0;
  for (uint64_t i = 0; i < kLarge; ++i) expected += orders->Describe(i).color == "red";
  EXPECT_EQ(red.out, std::to_string(expected) + "\n");
}

TEST_F(CliSplitFilterTest, AMalformedRecordAfterTheCutIsReportedAsByOneThread) {
  GenerateLarge();
  std::vector<std::string> records = Records(ReadFile(Path("large.amqp")));
  std::string bytes;
  for (size_t i = 0; i < records.size(); ++i) bytes += Record(i == 46000 ? OddMessage(true, kRed) : records[i]);
  WriteFile(Path("odd.amqp"), bytes);
  for (const std::string args :
       {"--sql \"color = 'red'\"", "--sql \"color = 'red'\" -f count", "--strict --sql \"color = 'zzz'\" -f count"}) {
    ExpectSameAsOneThread(args, "odd.amqp");
    CliResult r = Sift("filter " + args + " odd.amqp");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.err.rfind("sift: malformed record: odd.amqp: record 46000 at byte ", 0) == 0) << r.err;
  }
  // Truncated in the second half: the same error line as one thread's.
  WriteFile(Path("cut.amqp"), ReadFile(Path("large.amqp")).substr(0, ReadFile(Path("large.amqp")).size() - 100));
  ExpectSameAsOneThread("--sql \"color = 'zzz'\" -f count", "cut.amqp");
}

TEST_F(CliSplitFilterTest, RecordsThatHoldRecordLookalikesDoNotMisleadTheCut) {
  // The second half of the file is records whose bodies are long runs of records, each a message with
  // color = 'red': a guessed cut lands inside one of them. Were it trusted, those lookalikes would be
  // delivered as matches; the real records that hold them are blue.
  std::vector<std::string> records = Records(ReadFile(Path("orders.amqp")));
  std::string lookalikes;
  while (lookalikes.size() < (64u << 10)) lookalikes += Record(OddMessage(false, kRed));
  const std::string header("\x00\x53\x70\xc0\x03\x01\x56\x01", 8);
  const std::string entries = std::string("\xa1\x05", 2) + "color" + std::string("\xa1\x04", 2) + "blue";
  const std::string props =
      std::string("\x00\x53\x74\xc1", 4) + static_cast<char>(entries.size() + 1) + '\x02' + entries;
  const uint32_t n = static_cast<uint32_t>(lookalikes.size());
  const std::string body = std::string("\x00\x53\x75\xb0", 4) + static_cast<char>(n >> 24) +
                           static_cast<char>(n >> 16) + static_cast<char>(n >> 8) + static_cast<char>(n) + lookalikes;
  const std::string holder = header + props + body;
  std::string bytes;
  for (int copy = 0; copy < 20; ++copy) {  // 40,000 real records: past the first stretch
    for (const std::string& r : records) bytes += Record(r);
  }
  for (int i = 0; i < 160; ++i) bytes += Record(holder);  // 10 MiB of lookalikes: the middle falls there
  WriteFile(Path("lookalikes.amqp"), bytes);
  ExpectSameAsOneThread("--sql \"color = 'red'\"", "lookalikes.amqp");
  ExpectSameAsOneThread("--sql \"color = 'red'\" -f count", "lookalikes.amqp");
  CliResult count = Sift("filter --sql \"color = 'red'\" -f count lookalikes.amqp");
  const uint64_t red_per_copy = Expected([](const synthetic::SyntheticOrder& v) { return v.color == "red"; }).size();
  EXPECT_EQ(count.out, std::to_string(20 * red_per_copy) + "\n");
}

TEST_F(CliOfflineTest, MissingInputFileIsExit2) {
  CliResult r = Sift("filter no-such-file.amqp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: cannot read input: no-such-file.amqp: ", 0) == 0) << r.err;
}

TEST_F(CliOfflineTest, MalformedJsonLineNamesTheLine) {
  WriteFile(Path("bad.jsonl"), "{\"application_properties\": {\"a\": 1}}\n{\"bogus\": 1}\n");
  CliResult r = Sift("filter --format json bad.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.rfind("sift: malformed JSON message: bad.jsonl: line 2: ", 0) == 0) << r.err;
  EXPECT_NE(r.err.find("bogus"), std::string::npos);
}

// ---- cat ----

TEST_F(CliOfflineTest, CatRoundTripsRecordsThroughJson) {
  ASSERT_EQ(Sift("cat orders.amqp > orders.jsonl").exit_code, 0);
  std::vector<std::string> lines = CliResult::Lines(ReadFile(Path("orders.jsonl")));
  ASSERT_EQ(lines.size(), kMessages);
  EXPECT_EQ(nlohmann::json::parse(lines[5])["offset"], 5);
  CliResult r = Sift("cat --format json -f amqp orders.jsonl > back.amqp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Proton-encoded messages survive typed JSON byte for byte (amqp/typed_json.h).
  EXPECT_EQ(ReadFile(Path("back.amqp")), ReadFile(Path("orders.amqp")));
}

}  // namespace
}  // namespace sift::testing
