// Test support: runs the built `sift` binary through /bin/sh and captures its exit code, stdout and
// stderr; makes and removes scratch folders. Each test gets a fresh folder under the build tree, with
// SIFT_STORE unset so no test depends on the environment.
#ifndef SIFT_TESTS_TOOLS_CLI_RUNNER_H_
#define SIFT_TESTS_TOOLS_CLI_RUNNER_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sift::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;

  std::vector<std::string> OutLines() const { return Lines(out); }
  std::vector<std::string> ErrLines() const { return Lines(err); }
  static std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
  }
};

inline std::string SiftBinary() { return (std::filesystem::path(SIFT_BINARY_DIR) / "tools/sift").string(); }

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Single-quotes `s` for /bin/sh.
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

// A scratch folder for one test, removed at the end.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    path_ = std::filesystem::path(SIFT_BINARY_DIR) / "tests" / "tools" / "scratch" /
            (name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Runs `sift ARGS` (ARGS is shell text: quote what needs it) with optional shell text for stdin
// redirection ("< file" or a pipe prefix given as `before`, e.g. "cat f |").
inline CliResult RunShell(const std::string& command_line, const std::filesystem::path& dir) {
  const std::string out = (dir / ".stdout").string();
  const std::string err = (dir / ".stderr").string();
  const std::string command = "cd " + Quote(dir.string()) + " && unset SIFT_STORE && (" + command_line + ") >" +
                              Quote(out) + " 2>" + Quote(err);
  int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

inline CliResult RunSift(const std::string& args, const std::filesystem::path& dir,
                         const std::string& stdin_file = "") {
  std::string line = Quote(SiftBinary()) + " " + args;
  if (!stdin_file.empty()) line += " < " + Quote(stdin_file);
  return RunShell(line, dir);
}

// True when `err` is exactly one stats line: "sift: stats: scanned N, matched M, R msgs/s, B MB/s,
// elapsed S s, read from storage D MB (R MB/s)" (then ", chunks C" and what a replay adds when `chunks`),
// with N == scanned. (Parsed by hand: std::regex trips GCC 12's maybe-uninitialized warning under the
// asan preset.)
inline bool IsStatsLine(const std::string& err, uint64_t scanned, bool chunks) {
  unsigned long long n = 0, m = 0, c = 0;
  double rate = 0, mbps = 0, seconds = 0, read_mb = 0, read_rate = 0;
  int used = 0;
  const char* format =
      "sift: stats: scanned %llu, matched %llu, %lf msgs/s, %lf MB/s, elapsed %lf s, read from storage %lf MB "
      "(%lf MB/s)%n";
  if (std::sscanf(err.c_str(), format, &n, &m, &rate, &mbps, &seconds, &read_mb, &read_rate, &used) != 7) return false;
  if (n != scanned || m > n || read_mb < 0) return false;
  std::string rest = err.substr(static_cast<size_t>(used));
  if (chunks) {
    int more = 0;
    if (std::sscanf(rest.c_str(), ", chunks %llu%n", &c, &more) != 1) return false;
    rest = rest.substr(static_cast<size_t>(more));
    // What a replay adds after the chunks: ", chunks skipped by summary ...", ", summaries read ...".
    if (rest != "\n" && rest.rfind(", ", 0) != 0) return false;
  }
  return rest.size() >= 1 && rest.back() == '\n' && rest.find('\n') == rest.size() - 1 && (chunks || rest == "\n");
}

}  // namespace sift::testing

#endif  // SIFT_TESTS_TOOLS_CLI_RUNNER_H_
