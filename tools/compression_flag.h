// The --compression flag of the commands that create streams or append (`sift stream create`, `sift
// append`, `sift capture`, `sift serve`): none, zstd (level -2) or zstd:LEVEL, LEVEL from -7 to 19. A
// bad value is a CLI11 validation error naming the flag and the value, a usage error (exit code 2).
#ifndef SIFT_TOOLS_COMPRESSION_FLAG_H_
#define SIFT_TOOLS_COMPRESSION_FLAG_H_

#include <CLI/CLI.hpp>

#include <exception>
#include <optional>
#include <string>

#include "sift/options.h"

namespace sift::tools {

// Reads none, zstd or zstd:LEVEL; false with *why ("'x' is not none, zstd or zstd:LEVEL (LEVEL -7 to
// 19)") for anything else. Also what the management node reads for a stream's compression.
inline bool ParseChunkCompression(const std::string& text, ChunkCompression* out, std::string* why) {
  ChunkCompression c;
  if (text != "none") {
    c.codec = ChunkCompression::Codec::kZstd;
    if (text != "zstd") {
      const std::string prefix = "zstd:";
      size_t used = 0;
      int level = 0;
      bool ok = text.rfind(prefix, 0) == 0 && text.size() > prefix.size();
      if (ok) {
        try {
          level = std::stoi(text.substr(prefix.size()), &used);
        } catch (const std::exception&) {
          ok = false;
        }
      }
      if (!ok || used != text.size() - prefix.size() || level < kMinZstdLevel || level > kMaxZstdLevel) {
        *why = "'" + text + "' is not none, zstd or zstd:LEVEL (LEVEL " + std::to_string(kMinZstdLevel) + " to " +
               std::to_string(kMaxZstdLevel) + ")";
        return false;
      }
      c.level = level;
    }
  }
  *out = c;
  return true;
}

// `none`, or `zstd:LEVEL`: what ParseChunkCompression reads back (and what --compression takes).
inline std::string FormatCompression(const ChunkCompression& compression) {
  if (compression.codec == ChunkCompression::Codec::kNone) return "none";
  return "zstd:" + std::to_string(compression.level);
}

// Adds --compression bound to *out (set only when given), `what` saying what it applies to.
inline CLI::Option* AddCompressionFlag(CLI::App* command, std::optional<ChunkCompression>* out,
                                       const std::string& what) {
  return command
      ->add_option_function<std::string>(
          "--compression",
          [out](const std::string& text) {
            ChunkCompression c;
            std::string why;
            if (!ParseChunkCompression(text, &c, &why)) throw CLI::ValidationError("--compression", why);
            *out = c;
          },
          "How " + what + " store chunks: none, zstd (level -2) or zstd:LEVEL (-7 to 19)")
      ->type_name("CODEC");
}

}  // namespace sift::tools

#endif  // SIFT_TOOLS_COMPRESSION_FLAG_H_
