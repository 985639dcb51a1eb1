// libFuzzer target: a chunk of messages through the summary builder both ways a store builds it,
// Add() (messages validated before, or trusted) and AddChecked() (validation and summary in one walk,
// what a bulk load does). The input is a record file (each record a message of the chunk), or one
// message when it holds no record. Findings: crashes, ASan / UBSan reports, an AddChecked verdict
// that differs from amqp::Validate's, and a chunk of well-formed messages whose two summaries differ
// (or a chunk with a malformed one that AddChecked still summarizes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "amqp/record_file.h"
#include "amqp/validate.h"
#include "engine/chunk_summary_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  std::vector<std::span<const uint8_t>> messages;
  sift::amqp::RecordFileReader reader;
  sift::amqp::RecordFileOptions options;
  options.max_record_size = 1 << 16;
  reader.OpenBytes(bytes, "fuzz", options);
  std::span<const uint8_t> record;
  while (messages.size() < 256 && reader.Next(&record)) messages.push_back(record);
  if (messages.empty()) messages.push_back(bytes);
  sift::engine::ChunkSummaryBuilder plain, checked;
  plain.Reset();
  checked.Reset();
  bool all = true;
  for (const std::span<const uint8_t> m : messages) {
    const std::string_view text(reinterpret_cast<const char*>(m.data()), m.size());
    const bool ok = sift::amqp::Validate(m).ok();
    plain.Add(text);
    if (checked.AddChecked(text) != ok) std::abort();
    all = all && ok;
  }
  std::string expected, got;
  plain.Finish(&expected);
  checked.Finish(&got);
  if (all ? got != expected : !got.empty()) std::abort();
  return 0;
}
