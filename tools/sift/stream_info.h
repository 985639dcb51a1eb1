// One stream's info as `sift stats` and `sift stream info` print it: one text line
// (`orders messages=3000 offsets=0..2999 chunks=3 bytes=281102 raw-bytes=1402331 stored=20.0% first=...
// last=...`: stored bytes, the same before compression and the share stored; times UTC ISO 8601, `-`
// when empty) or one JSON object; with the settings, the line goes on with `max-bytes=1GiB max-age=7d
// compression=zstd:-2` (`-`: no limit; `none`: stored raw) and the object with "max_bytes" and
// "max_age_ms" (0: no limit) and "compression".
#ifndef SIFT_TOOLS_SIFT_STREAM_INFO_H_
#define SIFT_TOOLS_SIFT_STREAM_INFO_H_

#include <string>

#include "sift/stream_engine.h"

namespace sift::tools {

std::string FormatStreamInfo(const StreamInfo& info, bool json, bool with_retention);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_STREAM_INFO_H_
