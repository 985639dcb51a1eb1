// StreamEngine::ParallelScan: contiguous ranges on threads, matches handed over in order
// (sift/parallel_scan.h).
//
// Ordering protocol, all under one mutex: `turn` is the range whose matches go to the sink now. The
// range in turn delivers each batch as it polls it; a range not in turn copies its matches into its
// own queue and, past max_buffered_bytes, waits. When the range in turn ends, the turn passes on:
// each next range's queue is delivered, and ranges that already ended are passed over the same way,
// until a range still running takes the turn (it then delivers directly) or all are done. A range
// that ended with an error stops the hand-over there, as a single consumer would have stopped.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "engine/stream_engine_impl.h"
#include "sift/stream_engine.h"
#include "storage/stream_reader.h"

namespace sift {

// The engine's internals behind the API.
using engine::FromStorage;
namespace {

using Clock = std::chrono::steady_clock;

struct HeldMatch {
  uint64_t offset;
  int64_t timestamp_ms;
  std::string bytes;
};

struct Range {
  uint64_t begin = 0, end = 0;
  std::deque<HeldMatch> held;
  size_t held_bytes = 0;
  bool finished = false;
  Status status;
  ConsumerStats stats;
  Status last_corruption;
};

class Handover {
 public:
  Handover(ScanSink* sink, size_t ranges, size_t max_held, uint64_t total)
      : sink_(sink), ranges_(ranges), max_held_(max_held), total_(total) {}

  Range& range(size_t k) { return ranges_[k]; }
  size_t size() const { return ranges_.size(); }
  bool stopped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stop_;
  }

  // A batch polled by range k.
  void Offer(size_t k, const DeliveryBatch& batch, uint64_t scanned) {
    std::unique_lock<std::mutex> lock(mu_);
    scanned_ += scanned;
    if (stop_) return;
    Range& r = ranges_[k];
    if (turn_ == k) {
      for (const Delivery& d : batch) {
        if (!sink_->Deliver(d)) {
          Stop();
          break;
        }
      }
      sink_->Progress(scanned_, total_);
      return;
    }
    for (const Delivery& d : batch) {
      r.held.push_back({d.offset(), d.timestamp_ms(), std::string(d.bytes())});
      r.held_bytes += d.bytes().size();
    }
    changed_.wait(lock, [&] { return stop_ || turn_ == k || r.held_bytes <= max_held_; });
    if (turn_ == k && !stop_) DeliverHeld(r);
  }

  // Range k ended (done, failed, or stopped).
  void Finish(size_t k, Status status, const ConsumerStats& stats, Status last_corruption) {
    std::lock_guard<std::mutex> lock(mu_);
    Range& r = ranges_[k];
    r.finished = true;
    r.status = std::move(status);
    r.stats = stats;
    r.last_corruption = std::move(last_corruption);
    if (turn_ == k) PassTurn();
  }

  // After every range finished: the first error in offset order, if any delivered range had one.
  Status Result() const {
    std::lock_guard<std::mutex> lock(mu_);
    return result_;
  }

 private:
  void Stop() {
    stop_ = true;
    changed_.notify_all();
  }

  void DeliverHeld(Range& r) {
    while (!r.held.empty() && !stop_) {
      const HeldMatch& m = r.held.front();
      if (!sink_->Deliver(Delivery(m.offset, m.timestamp_ms, m.bytes))) Stop();
      r.held_bytes -= m.bytes.size();
      r.held.pop_front();
    }
    r.held.clear();
    r.held_bytes = 0;
  }

  // The range in turn has ended: hand the turn on (see the file comment).
  void PassTurn() {
    while (turn_ < ranges_.size() && ranges_[turn_].finished) {
      Range& done = ranges_[turn_];
      if (!done.status.ok()) {  // the replay ends here, as one consumer's would
        result_ = done.status;
        turn_ = ranges_.size();
        Stop();
        return;
      }
      ++turn_;
      if (turn_ < ranges_.size() && !stop_) DeliverHeld(ranges_[turn_]);
    }
    changed_.notify_all();
  }

  ScanSink* sink_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Range> ranges_;
  const size_t max_held_;
  const uint64_t total_;
  size_t turn_ = 0;
  bool stop_ = false;
  uint64_t scanned_ = 0;
  Status result_;
};

// Polls one consumer to its end, offering each batch. Returns the consumer's final status.
Status Drain(Consumer& consumer, Handover& handover, size_t k, bool follow) {
  DeliveryBatch batch;
  Status status;
  uint64_t reported = 0;
  while (!consumer.done() && !handover.stopped()) {
    status = consumer.Poll(&batch, std::chrono::milliseconds(follow ? 200 : 0));
    const uint64_t scanned = consumer.stats().scanned;
    handover.Offer(k, batch, scanned - reported);
    reported = scanned;
    if (!status.ok()) break;
  }
  return status;
}

}  // namespace

