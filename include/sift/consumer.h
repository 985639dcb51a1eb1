// sift/consumer.h: a filtered reader of one stream (Consumer, made by StreamEngine::NewConsumer) and
// what it is made of (ConsumerOptions) — the embedding API's read side.
//
// A consumer is a stream, a compiled filter-set (CompiledFilter, from FilterSpec::Compile or
// CompileFilterSet), a start position, an optional end and a follow mode. Each Poll() scans records
// from the store in order, evaluates the filter on each on the encoded bytes (a byte search first,
// then the fields the filter reads, each section read at most once, values viewed in place, nothing
// allocated for a rejected message once the consumer has warmed up) and turns each match into a
// Delivery, until the batch holds `credit` deliveries, the scan budget of one poll is spent, or the
// end is reached. Only TRUE delivers (three-valued logic: UNKNOWN does not).
//
// Positions: start kFirst (oldest retained), kLast (the newest message), kNext (only messages appended
// after the consumer is created), kOffset (first offset >= N), kFromEnd (the last N messages),
// kTimestamp (first message appended at or after T). End: kOffset (stop before offset N), kTimestamp
// (stop before the first message appended after T), kNone. Both ends are exclusive: [start, end).
// Without follow the consumer ends at the end of the stream as it was when the consumer was created;
// with follow it waits for appends (Poll's `wait`) and ends only at the end bound, if any.
//
// Corruption: a chunk that fails its checksum stops the consumer with a Corruption status (kStop, the
// default) or is skipped and counted (kSkip; its offsets are not delivered).
//
// Retention: a consumer that falls behind its stream's retention limit finds the offsets it was about
// to read deleted. It goes on at the first offset still stored, and says so: the run of offsets it
// passed over is Consumer::retention_gap() after the Poll that passed it, and ConsumerStats counts
// them (retention_lost) and the runs (retention_gaps). A start offset already deleted when the
// consumer first reads counts the same way. Checking costs nothing per record (gaps are found as a
// chunk is entered) and allocates nothing.
//
// Thread safety: one Consumer is used by one thread at a time. Any number of consumers may run on as
// many threads over the same StreamEngine, concurrently with appends to the streams they read (a
// following consumer sees those appends). A consumer must be destroyed before its StreamEngine.
#ifndef SIFT_CONSUMER_H_
#define SIFT_CONSUMER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "sift/delivery.h"
#include "sift/filter_set.h"
#include "sift/status.h"

namespace sift {

struct StartPosition {
  enum class Kind : uint8_t { kFirst, kLast, kNext, kOffset, kFromEnd, kTimestamp };
  Kind kind = Kind::kFirst;
  uint64_t offset = 0;       // kOffset: the offset; kFromEnd: how many messages back from the end
  int64_t timestamp_ms = 0;  // kTimestamp

  static StartPosition First() { return {}; }
  static StartPosition Last() { return {Kind::kLast, 0, 0}; }
  static StartPosition Next() { return {Kind::kNext, 0, 0}; }
  static StartPosition Offset(uint64_t offset) { return {Kind::kOffset, offset, 0}; }
  static StartPosition FromEnd(uint64_t count) { return {Kind::kFromEnd, count, 0}; }
  static StartPosition Timestamp(int64_t ms) { return {Kind::kTimestamp, 0, ms}; }
};

struct EndPosition {
  enum class Kind : uint8_t { kNone, kOffset, kTimestamp };
  Kind kind = Kind::kNone;
  uint64_t offset = 0;       // kOffset: the first offset not delivered
  int64_t timestamp_ms = 0;  // kTimestamp: messages appended after this are not delivered

