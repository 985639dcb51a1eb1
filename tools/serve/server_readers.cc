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
    read_queue.push_back(std::move(c));
  }
  read_cv.notify_one();
}

uint64_t Server::Impl::AppendCount(const std::string& stream) {
  std::lock_guard<std::mutex> lock(waiters_mu);
  auto it = waiters.find(stream);
  return it == waiters.end() ? 0 : it->second.appends;
}

void Server::Impl::AddWaiter(const std::string& stream) {
  std::lock_guard<std::mutex> lock(waiters_mu);
  ++waiters[stream].consumers;
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
      read_cv.wait(lock, [&] { return read_stop || !read_queue.empty(); });
      if (read_stop) return;
      c = std::move(read_queue.front());
      read_queue.pop_front();
    }
    PollConsumer(c);
  }
}

void Server::Impl::PollConsumer(const std::shared_ptr<ConsumerLink>& c) {
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) {
      c->polling = false;
      return;
    }
  }
  const uint64_t seen = AppendCount(c->stream);
  const uint64_t before = c->consumer->position();
  Status s = c->consumer->Poll(&c->batch);
  std::vector<std::pair<uint64_t, std::string>> out;
  out.reserve(c->batch.size());
  uint64_t polled_bytes = 0;
  // A poll passes at most one gap; deliveries from before it come first in the batch. What earlier polls
  // passed goes on this batch's first delivery, this poll's gap on the first delivery after it, and
  // what no delivery has told yet waits for the next batch.
  RetentionGap gap = c->consumer->retention_gap();
  for (const Delivery& d : c->batch) {
    if (!gap.empty() && d.offset() >= gap.end) {
      c->retention_untold += gap.count();
      gap = {};
    }
    std::string bytes;
    const uint64_t skipped = std::exchange(c->retention_untold, 0);
    if (!AddOffsetAnnotation(d.bytes(), d.offset(), &bytes, skipped)) {
      s = Status::Corruption("corrupt message", "stream " + c->stream + ", offset " + std::to_string(d.offset()),
                             "the stored bytes are not well-formed sections");
      break;
    }
    polled_bytes += bytes.size();
    out.emplace_back(d.offset(), std::move(bytes));
  }
  c->retention_untold += gap.count();
  // The batch's bytes now live on in `out`: a consumer that read large messages does not keep a second
  // copy of them while it waits for credit or for its socket (128 consumers that read nothing over
  // 1 MB messages held about 128 MB that way, counted nowhere).
  if (polled_bytes > kConsumerBatchBytes / 4) {
    c->batch.Release();
  } else {
    c->batch.Clear();
  }
  const ConsumerStats& stats = c->consumer->stats();
  c->metrics->scanned.store(stats.scanned, std::memory_order_relaxed);
  c->metrics->matched.store(stats.matched, std::memory_order_relaxed);
  c->metrics->chunks_pruned.store(stats.chunks_pruned, std::memory_order_relaxed);
  c->metrics->retention_lost.store(stats.retention_lost, std::memory_order_relaxed);
  c->metrics->retention_gaps.store(stats.retention_gaps, std::memory_order_relaxed);
  c->metrics->position.store(c->consumer->position(), std::memory_order_release);  // after the counters
  bool notify = !out.empty();
  bool requeue = false, park = false;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed) {
      c->polling = false;
      return;
    }
    c->pending_bytes += polled_bytes;
    flow.AddOutbound(static_cast<int64_t>(polled_bytes));
    for (auto& o : out) c->pending.push_back(std::move(o));
    if (c->closed) {
      c->polling = false;
      return;
    }
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
