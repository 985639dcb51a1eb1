// Test support for the typed JSON, full-decode and differential tests: runs the seeded message
// generator (generate_messages.py, with the interpreter that has python3-qpid-proton) and reads the
// record file it writes. Header-only; not a test itself.
#ifndef SIFT_TESTS_ENGINE_AMQP_PROTON_TEST_MESSAGES_H_
#define SIFT_TESTS_ENGINE_AMQP_PROTON_TEST_MESSAGES_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace sift::amqp::testing {

struct GeneratedMessages {
  std::vector<std::vector<uint8_t>> messages;
  std::string kinds;  // one letter per message: 'm' Message.encode, 'd' pn_data_t, 'r' hand-encoded
  std::string error;  // empty on success
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs the generator with `seed` and `count` (cached in the build folder under a name that includes
// a hash of the generator's text, so a changed generator regenerates) and reads its records.
inline GeneratedMessages Generate(uint64_t seed, uint64_t count) {
  GeneratedMessages result;
  const std::string script = (std::filesystem::path(SIFT_SOURCE_DIR) / "tests/amqp/generate_messages.py").string();
  size_t hash = std::hash<std::string>()(ReadWholeFile(script));
  std::filesystem::path dir = std::filesystem::path(SIFT_BINARY_DIR) / "tests" / "generated";
  std::filesystem::create_directories(dir);
  std::string stem =
      (dir / ("messages_" + std::to_string(seed) + "_" + std::to_string(count) + "_" + std::to_string(hash))).string();
  if (!std::filesystem::exists(stem + ".kinds")) {
    // Write under a private name, then rename: tests running in parallel may race to generate.
    std::string tmp = stem + ".tmp" + std::to_string(getpid());
    std::string command = std::string(SIFT_PYTHON) + " " + script + " --seed " + std::to_string(seed) + " --count " +
                          std::to_string(count) + " --out " + tmp + ".amqp --kinds " + tmp + ".kinds";
    if (std::system(command.c_str()) != 0) {
      result.error = "generator failed: " + command;
      return result;
    }
    std::filesystem::rename(tmp + ".amqp", stem + ".amqp");
    std::filesystem::rename(tmp + ".kinds", stem + ".kinds");
  }
  std::string bytes = ReadWholeFile(stem + ".amqp");
  result.kinds = ReadWholeFile(stem + ".kinds");
  while (!result.kinds.empty() && result.kinds.back() == '\n') result.kinds.pop_back();
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) {
      result.error = "truncated record length at byte " + std::to_string(at);
      return result;
    }
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + at);
    uint32_t n = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    at += 4;
    if (bytes.size() - at < n) {
      result.error = "truncated record at byte " + std::to_string(at);
      return result;
    }
    result.messages.emplace_back(p + 4, p + 4 + n);
    at += n;
  }
  if (result.messages.size() != count || result.kinds.size() != count) {
    result.error = "expected " + std::to_string(count) + " messages, read " + std::to_string(result.messages.size()) +
                   " and " + std::to_string(result.kinds.size()) + " kinds";
  }
  return result;
}

}  // namespace sift::amqp::testing

#endif  // SIFT_TESTS_ENGINE_AMQP_PROTON_TEST_MESSAGES_H_