Status StreamEngine::ParallelScan(const ParallelScanOptions& options, ScanSink* sink, ParallelScanStats* stats) {
  const auto started = Clock::now();
  const ConsumerOptions& base = options.consumer;
  if (options.threads == 0 || options.threads > 64) {
    return Status::InvalidArgument("bad scan options", base.stream, "threads must be 1..64");
  }
  StreamInfo info;
  Status s = GetStreamInfo(base.stream, &info);
  if (!s.ok()) return s;
  // The first consumer resolves the start position; the range ends at the end bound or at the end
  // of the stream as it is now.
  std::unique_ptr<Consumer> first;
  s = NewConsumer(base, &first);
  if (!s.ok()) return s;
  const uint64_t begin = first->position();
  uint64_t end = info.next_offset;
  if (base.end.kind == EndPosition::Kind::kOffset) end = std::min(end, base.end.offset);
  const bool splittable = !base.follow && base.end.kind != EndPosition::Kind::kTimestamp && end > begin;
  uint32_t threads = 1;
  if (splittable) {
    const uint64_t most = (end - begin) / std::max<uint64_t>(options.min_messages_per_thread, 1);
    threads = static_cast<uint32_t>(std::clamp<uint64_t>(most, 1, options.threads));
  }

  // Cut points, moved back to the first offset of the chunk that holds them (from the store's chunk
  // index: no chunk is read to find them).
  std::vector<uint64_t> cuts = {begin};
  if (threads > 1) {
    std::vector<storage::ChunkInfo> chunks;
    storage::Status rs = impl_->store->ListChunks(base.stream, &chunks);
    if (!rs.ok()) return FromStorage(rs, "cannot read stream", base.stream);
    for (uint32_t k = 1; k < threads; ++k) {
      const uint64_t target = begin + (end - begin) * k / threads;
      auto it = std::partition_point(chunks.begin(), chunks.end(),
                                     [&](const storage::ChunkInfo& c) { return c.first_offset + c.count <= target; });
      const uint64_t cut = it != chunks.end() && it->first_offset <= target ? it->first_offset : target;
      if (cut > cuts.back() && cut < end) cuts.push_back(cut);
    }
  }
  cuts.push_back(end);
  const size_t ranges = cuts.size() - 1;

  Handover handover(sink, ranges, options.max_buffered_bytes, splittable ? end - begin : 0);
  std::vector<std::unique_ptr<Consumer>> consumers(ranges);
  consumers[0] = std::move(first);
  if (ranges > 1) {
    // The first consumer was opened on the whole range; bound it to the first cut.
    ConsumerOptions o = base;
    o.start = StartPosition::Offset(cuts[0]);
    o.end = EndPosition::Offset(cuts[1]);
    s = NewConsumer(o, &consumers[0]);
    if (!s.ok()) return s;
  }
  for (size_t k = 1; k < ranges; ++k) {
    ConsumerOptions o = base;
    o.start = StartPosition::Offset(cuts[k]);
    o.end = EndPosition::Offset(cuts[k + 1]);
    s = NewConsumer(o, &consumers[k]);
    if (!s.ok()) return s;
  }
  auto run = [&](size_t k) {
    Consumer& c = *consumers[k];
    Status status = Drain(c, handover, k, ranges == 1 && base.follow);
    handover.Finish(k, status, c.stats(), c.last_corruption());
  };
  std::vector<std::thread> workers;
  std::vector<size_t> on_caller;  // ranges no thread could be started for: run here, in order
  for (size_t k = 1; k < ranges; ++k) {
    try {
      workers.emplace_back(run, k);
    } catch (const std::system_error&) {
      on_caller.push_back(k);
    }
  }
  run(0);
  for (size_t k : on_caller) run(k);  // each is in turn by the time it runs, so it never waits
  for (std::thread& t : workers) t.join();

  if (stats != nullptr) {
    ParallelScanStats out;
    out.threads = static_cast<uint32_t>(ranges);
    for (size_t k = 0; k < ranges; ++k) {
      const ConsumerStats& c = handover.range(k).stats;
      out.consumer.scanned += c.scanned;
      out.consumer.matched += c.matched;
      out.consumer.bytes += c.bytes;
      out.consumer.chunks += c.chunks;
      out.consumer.chunks_corrupt += c.chunks_corrupt;
      out.consumer.chunks_pruned += c.chunks_pruned;
      out.consumer.bytes_pruned += c.bytes_pruned;
      out.consumer.summary_bytes_read += c.summary_bytes_read;
      out.consumer.retention_lost += c.retention_lost;
      out.consumer.retention_gaps += c.retention_gaps;
      if (!handover.range(k).last_corruption.ok()) out.last_corruption = handover.range(k).last_corruption;
    }
    out.consumer.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started);
    *stats = std::move(out);
  }
  return handover.Result();
}

}  // namespace sift
