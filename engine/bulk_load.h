// The bulk path behind AppendBatch's AppendOptions::bulk, with the one thing only a loader of large
// files needs beyond it: the chunk summaries of the next batch prepared on other threads while one
// batch is written (`sift append`). Internal to the engine and its tools: an embedder appends with
// AppendBatch.
#ifndef SIFT_ENGINE_BULK_LOAD_H_
#define SIFT_ENGINE_BULK_LOAD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/status.h"
#include "sift/stream_engine.h"

namespace sift::engine {

// Work done ahead of a bulk append (PrepareIngest), for IngestBatch with the same messages: the
// summaries of the chunks it will write. Opaque to the caller, but for Help(): a loader prepares the
// next batch on other threads while it writes one, and when it is done writing first, it lends its
// thread to the preparation instead of waiting idle. Not moved while in use.
class IngestPreparation {
 public:
  IngestPreparation();
  ~IngestPreparation();
  IngestPreparation(IngestPreparation&&) noexcept;
  IngestPreparation& operator=(IngestPreparation&&) noexcept;

  // Waits until PrepareIngest(..., this, ...) runs on another thread, then takes part in its work until
  // no piece of it is left, which may be before PrepareIngest returns (its status is the result).
  // Returns at once when that PrepareIngest has already returned, or after Close().
  void Help();
  // Says that no PrepareIngest will run for this preparation, so that Help() stops waiting for one.
  void Close();

 private:
  struct Sharing;
  friend struct IngestPreparationAccess;
  std::vector<std::string> summaries_;
  std::unique_ptr<Sharing> sharing_;
};

// A loader's validation of messages [begin, end) that reports where a malformed one is.
using RangeCheck = std::function<Status(size_t begin, size_t end)>;

// Prepares the chunk summaries of `messages` for IngestBatch, on one thread per core. Thread-safe;
// reads no stream. Errors: none expected (IOError reserved), or what `check` returned.
//
// `check`, when given, is called for every chunk's range, on the same threads. With chunk summaries,
// the summary builder validates each message strictly while it reads it (the rules of
// EngineOptions::validate, in the same walk), and `check` runs only for a chunk holding a message that
// fails, to say why. A failing check stops the work: the result is the status of the first failing
// range in message order (every range before it passed), and *out is not usable.
Status PrepareIngest(const StreamEngine& engine, std::span<const std::string_view> messages, IngestPreparation* out,
                     const RangeCheck& check = {});

// AppendBatch with AppendOptions::bulk, taking the summaries from `prepared` (what PrepareIngest made
// of the same messages) when given, instead of building them alongside the writes.
Status IngestBatch(StreamEngine& engine, std::string_view stream, std::span<const std::string_view> messages,
                   uint64_t* first_offset = nullptr, const IngestPreparation* prepared = nullptr);

}  // namespace sift::engine

#endif  // SIFT_ENGINE_BULK_LOAD_H_
