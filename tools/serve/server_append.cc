// The append worker of `sift serve`: takes every transfer that arrived meanwhile, appends each
// stream's share with one StreamEngine::AppendEach, makes the round durable with one fsync (group
// commit) and posts the outcomes back; and the retention timer, which applies every stream's
// retention on an interval.
#include <malloc.h>

#include "tools/serve/server_impl.h"

namespace sift::tools {

void Server::Impl::AppendLoop() {
  std::vector<AppendJob> jobs;
  std::unordered_map<std::string, StreamCounters*> counters;  // looked up once per stream, lock-free after
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(append_mu);
      append_cv.wait(lock, [&] { return append_stop || !append_queue.empty(); });
      if (append_queue.empty()) return;  // stopping, and nothing left
      if (append_queue.size() <= kMaxAppendRound) {
        jobs.swap(append_queue);
      } else {
        jobs.assign(std::make_move_iterator(append_queue.begin()),
                    std::make_move_iterator(append_queue.begin() + kMaxAppendRound));
        append_queue.erase(append_queue.begin(), append_queue.begin() + kMaxAppendRound);
      }
    }
    int64_t bytes = 0;
    for (const AppendJob& job : jobs) bytes += static_cast<int64_t>(job.bytes.size());
    AppendRound(jobs, counters);
    flow.AddInbound(-bytes);
    in_flight -= jobs.size();
    jobs.clear();
  }
}

void Server::Impl::AppendRound(std::vector<AppendJob>& jobs,
                               std::unordered_map<std::string, StreamCounters*>& counters) {
  std::vector<AppendResult> results(jobs.size());
  std::map<std::string_view, std::vector<size_t>> groups;
  for (size_t i = 0; i < jobs.size(); ++i) {
    results[i].delivery = jobs[i].delivery;
    results[i].link = jobs[i].link;
    results[i].producer_id = jobs[i].producer_id;
    groups[jobs[i].stream_copy].push_back(i);
  }
  bool appended = false;
  std::vector<std::string_view> views;
  std::vector<AppendOutcome> outcomes;
  for (auto& [stream, indexes] : groups) {
    views.clear();
    for (size_t i : indexes) views.push_back(jobs[i].bytes);
    // The engine validates each message and refuses a malformed (or too large) one alone; a failed
    // write is in the outcome of every message it concerned.
    (void)engine->AppendEach(stream, views, &outcomes);
    for (size_t k = 0; k < indexes.size(); ++k) {
      const Status& one = outcomes[k].status;
      AppendResult& r = results[indexes[k]];
      if (one.ok()) {
        r.accepted = true;
        appended = true;
        continue;
      }
      const bool refused = one.IsMalformed() || one.IsNotFound() || one.IsInputError();
      (refused ? metrics.appends_rejected : metrics.appends_failed).fetch_add(1, std::memory_order_relaxed);
      r.store_failed = !refused;
      r.condition = one.IsMalformed()    ? "amqp:decode-error"
                    : one.IsNotFound()   ? "amqp:not-found"
                    : one.IsInputError() ? "amqp:invalid-field"
                                         : "amqp:internal-error";
      r.description = one.ToString();  // "malformed message: byte 6: 1 trailing byte after the last section"
    }
  }
  if (appended && options.sync) {
    const auto flush_start = std::chrono::steady_clock::now();
    Status f = engine->Flush();
    metrics.fsync.Observe(std::chrono::steady_clock::now() - flush_start);
    if (!f.ok()) {
      for (AppendResult& r : results) {
        if (!r.accepted) continue;
        metrics.appends_failed.fetch_add(1, std::memory_order_relaxed);
        r.accepted = false;
        r.store_failed = true;
        r.condition = "amqp:internal-error";
        r.description = "the append could not be made durable: " + f.ToString();
      }
    }
  }
  // Counted once durable (what the producers are told was appended).
  for (auto& [stream, indexes] : groups) {
    StreamCounters*& counted = counters[std::string(stream)];
    if (counted == nullptr) counted = metrics.Stream(std::string(stream));
    for (size_t i : indexes) {
      if (!results[i].accepted) continue;
      counted->appended_messages.fetch_add(1, std::memory_order_relaxed);
      counted->appended_bytes.fetch_add(jobs[i].bytes.size(), std::memory_order_relaxed);
    }
    Appended(std::string(stream));
  }
  LogStoreHealth();
  // Post outcomes, grouped by connection, in transfer order.
  std::unordered_map<ConnState*, std::vector<size_t>> by_conn;
  for (size_t i = 0; i < jobs.size(); ++i) by_conn[jobs[i].conn.get()].push_back(i);
  for (auto it = by_conn.begin(); it != by_conn.end(); ++it) {
    ConnState* conn = it->first;
    const std::vector<size_t>& indexes = it->second;
    conn->Post([&] {
      for (size_t i : indexes) conn->results.push_back(std::move(results[i]));
    });
  }
}

void Server::Impl::RetentionLoop() {
  // Retention on its timer (none with --retention-interval 0). While the store takes no appends,
  // producers get no credit, so no append comes to try the store again: this loop does, every
  // kStoreRecoveryRetry, so that appends resume soon after space returns (a try also applies
  // retention, which frees space).
  const auto interval = std::chrono::milliseconds(options.retention_interval_ms);
  auto next_retention = Clock::now() + interval;
  std::string last_error;
  std::unique_lock<std::mutex> lock(retention_mu);
  while (!retention_cv.wait_for(lock, kStoreRecoveryRetry, [&] { return retention_stop; })) {
    // Off the event thread: trimming walks the heap's free blocks (milliseconds after a large burst).
    if (trim_requested.exchange(false)) malloc_trim(0);
    const bool retention_due = interval.count() > 0 && Clock::now() >= next_retention;
    if (!retention_due && store_writable.load()) continue;
    if (retention_due) next_retention = Clock::now() + interval;
    lock.unlock();
    Status s = engine->EnforceRetention();
    LogStoreHealth();
    if (!s.ok() && s.ToString() != last_error) {
      last_error = s.ToString();
      PrintError("", "", last_error);
    } else if (s.ok()) {
      last_error.clear();
    }
    lock.lock();
  }
}

}  // namespace sift::tools
