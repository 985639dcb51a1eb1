// The reader pool of `sift serve`: reader threads take consumers from a queue, poll each for one
// bounded turn (Consumer::Poll with the time and byte bounds of ServeOptions), annotate each
// match with its offset (and the first after a retention gap with the offsets passed over) and post the
// deliveries to the connection; a consumer that caught up parks until its stream is appended to (the
// per-stream waiting lists).
#include "tools/serve/server_impl.h"

namespace sift::tools {

void Server::Impl::Schedule(std::shared_ptr<ConsumerLink> c) {
  {
    std::lock_guard<std::mutex> lock(read_mu);
    (c->large.load(std::memory_order_relaxed) ? read_queue_large : read_queue).push_back(std::move(c));
  }
  read_cv.notify_one();
}

uint64_t Server::Impl::AppendCount(const std::string& stream) {
  std::lock_guard<std::mutex> lock(waiters_mu);
  auto it = waiters.find(stream);
  return it == waiters.end() ? 0 : it->second.appends;
}

bool Server::Impl::AddWaiter(const std::string& stream) {
  std::lock_guard<std::mutex> lock(waiters_mu);
  StreamWaiters& w = waiters[stream];
  ++w.consumers;
  return large_streams.count(stream) > 0;
}

void Server::Impl::RemoveWaiter(const std::shared_ptr<ConsumerLink>& c) {
  std::lock_guard<std::mutex> lock(waiters_mu);
  auto it = waiters.find(c->stream);
  if (it == waiters.end()) return;
  auto& parked = it->second.parked;
  parked.erase(std::remove(parked.begin(), parked.end(), c), parked.end());
  if (--it->second.consumers == 0) waiters.erase(it);
}

void Server::Impl::Park(const std::shared_ptr<ConsumerLink>& c, uint64_t seen) {
  {
    std::lock_guard<std::mutex> lock(waiters_mu);
    auto it = waiters.find(c->stream);
    if (it == waiters.end()) return;  // closed meanwhile
    {
      std::lock_guard<std::mutex> clock(c->mu);
      if (c->closed) return;
    }
    if (it->second.appends == seen) {
      it->second.parked.push_back(c);
      return;
    }
  }
  Schedule(c);  // appended while we polled: look again
}

void Server::Impl::Appended(const std::string& stream) {
  std::vector<std::shared_ptr<ConsumerLink>> wake;
  {
    std::lock_guard<std::mutex> lock(waiters_mu);
    auto it = waiters.find(stream);
    if (it == waiters.end()) return;  // nobody reads it
    ++it->second.appends;
    wake.swap(it->second.parked);
  }
  for (auto& c : wake) {
    {
      std::lock_guard<std::mutex> lock(c->mu);
      c->caught_up = false;
    }
    Schedule(std::move(c));
  }
}

void Server::Impl::NotifyConsumer(const std::shared_ptr<ConsumerLink>& c) {
  std::shared_ptr<ConnState> conn = c->conn.lock();
  if (conn) conn->Post([&] { conn->ready.push_back(c); });
}

void Server::Impl::ReaderLoop() {
  for (;;) {
    std::shared_ptr<ConsumerLink> c;
    {
      std::unique_lock<std::mutex> lock(read_mu);
      read_cv.wait(lock, [&] { return read_stop || !read_queue.empty() || !read_queue_large.empty(); });
      if (read_stop) return;
      large_turn = !large_turn;
      auto& queue = read_queue_large.empty() || (!read_queue.empty() && !large_turn) ? read_queue : read_queue_large;
      c = std::move(queue.front());
      queue.pop_front();
    }
    PollConsumer(c);
  }
}

bool Server::Impl::ReadAgain(const std::shared_ptr<ConsumerLink>& c, std::string* error) {
  uint64_t offset = 0, skipped = 0;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed || c->pending.empty() || !c->pending.front().bytes.empty()) return true;
    offset = c->pending.front().offset;
    skipped = c->pending.front().skipped;
  }
  ConsumerOptions one;
  one.stream = c->stream;
  one.start = StartPosition::Offset(offset);
  one.end = EndPosition::Offset(offset + 1);
  one.credit = 1;
  std::unique_ptr<Consumer> reader;
  DeliveryBatch batch;
  Status s = engine->NewConsumer(one, &reader);
  if (s.ok()) s = reader->Poll(&batch);
  if (!s.ok()) {
    *error = s.ToString();
    return false;
  }
  std::string bytes;
  if (batch.size() != 1 || batch[0].offset() != offset) {
    *error = "offset " + std::to_string(offset) + " of stream '" + PrintableText(c->stream) +
             "' was deleted by retention while it was being sent";
    return false;
  }
  if (!AddOffsetAnnotation(batch[0].bytes(), offset, &bytes, skipped)) {
    *error = "corrupt message: stream " + PrintableText(c->stream) + ", offset " + std::to_string(offset);
    return false;
  }
  std::shared_ptr<ConnState> conn = c->conn.lock();
  std::lock_guard<std::mutex> lock(c->mu);
  if (c->closed || conn == nullptr || c->pending.empty() || c->pending.front().offset != offset) return true;
  PendingDelivery& front = c->pending.front();
  if (bytes.size() < front.sent) {
    *error = "offset " + std::to_string(offset) + " of stream '" + PrintableText(c->stream) +
             "' reads back shorter than the part already sent";
    return false;
  }
  ChargePending(c.get(), conn.get(), static_cast<int64_t>(bytes.size()));
  front.bytes = std::move(bytes);
  return true;
}

