// What a scanning command tells the person at the terminal, on stderr: a progress line (position,
// % of the range when known, msgs/s) redrawn at most 5 times a second when stderr is a terminal and the
// run has lasted more than a second, and with --stats one summary line at the end:
//
//   sift: stats: scanned 1000000, matched 12493, 9012345 msgs/s, 4051.2 MB/s, elapsed 0.111 s, read from storage 450.1
//   MB (1620.3 MB/s)
//
// (MB = 10^6 bytes; elapsed is wall time from the start of the scan). "read from storage" is what the
// process read from block devices meanwhile (the kernel's count, /proc/self/io: page-cache misses and
// the read-ahead they set off), and its rate over the elapsed time; it is left out where the kernel does
// not count it. stdout is never touched.
#ifndef SIFT_TOOLS_SIFT_RUN_REPORT_H_
#define SIFT_TOOLS_SIFT_RUN_REPORT_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace sift::tools {

class RunReport {
 public:
  explicit RunReport(bool print_stats);

  // Cheap enough to call per batch: it redraws only when due. `fraction` < 0 when unknown.
  void Progress(uint64_t position, double fraction, uint64_t scanned);

  // Clears the progress line and prints the stats line when asked. `extra` is appended (", chunks 12").
  void Finish(uint64_t scanned, uint64_t matched, uint64_t bytes, const std::string& extra = "");

 private:
  bool print_stats_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  int64_t storage_read_at_start_;  // -1: not counted here
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_RUN_REPORT_H_
