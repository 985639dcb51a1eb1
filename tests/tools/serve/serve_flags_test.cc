// AddServeFlags: the chunk and retention flags read sizes and durations strictly into ServeOptions,
// keep their defaults when not given, and refuse a bad value with an error naming the flag.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tools/serve/serve.h"

namespace sift::tools {
namespace {

// Parses `args` as sift-serve's command line into *options; the CLI11 error text, or "" when ok.
std::string Parse(std::vector<std::string> args, ServeOptions* options) {
  CLI::App app("test", "sift-serve");
  AddServeFlags(&app, options);
  std::vector<const char*> argv = {"sift-serve"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(ServeFlags, DefaultsKeepTheStoreChunksAndNoRetention) {
  ServeOptions o;
  ASSERT_EQ(Parse({}, &o), "");
  EXPECT_EQ(o.max_chunk_bytes, 0u);  // the store's default
  EXPECT_EQ(o.max_chunk_messages, 0u);
  EXPECT_EQ(o.retention_max_bytes, 0u);
  EXPECT_EQ(o.retention_max_age_ms, 0);
  EXPECT_EQ(o.retention_interval_ms, 5000);
}

TEST(ServeFlags, ChunkAndRetentionFlagsReadSizesAndDurations) {
  ServeOptions o;
  ASSERT_EQ(Parse({"--max-chunk-bytes", "256KiB", "--max-chunk-messages", "100", "--retention-max-bytes", "10G",
                   "--retention-max-age", "7d", "--retention-interval", "30s"},
                  &o),
            "");
  EXPECT_EQ(o.max_chunk_bytes, 256u << 10);
  EXPECT_EQ(o.max_chunk_messages, 100u);
  EXPECT_EQ(o.retention_max_bytes, 10ull << 30);
  EXPECT_EQ(o.retention_max_age_ms, 7 * 86'400'000LL);
  EXPECT_EQ(o.retention_interval_ms, 30'000);

  ServeOptions plain;
  ASSERT_EQ(Parse({"--max-chunk-bytes", "65536", "--retention-max-age", "0", "--retention-interval", "0"}, &plain), "");
  EXPECT_EQ(plain.max_chunk_bytes, 65536u);
  EXPECT_EQ(plain.retention_max_age_ms, 0);
  EXPECT_EQ(plain.retention_interval_ms, 0);
}

TEST(ServeFlags, BadValuesNameTheFlagAndTheReason) {
  struct Case {
    std::vector<std::string> args;
    std::string expected;  // part of the error
  };
  const std::vector<Case> cases = {
      {{"--retention-max-age", "7"}, "--retention-max-age: bad duration '7': a duration needs a unit"},
      {{"--retention-max-age", "1y"}, "--retention-max-age: bad duration '1y': expected a whole number with a unit"},
      {{"--retention-max-age", "-1d"}, "--retention-max-age: bad duration '-1d'"},
      {{"--retention-max-bytes", "10GB"}, "--retention-max-bytes: bad size '10GB': unit 'GB' is ambiguous"},
      {{"--retention-max-bytes", "lots"}, "--retention-max-bytes: bad size 'lots': expected a whole number of bytes"},
      {{"--max-chunk-bytes", "0"}, "--max-chunk-bytes: bad size '0': must be from 1 to 1GiB"},
      {{"--max-chunk-bytes", "2G"}, "--max-chunk-bytes: bad size '2G': must be from 1 to 1GiB"},
      {{"--max-chunk-messages", "0"}, "--max-chunk-messages"},
      {{"--retention-interval", "8d"}, "--retention-interval: bad duration '8d': must be from 0 to 1w"},
  };
  for (const Case& c : cases) {
    ServeOptions o;
    const std::string error = Parse(c.args, &o);
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.args[0] << " " << c.args[1] << ": " << error;
  }
}

TEST(ServeFlags, MetricsTakesHostAndPortAndRefusesAnythingElse) {
  ServeOptions o;
  ASSERT_EQ(Parse({}, &o), "");
  EXPECT_EQ(o.metrics, "");  // no endpoint unless asked
  ASSERT_EQ(Parse({"--metrics", "127.0.0.1:9464"}, &o), "");
  EXPECT_EQ(o.metrics, "127.0.0.1:9464");
  ASSERT_EQ(Parse({"--metrics", "[::1]:0"}, &o), "");
  for (const char* bad : {"9464", "localhost:", "localhost:http", "h:65536", "h:123456"}) {
    ServeOptions b;
    const std::string error = Parse({"--metrics", bad}, &b);
    EXPECT_NE(error.find("--metrics"), std::string::npos) << bad << ": " << error;
    EXPECT_NE(error.find("expected HOST:PORT"), std::string::npos) << bad << ": " << error;
  }
}

}  // namespace
}  // namespace sift::tools
