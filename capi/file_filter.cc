// The C API's offline filter of a record file (sift_filter_file): `sift filter` on one thread. Record
// framing is always checked; a record is validated in full when it matches (it is handed out) or when
// the filter read malformed bytes in it (its "no" would rest on them), and every record with strict.
// A malformed record ends the run with SIFT_MALFORMED naming the record and the byte.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <string>

#include "capi/internal.h"
#include "amqp/record_file.h"
#include "amqp/validate.h"
#include "engine/compiled_filter.h"
#include "engine/message_filter.h"

namespace sift::capi {
namespace {

constexpr size_t kFileFilterOptionsSize = sizeof(sift_file_filter_options);
// The mapped pages a run has passed are handed back to the kernel every this many bytes, so filtering
// a file larger than memory keeps a bounded resident set.
constexpr uint64_t kReleaseStep = 64u << 20;

Status CheckRecord(const std::string& path, std::span<const uint8_t> message, uint64_t index, uint64_t position) {
  const amqp::DecodeError error = amqp::Validate(message);
  if (error.ok()) return Status::OK();
  return Status::Malformed(
      "malformed record",
      path + ": record " + std::to_string(index) + " at byte " + std::to_string(position + 4 + error.offset),
      error.Reason() + " (byte " + std::to_string(error.offset) + " of the message)");
}

}  // namespace
}  // namespace sift::capi

extern "C" {

void sift_file_filter_options_init(sift_file_filter_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
}

sift_status sift_filter_file(const char* path, const sift_filter* filter, const sift_file_filter_options* options,
                             sift_match_fn on_match, void* context, sift_scan_stats* stats, sift_error** error) {
  if (stats != nullptr) std::memset(stats, 0, sizeof(*stats));
  return sift::capi::Guard(error, [&]() -> sift_status {
    using sift::capi::Fail;
    if (path == nullptr) return Fail(error, SIFT_INVALID_ARGUMENT, "sift_filter_file: path is NULL");
    sift_file_filter_options settings;
    sift_file_filter_options_init(&settings);
    if (options != nullptr) {
      if (options->struct_size < sift::capi::kFileFilterOptionsSize) {
        return Fail(error, SIFT_INVALID_ARGUMENT,
                    std::string("cannot filter: ") + path + ": sift_file_filter_options.struct_size is " +
                        std::to_string(options->struct_size) + " (call sift_file_filter_options_init first)");
      }
      settings = *options;
    }
    struct stat info;
    if (::stat(path, &info) != 0) {
      const int err = errno;
      return Fail(error, err == ENOENT ? SIFT_NOT_FOUND : SIFT_IO_ERROR,
                  std::string("cannot open record file: ") + path + ": " + std::strerror(err));
    }
    sift::amqp::RecordFileReader reader;
    if (!reader.Open(path)) return Fail(error, SIFT_IO_ERROR, "cannot open record file: " + reader.error());
    const sift::CompiledFilter match_all;
    sift::engine::MessageFilter message_filter(
        sift::engine::SelectorOf(filter != nullptr ? filter->compiled : match_all));
    std::span<const uint8_t> message;
    uint64_t scanned = 0, matched = 0, bytes = 0, released = 0;
    sift::Status status;
    for (;;) {
      const uint64_t position = reader.position();
      const uint64_t index = reader.index();
      if (!reader.Next(&message)) break;
      ++scanned;
      bytes += message.size();
      const bool match = message_filter.Matches(message);
      if (settings.strict != 0 || match || message_filter.read_malformed()) {
        status = sift::capi::CheckRecord(path, message, index, position);
        if (!status.ok()) break;
      }
      if (match) {
        ++matched;
        if (on_match != nullptr && on_match(context, index, message.data(), message.size()) != 0) break;
        if (settings.limit != 0 && matched >= settings.limit) break;
      }
      if (reader.position() >= released + 2 * sift::capi::kReleaseStep) {
        reader.Release(released, reader.position() - sift::capi::kReleaseStep);
        released = reader.position() - sift::capi::kReleaseStep;
      }
    }
    if (stats != nullptr) {
      stats->scanned = scanned;
      stats->matched = matched;
      stats->bytes = bytes;
    }
    if (!status.ok()) return sift::capi::Report(error, status);
    if (!reader.ok()) return Fail(error, SIFT_MALFORMED, "malformed record: " + reader.error());
    return sift::capi::Ok(error);
  });
}

}  // extern "C"
