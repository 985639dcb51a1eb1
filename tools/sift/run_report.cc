// RunReport: the progress line and the --stats line (see run_report.h).
#include "tools/sift/run_report.h"

#include <unistd.h>

#include <cstdio>

namespace sift::tools {

RunReport::RunReport(bool print_stats)
    : print_stats_(print_stats),
      terminal_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void RunReport::Progress(uint64_t position, double fraction, uint64_t scanned) {
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  char line[160];
  if (fraction >= 0) {
    std::snprintf(line, sizeof line, "\rsift: at %llu (%.0f%%), %.0f msgs/s\x1b[K",
                  static_cast<unsigned long long>(position), fraction * 100.0, scanned / seconds);
  } else {
    std::snprintf(line, sizeof line, "\rsift: at %llu, %.0f msgs/s\x1b[K", static_cast<unsigned long long>(position),
                  scanned / seconds);
  }
  std::fputs(line, stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void RunReport::Finish(uint64_t scanned, uint64_t matched, uint64_t bytes, const std::string& extra) {
  if (drawn_) {
    std::fputs("\r\x1b[K", stderr);
    drawn_ = false;
  }
  if (!print_stats_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? scanned / seconds : 0;
  const double mbps = seconds > 0 ? bytes / seconds / 1e6 : 0;
  std::fprintf(stderr, "sift: stats: scanned %llu, matched %llu, %.0f msgs/s, %.1f MB/s, elapsed %.3f s%s\n",
               static_cast<unsigned long long>(scanned), static_cast<unsigned long long>(matched), rate, mbps, seconds,
               extra.c_str());
  std::fflush(stderr);
}

}  // namespace sift::tools
