// A stream's info as text or JSON (see stream_info.h).
#include "tools/sift/stream_info.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>

#include "tools/units.h"
#include "tools/compression_flag.h"

namespace sift::tools {
namespace {

std::string IsoTime(int64_t ms) {
  if (ms == 0) return "-";
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm;
  gmtime_r(&seconds, &tm);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

// Stored bytes as a share of the bytes before compression: "100%" for a raw stream, "-" when empty.
std::string StoredShare(const StreamInfo& info) {
  if (info.raw_bytes == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%",
                100.0 * static_cast<double>(info.bytes) / static_cast<double>(info.raw_bytes));
  return text;
}

}  // namespace

std::string FormatStreamInfo(const StreamInfo& info, bool json, bool with_retention) {
  if (json) {
    nlohmann::ordered_json j;
    j["stream"] = info.name;
    j["messages"] = info.message_count;
    j["first_offset"] = info.first_offset;
    j["next_offset"] = info.next_offset;
    j["chunks"] = info.chunk_count;
    j["bytes"] = info.bytes;
    j["raw_bytes"] = info.raw_bytes;
    j["first_timestamp"] = info.first_timestamp_ms;
    j["last_timestamp"] = info.last_timestamp_ms;
    if (with_retention) {
      j["max_bytes"] = info.retention.max_bytes;
      j["max_age_ms"] = info.retention.max_age.count();
      j["compression"] = FormatCompression(info.compression);
    }
    return j.dump();
  }
  const std::string range =
      info.message_count == 0 ? "-" : std::to_string(info.first_offset) + ".." + std::to_string(info.next_offset - 1);
  std::string line = info.name + " messages=" + std::to_string(info.message_count) + " offsets=" + range +
                     " chunks=" + std::to_string(info.chunk_count) + " bytes=" + std::to_string(info.bytes) +
                     " raw-bytes=" + std::to_string(info.raw_bytes) + " stored=" + StoredShare(info) +
                     " first=" + IsoTime(info.first_timestamp_ms) + " last=" + IsoTime(info.last_timestamp_ms);
  if (with_retention) {
    const RetentionPolicy& r = info.retention;
    line += " max-bytes=" + (r.max_bytes == 0 ? std::string("-") : FormatByteSize(r.max_bytes));
    line += " max-age=" + (r.max_age.count() == 0 ? std::string("-") : FormatDuration(r.max_age.count()));
    line += " compression=" + FormatCompression(info.compression);
  }
  return line;
}

}  // namespace sift::tools