void Server::Impl::PollConsumer(const std::shared_ptr<ConsumerLink>& c) {
  std::shared_ptr<ConnState> conn = c->conn.lock();
  bool read_again = false;
  std::optional<uint64_t> rewind;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed || conn == nullptr) {
      c->polling = false;
      return;
    }
    // The event thread looked before scheduling; consumers of one connection queued together look
    // again here, each after the last one's batch was charged.
    if (!MayRead(*conn)) {
      c->consumer->Release();
      c->polling = false;
      conn->memory_wait.store(true, std::memory_order_relaxed);
      return;
    }
    read_again = !c->pending.empty() && c->pending.front().bytes.empty();
    if (!read_again) {
      rewind.swap(c->rewind);
      c->retention_untold += std::exchange(c->rewind_untold, 0);
    }
  }
  if (read_again) {
    std::string error;
    const bool ok = ReadAgain(c, &error);
    {
      std::lock_guard<std::mutex> lock(c->mu);
      c->polling = false;
      if (!ok) {
        c->failed = true;
        c->error = Status::Corruption("cannot send a delivery", "stream " + c->stream, error);
      }
    }
    NotifyConsumer(c);
    return;
  }
  if (rewind.has_value()) {
    // What was read ahead was dropped under memory pressure: start again at its first offset.
    ConsumerOptions o = c->options;
    o.start = StartPosition::Offset(*rewind);
    std::unique_ptr<Consumer> fresh;
    Status s = engine->NewConsumer(o, &fresh);
    if (!s.ok()) {
      {
        std::lock_guard<std::mutex> lock(c->mu);
        c->polling = false;
        c->failed = true;
        c->error = s;
      }
      NotifyConsumer(c);
      return;
    }
    const ConsumerStats& old = c->consumer->stats();
    c->stats_before.scanned += old.scanned;
    c->stats_before.matched += old.matched;
    c->stats_before.chunks_pruned += old.chunks_pruned;
    c->stats_before.retention_lost += old.retention_lost;
    c->stats_before.retention_gaps += old.retention_gaps;
    c->consumer = std::move(fresh);
  }
  const uint64_t seen = AppendCount(c->stream);
  const uint64_t before = c->consumer->position();
  Status s = c->consumer->Poll(&c->batch);
  std::vector<PendingDelivery> out;
  out.reserve(c->batch.size());
  uint64_t polled_bytes = 0, largest = 0;
  // A poll passes at most one gap; deliveries from before it come first in the batch. What earlier polls
  // passed goes on this batch's first delivery, this poll's gap on the first delivery after it, and
  // what no delivery has told yet waits for the next batch.
  RetentionGap gap = c->consumer->retention_gap();
  for (const Delivery& d : c->batch) {
    if (!gap.empty() && d.offset() >= gap.end) {
      c->retention_untold += gap.count();
      gap = {};
    }
    PendingDelivery p;
    p.offset = d.offset();
    p.skipped = std::exchange(c->retention_untold, 0);
    if (!AddOffsetAnnotation(d.bytes(), d.offset(), &p.bytes, p.skipped)) {
      s = Status::Corruption("corrupt message", "stream " + c->stream + ", offset " + std::to_string(d.offset()),
                             "the stored bytes are not well-formed sections");
      break;
    }
    polled_bytes += p.bytes.size();
    largest = std::max<uint64_t>(largest, p.bytes.size());
    out.push_back(std::move(p));
  }
  c->retention_untold += gap.count();
  if (!out.empty()) {
    const bool large = largest > kConsumerBatchBytes;
    if (c->large.exchange(large, std::memory_order_relaxed) != large && large) {
      std::lock_guard<std::mutex> lock(waiters_mu);
      large_streams.insert(c->stream);
    }
  }
  // The batch's bytes now live on in `out`: a consumer that read large messages does not keep a second
  // copy of them while it waits for credit or for its socket, which is memory counted nowhere.
  if (polled_bytes > kConsumerBatchBytes / 4) {
    c->batch.Release();
  } else {
    c->batch.Clear();
  }
  const ConsumerStats& stats = c->consumer->stats();
  const ConsumerStats& base = c->stats_before;
  c->metrics->scanned.store(base.scanned + stats.scanned, std::memory_order_relaxed);
  c->metrics->matched.store(base.matched + stats.matched, std::memory_order_relaxed);
  c->metrics->chunks_pruned.store(base.chunks_pruned + stats.chunks_pruned, std::memory_order_relaxed);
  c->metrics->retention_lost.store(base.retention_lost + stats.retention_lost, std::memory_order_relaxed);
  c->metrics->retention_gaps.store(base.retention_gaps + stats.retention_gaps, std::memory_order_relaxed);
  c->metrics->position.store(c->consumer->position(), std::memory_order_release);  // after the counters
  // Until its next turn (credit, a drained socket, an append) the consumer holds no store reader (an
  // iterator, a decompression context and the last chunk) and no read buffer: with tens of thousands
  // of links, what each kept between turns was GBs (bench/DECISIONS.md, "Consumers' memory"). The
  // next poll seeks again. A full batch says more is waiting: that consumer keeps them for a turn that
  // comes soon (the event thread releases it if it does not; re-seeking every turn slowed a consumer
  // of every message). Done here, while this thread
  // still owns the consumer (`polling`): once that is cleared another reader may poll it.
  const bool full = out.size() >= kConsumerBatch || polled_bytes >= kConsumerBatchBytes;
  const bool again = s.ok() && out.empty() && !c->consumer->done() && c->consumer->position() != before;
  if (!full && !again) {
    c->consumer->Release();
    c->batch.Release();
  }
  bool notify = !out.empty();
  bool requeue = false, park = false;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) {
      c->polling = false;
      return;
    }
    ChargePending(c.get(), conn.get(), static_cast<int64_t>(polled_bytes));
    for (auto& o : out) c->pending.push_back(std::move(o));
    if (!s.ok()) {
      c->failed = true;
      c->error = s;
      c->polling = false;
      notify = true;
    } else if (out.empty() && !c->consumer->done()) {
      if (c->consumer->position() != before) {
        requeue = true;  // the scan budget ran out in a run of rejected messages
      } else {
        park = true;
        c->caught_up = true;
        notify = true;  // a drain request may be answered now
      }
    } else {
      c->polling = false;
    }
  }
  if (requeue) Schedule(c);
  if (park) Park(c, seen);
  if (notify) NotifyConsumer(c);
}

}  // namespace sift::tools
