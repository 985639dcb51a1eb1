// RunReport: the progress line and the --stats line (see run_report.h).
#include "tools/sift/run_report.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace sift::tools {
namespace {

// Bytes this process has read from block devices, or -1 when the kernel does not say (no /proc, or
// a kernel without I/O accounting).
int64_t StorageBytesRead() {
  std::ifstream io("/proc/self/io");
  std::string key;
  int64_t value = 0;
  while (io >> key >> value) {
    if (key == "read_bytes:") return value;
  }
  return -1;
}

}  // namespace

RunReport::RunReport(bool print_stats)
    : print_stats_(print_stats),
      terminal_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_),
      storage_read_at_start_(print_stats ? StorageBytesRead() : -1) {}

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
  std::string storage;
  const int64_t read_now = storage_read_at_start_ >= 0 ? StorageBytesRead() : -1;
  if (read_now >= storage_read_at_start_ && storage_read_at_start_ >= 0) {
    const double read_mb = static_cast<double>(read_now - storage_read_at_start_) / 1e6;
    char text[96];
    std::snprintf(text, sizeof text, ", read from storage %.1f MB (%.1f MB/s)", read_mb,
                  seconds > 0 ? read_mb / seconds : 0);
    storage = text;
  }
  std::fprintf(stderr, "sift: stats: scanned %llu, matched %llu, %.0f msgs/s, %.1f MB/s, elapsed %.3f s%s%s\n",
               static_cast<unsigned long long>(scanned), static_cast<unsigned long long>(matched), rate, mbps, seconds,
               storage.c_str(), extra.c_str());
  std::fflush(stderr);
}

}  // namespace sift::tools