  static EndPosition None() { return {}; }
  static EndPosition Offset(uint64_t offset) { return {Kind::kOffset, offset, 0}; }
  static EndPosition Timestamp(int64_t ms) { return {Kind::kTimestamp, 0, ms}; }
};

enum class CorruptionPolicy : uint8_t {
  kStop,  // Poll returns the Corruption status; the consumer is done
  kSkip,  // the chunk is skipped and counted in ConsumerStats::chunks_corrupt
};

struct ConsumerOptions {
  std::string stream;
  // The compiled filter-set; the default matches every message. Must be ok().
  CompiledFilter filter;
  StartPosition start;
  EndPosition end;
  // Wait for new messages at the end of the stream instead of ending.
  bool follow = false;
  // The most deliveries one Poll returns (the link credit of a broker's consumer). At least 1.
  uint32_t credit = 256;
  // The most records one Poll scans, so a poll over a long run of rejected messages still returns
  // (with an empty batch) for progress reports and cancellation. At least 1.
  uint32_t max_scan_per_poll = 1u << 16;
  // The longest one Poll scans (0: no limit), checked between records, so a costly filter over big
  // messages still returns within about this time and a thread serving many consumers can take turns.
  std::chrono::microseconds max_poll_time{0};
  // A Poll stops adding deliveries once the batch holds this many message bytes (0: no limit); it
  // always returns at least one match, so a caller can bound what one batch costs whatever the
  // message sizes.
  uint64_t max_batch_bytes = 0;
  // What to do with a corrupt chunk.
  CorruptionPolicy on_corruption = CorruptionPolicy::kStop;
  // Keep scanned chunks in the store's block cache (false suits one-off scans of old data).
  bool fill_cache = true;
  // Skip chunks whose summary (EngineOptions::summarize_chunks, StreamEngine::SummarizeChunks) shows
  // that none of their messages can match the filter, without reading them. Skipping never changes
  // what is delivered; false reads every chunk (for diagnosis, or to measure what skipping saves).
  bool skip_chunks = true;
};

struct ConsumerStats {
  uint64_t scanned = 0;                 // records evaluated
  uint64_t matched = 0;                 // records delivered
  uint64_t bytes = 0;                   // bytes of the records evaluated
  uint64_t chunks = 0;                  // chunks read
  uint64_t chunks_corrupt = 0;          // corrupt chunks skipped (CorruptionPolicy::kSkip)
  uint64_t chunks_pruned = 0;           // chunks skipped unread: summary or term entries rule out every message
  uint64_t bytes_pruned = 0;            // their bytes before compression (stored bytes when raw)
  uint64_t summary_bytes_read = 0;      // bytes of summaries and term entries read to decide skips
  uint64_t retention_lost = 0;          // offsets (messages) retention deleted before the consumer read them
  uint64_t retention_gaps = 0;          // runs of such offsets the consumer passed over
  std::chrono::nanoseconds elapsed{0};  // time spent in Poll, waits for appends excluded
};

// Offsets [first, end) that retention deleted before a consumer read them; it resumed at `end` (or
// stopped there, at its end bound).
struct RetentionGap {
  uint64_t first = 0;
  uint64_t end = 0;

  bool empty() const { return first == end; }
  uint64_t count() const { return end - first; }
};

class StreamEngine;

class Consumer {
 public:
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Clears *batch and fills it with the next deliveries (see the file comment). Returns ok with an
  // empty batch when nothing matched in this poll's scan budget, or when following and nothing was
  // appended within `wait`. Errors: Corruption (a corrupt chunk under kStop), NotFound (the stream was
  // deleted), IOError. After an error, or once done(), Poll returns the same status with an empty batch.
  Status Poll(DeliveryBatch* batch, std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  // The consumer reached its end (the end bound, or the end of the stream without follow), or failed.
  bool done() const { return done_; }

  // The offset the consumer will look at next.
  uint64_t position() const;

  // Releases the store iterator (and the chunk and memtables it pins) of a consumer that will be idle
  // for a while, e.g. one whose reader has no credit; the next Poll re-seeks to position(). Cheap, and
  // a no-op when already released or done.
  void Release();
  // Whether the consumer holds no store iterator (after Release, until the next Poll).
  bool released() const;

  const ConsumerStats& stats() const { return stats_; }

  // The offsets the last Poll found deleted by retention before the consumer read them; empty when
  // it found none. A Poll returns as soon as it passes such a run, so its batch holds the deliveries
  // from before the run (offsets below `first`) and at most one after it: the last, when its offset
  // is at least `end`. (Were retention to delete again while the Poll moves past the first run, this
  // is the last run; stats() counts both.)
  const RetentionGap& retention_gap() const { return retention_gap_; }
  // The error of the last corrupt chunk skipped (ok when none).
  Status last_corruption() const;

 private:
  friend class StreamEngine;
  struct Impl;
  explicit Consumer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
  ConsumerStats stats_;
  RetentionGap retention_gap_;
  bool done_ = false;
  Status final_status_;
};

}  // namespace sift

#endif  // SIFT_CONSUMER_H_
