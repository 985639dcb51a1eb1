// AddServeFlags: the chunk and retention flags read sizes and durations strictly into ServeOptions,
// keep their defaults when not given, and refuse a bad value with an error naming the flag; the access
// and TLS flags; the removed --tls-key-password is an error saying where the password goes.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
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

TEST(ServeFlags, LoginFlagsTakeTheirRangeAndNameTheFlag) {
  ServeOptions o;
  ASSERT_EQ(Parse({}, &o), "");
  EXPECT_EQ(o.login_threads, 1u);
  EXPECT_EQ(o.max_pending_logins, 256u);
  ASSERT_EQ(Parse({"--login-threads", "4", "--max-pending-logins", "16"}, &o), "");
  EXPECT_EQ(o.login_threads, 4u);
  EXPECT_EQ(o.max_pending_logins, 16u);
  for (const auto& [flag, bad] : {std::pair<std::string, std::string>{"--login-threads", "0"},
                                  {"--login-threads", "65"},
                                  {"--login-threads", "two"},
                                  {"--max-pending-logins", "0"},
                                  {"--max-pending-logins", "-1"}}) {
    ServeOptions refused;
    const std::string error = Parse({flag, bad}, &refused);
    EXPECT_NE(error.find(flag), std::string::npos) << flag << " " << bad << ": " << error;
  }
}

TEST(ServeFlags, SummariesAreOnUnlessNoSummary) {
  ServeOptions defaults;
  ASSERT_EQ(Parse({}, &defaults), "");
  EXPECT_TRUE(defaults.summarize);
  ServeOptions off;
  ASSERT_EQ(Parse({"--no-summary"}, &off), "");
  EXPECT_FALSE(off.summarize);
  ServeOptions bad;
  EXPECT_NE(Parse({"--no-summary=maybe"}, &bad), "");
}

TEST(ServeFlags, ResourceLimitFlags) {
  ServeOptions defaults;
  ASSERT_EQ(Parse({}, &defaults), "");
  EXPECT_EQ(defaults.memory_budget, 1ull << 30);
  EXPECT_EQ(defaults.min_disk_free, 50ull << 20);
  EXPECT_EQ(defaults.max_connection_output, 4ull << 20);
  EXPECT_EQ(defaults.handshake_timeout_ms, 5000);
  EXPECT_EQ(defaults.idle_timeout_ms, 60000);
  EXPECT_EQ(defaults.reader_slice_ms, 2);
  EXPECT_EQ(defaults.max_handshakes, 2048u);  // more than --max-connections: sockets not yet open
  EXPECT_EQ(defaults.max_connections_per_address, 0u);

  ServeOptions o;
  ASSERT_EQ(Parse({"--memory-budget", "64MiB", "--min-disk-free", "0", "--max-connection-output", "1MiB",
                   "--handshake-timeout", "2s", "--idle-timeout", "0", "--max-handshakes", "10",
                   "--max-connections-per-address", "3", "--reader-slice", "5ms"},
                  &o),
            "");
  EXPECT_EQ(o.memory_budget, 64ull << 20);
  EXPECT_EQ(o.min_disk_free, 0u);
  EXPECT_EQ(o.max_connection_output, 1ull << 20);
  EXPECT_EQ(o.handshake_timeout_ms, 2000);
  EXPECT_EQ(o.idle_timeout_ms, 0);
  EXPECT_EQ(o.max_handshakes, 10u);
  EXPECT_EQ(o.max_connections_per_address, 3u);
  EXPECT_EQ(o.reader_slice_ms, 5);
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
      {{"--memory-budget", "1GB"}, "--memory-budget: bad size '1GB': unit 'GB' is ambiguous"},
      {{"--min-disk-free", "-5"}, "--min-disk-free: bad size '-5'"},
      {{"--max-connection-output", "1K"}, "--max-connection-output: bad size '1K': must be from 64KiB to 4GiB"},
      {{"--handshake-timeout", "5"}, "--handshake-timeout: bad duration '5': a duration needs a unit"},
      {{"--handshake-timeout", "10ms"}, "--handshake-timeout: bad duration '10ms': must be from 100ms"},
      {{"--idle-timeout", "2d"}, "--idle-timeout: bad duration '2d': must be from 0 to 1d"},
      {{"--reader-slice", "0"}, "--reader-slice: bad duration '0': must be from 1ms"},
      {{"--max-handshakes", "0"}, "--max-handshakes"},
  };
  for (const Case& c : cases) {
    ServeOptions o;
    const std::string error = Parse(c.args, &o);
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.args[0] << " " << c.args[1] << ": " << error;
  }
}

TEST(ServeFlags, AccessAndTlsFlagsAreRead) {
  ServeOptions o;
  ASSERT_EQ(Parse({"--allow-anonymous", "--tls-verify-peer", "--tls-ca", SIFT_SOURCE_DIR "/README.md"}, &o), "");
  EXPECT_TRUE(o.allow_anonymous);
  EXPECT_TRUE(o.tls_verify_peer);
  EXPECT_EQ(o.tls_ca, SIFT_SOURCE_DIR "/README.md");
  ServeOptions d;
  ASSERT_EQ(Parse({}, &d), "");
  EXPECT_FALSE(d.allow_anonymous);
  EXPECT_FALSE(d.tls_verify_peer);
}

TEST(ServeFlags, KeyPasswordOnTheCommandLineIsRefusedSayingWhereItGoes) {
  ServeOptions o;
  const std::string error = Parse({"--tls-key-password", "secret"}, &o);
  EXPECT_NE(error.find("--tls-key-password: a password is not taken on the command line"), std::string::npos) << error;
  EXPECT_NE(error.find("--tls-key-password-file FILE"), std::string::npos) << error;
  EXPECT_NE(error.find("$SIFT_TLS_KEY_PASSWORD"), std::string::npos) << error;
  EXPECT_EQ(error.find("secret"), std::string::npos) << error;  // the password is not echoed
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

TEST(ServeFlags, TlsVersionAndCiphers) {
  ServeOptions defaults;
  ASSERT_EQ(Parse({}, &defaults), "");
  EXPECT_EQ(defaults.tls_min_version, "1.2");
  EXPECT_EQ(defaults.tls_ciphers, "");  // kDefaultTlsCiphers
  ServeOptions o;
  ASSERT_EQ(Parse({"--tls-min-version", "1.3", "--tls-ciphers", "ECDHE+AESGCM:AES128-GCM-SHA256"}, &o), "");
  EXPECT_EQ(o.tls_min_version, "1.3");
  EXPECT_EQ(o.tls_ciphers, "ECDHE+AESGCM:AES128-GCM-SHA256");
  for (const char* bad : {"1.1", "1.0", "tls1.3", "1.2.0", ""}) {
    ServeOptions b;
    const std::string error = Parse({"--tls-min-version", bad}, &b);
    EXPECT_NE(error.find("--tls-min-version"), std::string::npos) << bad << ": " << error;
  }
}

}  // namespace
}  // namespace sift::tools
