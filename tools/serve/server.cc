// The event loop, the append worker and the consumer readers of `sift serve` (see server.h).
//
// AMQP behaviour (core part 2 and part 3 section numbers):
// - producer link (we are the receiver, 2.6): target address = stream; credit window
//   ServeOptions::producer_credit, topped up as appends are acknowledged, so a slow disk slows
//   producers instead of growing memory; each transfer is settled with accepted / rejected (3.4) after
//   the worker reports it durable or malformed, or modified with delivery-failed (3.4.5) when the
//   store failed (a transient outcome: the client may resend).
// - consumer link (we are the sender): source address = stream, filter-set (3.5.8) parsed by
//   link_filter.h and echoed in place with the source capabilities AMQP_FILTEX_PROP_V1_0 and
//   AMQP_FILTEX_SQL_V1_0; a bad filter refuses the link: attach with a null source, then detach with
//   amqp:invalid-field (2.6.3). Deliveries are sent only against credit (2.6.7), pre-settled when the
//   receiver asked for snd-settle-mode settled; a drain request is answered once caught up.
// - resource limits (docs/serve.md, "Resource limits"): credit counted and enforced
//   (amqp:link:transfer-limit-exceeded), output per connection capped, the memory and disk alarms of
//   flow_control.h withhold producer credit, handshakes have a deadline and a cap of their own, links
//   and sessions are freed once closed, reader turns are time-sliced.
#include "tools/serve/server.h"

#include <proton/condition.h>
#include <proton/connection.h>
#include <proton/delivery.h>
#include <proton/disposition.h>
#include <proton/event.h>
#include <proton/link.h>
#include <proton/listener.h>
#include <proton/netaddr.h>
#include <proton/proactor.h>
#include <proton/sasl.h>
#include <proton/session.h>
#include <proton/ssl.h>
#include <proton/terminus.h>
#include <proton/transport.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/serve/flow_control.h"
#include "tools/serve/link_filter.h"
#include "tools/serve/metrics.h"
#include "tools/serve/metrics_endpoint.h"
#include "tools/serve/offset_annotation.h"
#include "tools/serve/printable_text.h"
#include "tools/serve/user_id_check.h"

namespace sift::tools {
namespace {

using engine::Status;

constexpr uint32_t kConsumerBatch = 256;   // deliveries one poll may produce ahead of credit
constexpr size_t kMaxAppendRound = 16384;  // transfers one group commit takes at most
// Message bytes one poll may produce ahead of credit (a single larger message still goes alone).
constexpr uint64_t kConsumerBatchBytes = 1u << 20;
// The event loop's timer: handshake deadlines, alarms, and output-blocked connections (faster).
constexpr int kTickMs = 100;
constexpr int kBlockedTickMs = 10;
// How often the store's free disk space is looked at.
constexpr auto kDiskCheckInterval = std::chrono::seconds(1);

using Clock = std::chrono::steady_clock;

struct ConnState;

struct ConsumerLink {
  std::weak_ptr<ConnState> conn;
  pn_link_t* link = nullptr;  // event thread only
  std::string stream;
  std::unique_ptr<engine::Consumer> consumer;  // used by whoever holds `polling`
  engine::DeliveryBatch batch;                 // reader scratch
  std::string scratch;

  std::mutex mu;                                         // guards the fields below
  std::deque<std::pair<uint64_t, std::string>> pending;  // annotated deliveries awaiting credit
  uint64_t pending_bytes = 0;                            // their size, counted in FlowControl outbound
  bool polling = false;    // queued, being polled, or parked: the event thread must not schedule it
  bool caught_up = false;  // parked at the end of the stream
  bool closed = false;     // the link or the connection is gone
  bool failed = false;
  Status error;
  std::shared_ptr<ConsumerCounters> metrics;  // never null once attached
};

struct ProducerLink {
  uint64_t id = 0;  // unique in the server: results of a freed link's transfers are recognised by it
  std::string stream;
  std::string buffer;  // bytes of the transfer being received
  bool too_large = false;
  uint32_t outstanding = 0;            // transfers handed to the worker, not settled yet
  int64_t credit_left = 0;             // credit granted and not yet used, as we count it (a peer may overrun it)
  pn_delivery_t* receiving = nullptr;  // the transfer whose frames are arriving
  bool closed = false;
  GaugeHold open;  // in ServeMetrics::producer_links until closed
};

struct AppendResult {
  pn_delivery_t* delivery = nullptr;
  pn_link_t* link = nullptr;
  uint64_t producer_id = 0;
  bool accepted = false;
  // Not accepted because the store failed (an I/O error, a full disk, a fenced stream), not because of
  // the message: settled `modified` with delivery-failed, so the client may send it again.
  bool store_failed = false;
  const char* condition = nullptr;
  std::string description;
};

struct ConnState {
  pn_connection_t* connection = nullptr;
  std::mutex mu;  // guards alive, results, ready and the requests
  bool alive = true;
  bool close_requested = false;
  bool handshake_expired = false;  // close the socket: no open within the deadline, or evicted
  bool topup_requested = false;    // an alarm cleared: grant producers their credit
  bool refresh_requested = false;  // look at the queued output again (the socket may have drained)
  std::vector<AppendResult> results;
  std::vector<std::shared_ptr<ConsumerLink>> ready;

  // Event thread only.
  std::unordered_map<pn_link_t*, std::unique_ptr<ProducerLink>> producers;
  std::unordered_map<pn_link_t*, std::shared_ptr<ConsumerLink>> consumers;
  uint32_t links = 0;
  uint32_t sessions = 0;
  bool over_limit = false;
  std::string refused_as;       // the condition the connection was refused with, if it was
  std::string user;             // who authenticated (set at the peer's open; "anonymous" without SASL)
  uint64_t handshake_seq = 0;   // key in Impl::handshakes while the open has not arrived
  bool opened = false;          // the peer's open arrived
  bool counted = false;         // counts against --max-connections and its address's limit
  std::string address;          // the peer's host
  uint64_t output = 0;          // queued output (Proton's), as last counted in FlowControl outbound
  bool output_blocked = false;  // output reached --max-connection-output: consumers wait
  GaugeHold open;               // in ServeMetrics::connections_open until the transport closes

  // From any thread: post work and wake the connection; false when it is gone.
  template <typename F>
  bool Post(F&& f) {
    std::lock_guard<std::mutex> lock(mu);
    if (!alive) return false;
    f();
    pn_connection_wake(connection);
    return true;
  }
};

struct AppendJob {
  std::shared_ptr<ConnState> conn;
  pn_delivery_t* delivery = nullptr;
  pn_link_t* link = nullptr;
  uint64_t producer_id = 0;
  std::string stream_copy;  // the job may outlive its link (freed when the peer detaches)
  std::string bytes;
};

struct StreamWaiters {
  uint64_t appends = 0;    // bumped after every append round that touched the stream
  uint32_t consumers = 0;  // consumers of the stream; the entry goes with the last
  std::vector<std::shared_ptr<ConsumerLink>> parked;
};

void SetCondition(pn_condition_t* c, const char* name, const std::string& description) {
  pn_condition_set_name(c, name);
  pn_condition_set_description(c, description.c_str());
}

void PutCapabilities(pn_data_t* data) {
  pn_data_clear(data);
  pn_data_put_array(data, false, PN_SYMBOL);
  pn_data_enter(data);
  pn_data_put_symbol(data, pn_bytes(21, "AMQP_FILTEX_PROP_V1_0"));
  pn_data_put_symbol(data, pn_bytes(20, "AMQP_FILTEX_SQL_V1_0"));
  pn_data_exit(data);
}

std::string TerminusAddress(pn_terminus_t* t) {
  const char* a = pn_terminus_get_address(t);
  return a ? std::string(a) : std::string();
}

}  // namespace

struct Server::Impl {
  ServeOptions options;
  engine::StreamEngine* engine;
  const Authenticator* authenticator;
  pn_ssl_domain_t* ssl;
  ServeMetrics metrics;  // declared early: outlives everything that counts in it
  std::unique_ptr<MetricsEndpoint> metrics_endpoint;

  pn_proactor_t* proactor = nullptr;
  pn_listener_t* listener = nullptr;
  std::unordered_map<pn_connection_t*, std::shared_ptr<ConnState>> conns;  // event thread
  // Event thread: sockets whose open has not arrived, oldest first; connections counted against the
  // limits, in all and per address.
  std::map<uint64_t, std::pair<Clock::time_point, pn_connection_t*>> handshakes;
  uint64_t next_handshake_seq = 0;
  uint32_t open_connections = 0;
  std::unordered_map<std::string, uint32_t> per_address;
  uint64_t next_producer_id = 1;
  FlowControl flow;
  bool credit_withheld = false;
  Clock::time_point next_disk_check;
  std::string store_path;
  int exit_code = 0;
  bool shutting_down = false;
  bool closing_connections = false;
  std::chrono::steady_clock::time_point shutdown_deadline;

  // Append worker.
  std::mutex append_mu;
  std::condition_variable append_cv;
  std::vector<AppendJob> append_queue;
  bool append_stop = false;
  std::atomic<uint64_t> in_flight{0};
  std::thread append_thread;

  // Readers.
  std::mutex read_mu;
  std::condition_variable read_cv;
  std::deque<std::shared_ptr<ConsumerLink>> read_queue;
  bool read_stop = false;
  std::vector<std::thread> readers;

  std::mutex waiters_mu;
  std::unordered_map<std::string, StreamWaiters> waiters;

  // Retention timer.
  std::mutex retention_mu;
  std::condition_variable retention_cv;
  bool retention_stop = false;
  std::thread retention_thread;

  Impl(const ServeOptions& o, engine::StreamEngine* e, const Authenticator* a, pn_ssl_domain_t* s)
      : options(o), engine(e), authenticator(a), ssl(s), flow(o.memory_budget, o.min_disk_free), store_path(o.store) {}

  std::atomic<bool> store_writable{true};  // as last logged (LogStoreHealth)

  void Log(const char* format, const std::string& what) {
    if (options.verbose) fprintf(stderr, format, what.c_str());
  }

  // ---- readers ----

  void Schedule(std::shared_ptr<ConsumerLink> c) {
    {
      std::lock_guard<std::mutex> lock(read_mu);
      read_queue.push_back(std::move(c));
    }
    read_cv.notify_one();
  }

  uint64_t AppendCount(const std::string& stream) {
    std::lock_guard<std::mutex> lock(waiters_mu);
    auto it = waiters.find(stream);
    return it == waiters.end() ? 0 : it->second.appends;
  }

  void AddWaiter(const std::string& stream) {
    std::lock_guard<std::mutex> lock(waiters_mu);
    ++waiters[stream].consumers;
  }

  // The consumer is closed (c.closed already set): out of the parked list, and the stream's entry
  // goes with its last consumer.
  void RemoveWaiter(const std::shared_ptr<ConsumerLink>& c) {
    std::lock_guard<std::mutex> lock(waiters_mu);
    auto it = waiters.find(c->stream);
    if (it == waiters.end()) return;
    auto& parked = it->second.parked;
    parked.erase(std::remove(parked.begin(), parked.end(), c), parked.end());
    if (--it->second.consumers == 0) waiters.erase(it);
  }

  void Park(const std::shared_ptr<ConsumerLink>& c, uint64_t seen) {
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

  void Appended(const std::string& stream) {
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

  void NotifyConsumer(const std::shared_ptr<ConsumerLink>& c) {
    std::shared_ptr<ConnState> conn = c->conn.lock();
    if (conn) conn->Post([&] { conn->ready.push_back(c); });
  }

  void ReaderLoop() {
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

  void PollConsumer(const std::shared_ptr<ConsumerLink>& c) {
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
    for (const engine::Delivery& d : c->batch) {
      std::string bytes;
      if (!AddOffsetAnnotation(d.bytes(), d.offset(), &bytes)) {
        s = Status::Corruption("corrupt message", "stream " + c->stream + ", offset " + std::to_string(d.offset()),
                               "the stored bytes are not well-formed sections");
        break;
      }
      out.emplace_back(d.offset(), std::move(bytes));
    }
    c->batch.Clear();
    const engine::ConsumerStats& stats = c->consumer->stats();
    c->metrics->scanned.store(stats.scanned, std::memory_order_relaxed);
    c->metrics->matched.store(stats.matched, std::memory_order_relaxed);
    c->metrics->chunks_pruned.store(stats.chunks_pruned, std::memory_order_relaxed);
    c->metrics->position.store(c->consumer->position(), std::memory_order_release);  // after the counters
    bool notify = !out.empty();
    bool requeue = false, park = false;
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->closed) {
        c->polling = false;
        return;
      }
      for (auto& o : out) {
        c->pending_bytes += o.second.size();
        flow.AddOutbound(static_cast<int64_t>(o.second.size()));
        c->pending.push_back(std::move(o));
      }
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

  // ---- append worker ----

  void AppendLoop() {
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

  void AppendRound(std::vector<AppendJob>& jobs, std::unordered_map<std::string, StreamCounters*>& counters) {
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
    std::vector<engine::AppendOutcome> outcomes;
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

  // ---- retention timer ----

  // Applies every stream's retention every options.retention_interval_ms until stopped. A failure is
  // logged (once until the error changes) and tried again at the next tick.
  void RetentionLoop() {
    const auto interval = std::chrono::milliseconds(options.retention_interval_ms);
    std::string last_error;
    std::unique_lock<std::mutex> lock(retention_mu);
    while (!retention_cv.wait_for(lock, interval, [&] { return retention_stop; })) {
      lock.unlock();
      Status s = engine->EnforceRetention();
      LogStoreHealth();
      if (!s.ok() && s.ToString() != last_error) {
        last_error = s.ToString();
        fprintf(stderr, "sift: %s\n", last_error.c_str());
      } else if (s.ok()) {
        last_error.clear();
      }
      lock.lock();
    }
  }

  // ---- metrics ----

  // Serves options.metrics (validated HOST:PORT) on a thread of its own; prints where, on stdout, as
  // the AMQP listener does. False after printing why it cannot listen.
  bool StartMetrics() {
    const std::string& where = options.metrics;
    const size_t colon = where.rfind(':');
    std::string host = where.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    metrics_endpoint =
        std::make_unique<MetricsEndpoint>([this] { return RenderPrometheusText(metrics.Collect(engine)); });
    std::string error;
    if (!metrics_endpoint->Start(host, where.substr(colon + 1), &error)) {
      fprintf(stderr, "sift: cannot listen: --metrics %s: %s\n", where.c_str(), error.c_str());
      return false;
    }
    printf("sift serve: metrics on http://%s/metrics\n", metrics_endpoint->address().c_str());
    fflush(stdout);
    return true;
  }

  // ---- event thread ----

  ConnState* Conn(pn_connection_t* c) {
    auto it = conns.find(c);
    return it == conns.end() ? nullptr : it->second.get();
  }

  void OnAccept(pn_listener_t* l) {
    pn_connection_t* c = pn_connection();
    pn_transport_t* t = pn_transport();
    pn_transport_set_server(t);  // before pn_sasl and pn_ssl: they take their role from it
    pn_transport_set_max_frame(t, options.max_frame_size);
    pn_transport_set_channel_max(t, static_cast<uint16_t>(options.max_sessions - 1));
    // Proton then sends empty frames often enough for the peer's idle timeout, and closes a peer
    // silent for ours (core 2.4.5).
    if (options.idle_timeout_ms > 0)
      pn_transport_set_idle_timeout(t, static_cast<pn_millis_t>(options.idle_timeout_ms));
    if (ssl != nullptr) pn_ssl_init(pn_ssl(t), ssl, nullptr);
    authenticator->Attach(t);
    auto state = std::make_shared<ConnState>();
    state->connection = c;
    state->handshake_seq = next_handshake_seq++;
    state->open = GaugeHold(&metrics.connections_open);
    conns[c] = state;
    pn_listener_accept2(l, c, t);
    // Sockets that have not opened yet do not count against --max-connections (so they cannot lock
    // real clients out); they have their own cap, and the oldest makes room for the newest.
    if (handshakes.size() >= options.max_handshakes) {
      auto oldest = handshakes.begin();
      ExpireHandshake(oldest->second.second, "too many sockets in their handshake (limit " +
                                                 std::to_string(options.max_handshakes) + "); closed the oldest");
      handshakes.erase(oldest);
    }
    handshakes[state->handshake_seq] = {Clock::now(), c};
  }

  // Asks the connection's own event batch to close its socket (another connection's transport is
  // not ours to touch here).
  void ExpireHandshake(pn_connection_t* c, const std::string& why) {
    ConnState* s = Conn(c);
    if (s == nullptr) return;
    Log("sift serve: %s\n", why);
    s->Post([s] { s->handshake_expired = true; });
  }

  std::string PeerHost(pn_connection_t* c) {
    pn_transport_t* t = pn_connection_transport(c);
    const pn_netaddr_t* addr = t ? pn_transport_remote_addr(t) : nullptr;
    char host[256] = "", port[32] = "";
    if (addr != nullptr) pn_netaddr_host_port(addr, host, sizeof host, port, sizeof port);
    return host;
  }

  void OnConnectionOpen(pn_connection_t* c) {
    ConnState* s = Conn(c);
    pn_connection_set_container(c, "sift-serve");
    PutCapabilities(pn_connection_offered_capabilities(c));
    pn_connection_open(c);
    if (s == nullptr) return;
    s->opened = true;
    handshakes.erase(s->handshake_seq);
    s->address = PeerHost(c);
    // Only an admitted client counts against the connection limits.
    pn_transport_t* t = pn_connection_transport(c);
    const char* user = pn_transport_get_user(t);
    s->user = user != nullptr ? user : std::string(kAnonymousUser);
    std::string why;
    if (!authenticator->Admits(t, s->user, &why)) {  // a client that skipped SASL
      fprintf(stderr, "sift serve: login failed: %s: user '%s' (no SASL): %s\n", PeerName(t).c_str(),
              PrintableText(s->user).c_str(), why.c_str());
      SetCondition(pn_connection_condition(c), "amqp:unauthorized-access", why);
      s->refused_as = "amqp:unauthorized-access";
      pn_connection_close(c);
      return;
    }
    std::string refusal;
    if (open_connections >= options.max_connections) {
      refusal = "too many connections (limit " + std::to_string(options.max_connections) + ")";
    } else if (options.max_connections_per_address > 0 &&
               per_address[s->address] >= options.max_connections_per_address) {
      refusal = "too many connections from " + s->address + " (limit " +
                std::to_string(options.max_connections_per_address) + ")";
    }
    if (!refusal.empty()) {
      if (per_address[s->address] == 0) per_address.erase(s->address);
      s->over_limit = true;
      s->refused_as = "amqp:resource-limit-exceeded";
      SetCondition(pn_connection_condition(c), "amqp:resource-limit-exceeded", refusal);
      pn_connection_close(c);
      return;
    }
    s->counted = true;
    ++open_connections;
    ++per_address[s->address];
  }

  // False after refusing the link when the connection's user lacks `permission` on `stream`.
  bool Authorize(pn_link_t* link, Permission permission, const std::string& stream) {
    ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
    const std::string user = s != nullptr ? s->user : std::string(kAnonymousUser);
    if (s != nullptr && authenticator->Allows(user, permission, stream)) return true;
    Refuse(link, "amqp:unauthorized-access",
           "user '" + user + "' may not " + PermissionName(permission) + " stream '" + stream + "' (no '" +
               PermissionName(permission) + "' permission on it)");
    return false;
  }

  void OnSessionOpen(pn_session_t* session) {
    ConnState* s = Conn(pn_session_connection(session));
    pn_session_open(session);
    if (s == nullptr) return;
    if (++s->sessions > options.max_sessions) {
      SetCondition(pn_session_condition(session), "amqp:resource-limit-exceeded",
                   "too many sessions on this connection (limit " + std::to_string(options.max_sessions) + ")");
      pn_session_close(session);
    }
  }

  void OnSessionClose(pn_session_t* session) {
    ConnState* s = Conn(pn_session_connection(session));
    if (s != nullptr) {
      if (s->sessions > 0) --s->sessions;
      // Links of an ended session end with it (core 2.7.7 end): stop their consumers.
      for (auto it = s->consumers.begin(); it != s->consumers.end();) {
        if (pn_link_session(it->first) == session) {
          CloseConsumer(it->second);
          it = s->consumers.erase(it);
          if (s->links > 0) --s->links;
        } else {
          ++it;
        }
      }
      for (auto it = s->producers.begin(); it != s->producers.end();) {
        if (pn_link_session(it->first) == session) {
          if (!it->second->closed && s->links > 0) --s->links;
          it->second->open.Release();
          it = s->producers.erase(it);
        } else {
          ++it;
        }
      }
    }
    pn_session_close(session);
    // Proton keeps the session (and frees its links) until the end frame is written; our maps no
    // longer name any of them, and results of their transfers are recognised by producer id.
    pn_session_free(session);
  }

  void Refuse(pn_link_t* link, const char* condition, const std::string& description) {
    // Core 2.6.3: a refused attach is answered with a null terminus on our side, then a detach.
    if (pn_link_is_sender(link)) {
      pn_terminus_set_type(pn_link_source(link), PN_UNSPECIFIED);
      pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
    } else {
      pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
      pn_terminus_set_type(pn_link_target(link), PN_UNSPECIFIED);
    }
    pn_link_open(link);
    SetCondition(pn_link_condition(link), condition, description);
    pn_link_close(link);
    Log("sift serve: refused link: %s\n", description);
  }

  // Makes sure `stream` exists (creating it under auto-create); false after refusing the link.
  bool EnsureStream(pn_link_t* link, const std::string& stream) {
    engine::StreamInfo info;
    Status s = engine->GetStreamInfo(stream, &info);
    if (s.ok()) return true;
    if (s.IsNotFound() && options.auto_create) {
      if (!Authorize(link, kPermissionCreate, stream)) return false;
      s = engine->CreateStream(stream,
                               engine::RetentionPolicy{options.retention_max_bytes, options.retention_max_age_ms});
    }
    if (s.ok()) return true;
    if (s.IsNotFound()) {
      Refuse(link, "amqp:not-found", "no stream '" + stream + "' (the server runs with --no-auto-create)");
    } else {
      Refuse(link, s.IsInputError() ? "amqp:invalid-field" : "amqp:internal-error",
             "stream '" + stream + "': " + s.ToString());
    }
    return false;
  }

  void OnLinkOpen(pn_link_t* link) {
    ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
    if (s == nullptr) return;
    if (!s->counted) {  // attached before the server's close of a refused connection reached the peer
      Refuse(link, s->refused_as.empty() ? "amqp:unauthorized-access" : s->refused_as.c_str(),
             "the connection was refused");
      return;
    }
    if (shutting_down) {
      Refuse(link, "amqp:connection:forced", "the server is shutting down");
      return;
    }
    if (s->links >= options.max_links) {
      Refuse(link, "amqp:resource-limit-exceeded",
             "too many links on this connection (limit " + std::to_string(options.max_links) + ")");
      return;
    }
    if (pn_link_is_receiver(link)) {
      OpenProducer(s, link);
    } else {
      OpenConsumer(s, link);
    }
  }

  void OpenProducer(ConnState* s, pn_link_t* link) {
    std::string stream = TerminusAddress(pn_link_remote_target(link));
    if (stream.empty()) {
      Refuse(link, "amqp:invalid-field", "the target address must name a stream (no anonymous relay)");
      return;
    }
    if (!Authorize(link, kPermissionWrite, stream)) return;
    if (!EnsureStream(link, stream)) return;
    auto owned = std::make_unique<ProducerLink>();
    ProducerLink* p = owned.get();
    p->id = next_producer_id++;
    p->stream = stream;
    owned->open = GaugeHold(&metrics.producer_links);
    s->producers[link] = std::move(owned);
    ++s->links;
    pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
    pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
    pn_link_set_rcv_settle_mode(link, PN_RCV_FIRST);
    pn_link_set_max_message_size(link, options.max_message_bytes);
    pn_link_open(link);
    TopUpCredit(link, p);  // none under an alarm
    Log("sift serve: producer attached to %s\n", stream);
  }

  void OpenConsumer(ConnState* s, pn_link_t* link) {
    pn_terminus_t* source = pn_link_remote_source(link);
    std::string stream = TerminusAddress(source);
    if (stream.empty()) {
      Refuse(link, "amqp:invalid-field", "the source address must name a stream");
      return;
    }
    if (!Authorize(link, kPermissionRead, stream)) return;
    std::string encoded;
    pn_data_t* filter = pn_terminus_filter(source);
    if (filter != nullptr && pn_data_size(filter) > 0) {
      pn_data_rewind(filter);
      encoded.resize(static_cast<size_t>(std::max<ssize_t>(pn_data_encoded_size(filter), 0)));
      ssize_t n = pn_data_encode(filter, encoded.data(), encoded.size());
      if (n < 0) {
        Refuse(link, "amqp:invalid-field", "the filter-set cannot be encoded");
        return;
      }
      encoded.resize(static_cast<size_t>(n));
    }
    LinkFilter parsed;
    std::string error;
    if (!ParseLinkFilter({reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size()}, &parsed, &error)) {
      Refuse(link, "amqp:invalid-field", error);
      return;
    }
    if (!EnsureStream(link, stream)) return;
    engine::ConsumerOptions co;
    co.stream = stream;
    co.filter = parsed.filter;
    co.start = parsed.start;
    co.follow = true;
    co.credit = kConsumerBatch;
    co.max_scan_per_poll = 1u << 15;
    co.max_poll_time = std::chrono::milliseconds(options.reader_slice_ms);
    co.max_batch_bytes = kConsumerBatchBytes;
    auto c = std::make_shared<ConsumerLink>();
    Status st = engine->NewConsumer(co, &c->consumer);
    if (!st.ok()) {
      Refuse(link, st.IsInputError() ? "amqp:invalid-field" : "amqp:internal-error", st.ToString());
      return;
    }
    c->conn = conns[pn_session_connection(pn_link_session(link))];
    c->link = link;
    c->stream = stream;
    AddWaiter(stream);
    c->metrics = metrics.AddConsumer(stream);
    s->consumers[link] = c;
    ++s->links;
    // Echo the filters in place (core 3.5.3: the sender's attach says which filters are applied).
    pn_terminus_copy(pn_link_source(link), source);
    PutCapabilities(pn_terminus_capabilities(pn_link_source(link)));
    pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
    pn_link_set_snd_settle_mode(link, pn_link_remote_snd_settle_mode(link));
    pn_link_open(link);
    Log("sift serve: consumer attached to %s\n", stream);
    ServiceConsumer(c);
  }

  // Stops a consumer: a reader drops it at its next turn, its queued deliveries are released and it
  // leaves its stream's waiting list.
  void CloseConsumer(const std::shared_ptr<ConsumerLink>& c) {
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->closed && c->link == nullptr) return;
      c->closed = true;
      c->link = nullptr;  // Proton frees it; nothing may touch it through the consumer any more
      c->pending.clear();
      flow.AddOutbound(-static_cast<int64_t>(c->pending_bytes));
      c->pending_bytes = 0;
    }
    RemoveWaiter(c);
    metrics.RemoveConsumer(c->metrics.get());
  }

  // The peer closed or detached the link (core 2.6.6 / 2.7.4): stop its consumer, answer in kind and
  // free the link (Proton keeps it until our detach is written), so attach/detach churn costs nothing.
  void OnLinkClose(pn_link_t* link, bool closed) {
    ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
    if (s != nullptr) {
      auto c = s->consumers.find(link);
      if (c != s->consumers.end()) {
        CloseConsumer(c->second);
        s->consumers.erase(c);
        if (s->links > 0) --s->links;
      }
      auto p = s->producers.find(link);
      if (p != s->producers.end()) {
        if (!p->second->closed && s->links > 0) --s->links;
        p->second->open.Release();
        s->producers.erase(p);  // results of its transfers still in the worker are dropped by id
      }
    }
    if (closed) {
      pn_link_close(link);
    } else {
      pn_link_detach(link);
    }
    pn_link_free(link);
  }

  // Brings the connection's queued output (deliveries Proton has not framed, plus frames not yet
  // written to the socket) into FlowControl, and returns it.
  uint64_t RefreshOutput(ConnState* s) {
    uint64_t bytes = 0;
    for (pn_session_t* ssn = pn_session_head(s->connection, 0); ssn != nullptr; ssn = pn_session_next(ssn, 0)) {
      bytes += pn_session_outgoing_bytes(ssn);
    }
    pn_transport_t* t = pn_connection_transport(s->connection);
    if (t != nullptr) {
      const ssize_t pending = pn_transport_pending(t);
      if (pending > 0) bytes += static_cast<uint64_t>(pending);
    }
    flow.AddOutbound(static_cast<int64_t>(bytes) - static_cast<int64_t>(s->output));
    s->output = bytes;
    return bytes;
  }

  // Sends what the reader prepared, as credit allows; schedules the next poll.
  // Stops at --max-connection-output of queued output (the connection is then output_blocked until
  // a later look finds its socket drained), so a peer that grants credit and never reads costs a
  // bounded amount. A consumer left without credit releases its store iterator.
  void ServiceConsumer(const std::shared_ptr<ConsumerLink>& c) {
    bool schedule = false, drained = false, failed = false;
    Status error;
    pn_link_t* link = nullptr;
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->closed || c->link == nullptr) return;
      link = c->link;
      if (pn_link_state(link) & PN_LOCAL_CLOSED) return;
      ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
      if (s == nullptr) return;
      uint64_t queued = RefreshOutput(s);
      s->output_blocked = queued >= options.max_connection_output;
      const bool presettled = pn_link_snd_settle_mode(link) == PN_SND_SETTLED;
      while (!c->pending.empty() && pn_link_credit(link) > 0) {
        if (queued >= options.max_connection_output) {
          s->output_blocked = true;
          break;
        }
        auto& [offset, bytes] = c->pending.front();
        char tag[8];
        for (int i = 0; i < 8; ++i) tag[i] = static_cast<char>(offset >> (56 - 8 * i));
        pn_delivery_t* d = pn_delivery(link, pn_dtag(tag, sizeof tag));
        pn_link_send(link, bytes.data(), bytes.size());
        pn_link_advance(link);
        if (presettled) pn_delivery_settle(d);
        queued += bytes.size();
        c->pending_bytes -= bytes.size();
        flow.AddOutbound(-static_cast<int64_t>(bytes.size()));
        c->pending.pop_front();
      }
      if (queued != s->output) RefreshOutput(s);
      if (c->failed && c->pending.empty()) {
        failed = true;
        error = c->error;
        c->closed = true;
      } else if (c->pending.empty() && !c->polling && pn_link_credit(link) > 0 && !s->output_blocked) {
        c->polling = true;
        schedule = true;
      }
      // Idle until the peer grants credit or the socket drains: hold no iterator meanwhile.
      if (!c->polling && !failed && (pn_link_credit(link) <= 0 || s->output_blocked)) c->consumer->Release();
      drained = c->pending.empty() && c->caught_up && pn_link_get_drain(link);
      c->metrics->credit.store(pn_link_credit(link), std::memory_order_relaxed);
    }
    if (failed) {
      SetCondition(pn_link_condition(link), "amqp:internal-error", error.ToString());
      pn_link_close(link);
      return;
    }
    if (schedule) Schedule(c);
    if (drained) pn_link_drained(link);
  }

  void OnDelivery(pn_event_t* e) {
    pn_delivery_t* d = pn_event_delivery(e);
    pn_link_t* link = pn_delivery_link(d);
    ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
    if (pn_link_is_sender(link)) {
      // A consumer's disposition: streams keep every message, so settling is all there is to do.
      if (pn_delivery_updated(d) || pn_delivery_settled(d)) pn_delivery_settle(d);
      return;
    }
    if (!pn_delivery_readable(d) && !pn_delivery_aborted(d)) return;
    ProducerLink* p = nullptr;
    if (s != nullptr) {
      auto it = s->producers.find(link);
      if (it != s->producers.end() && !it->second->closed) p = it->second.get();
    }
    if (p != nullptr && d != p->receiving) {
      // The first frame of a transfer: it must be within the credit we granted (core 2.6.7). Proton
      // does not enforce it, so a producer ignoring credit is detached before anything more is stored.
      if (p->credit_left <= 0) {
        SetCondition(
            pn_link_condition(link), "amqp:link:transfer-limit-exceeded",
            "transfer beyond the link credit granted (window " + std::to_string(options.producer_credit) + ")");
        pn_link_close(link);
        p->closed = true;
        p->buffer.clear();
        if (s->links > 0) --s->links;
        Log("sift serve: producer to %s detached: transfer beyond its credit\n", p->stream);
        p = nullptr;
      } else {
        --p->credit_left;
        p->receiving = d;
      }
    }
    char buf[16384];
    ssize_t n;
    while ((n = pn_link_recv(link, buf, sizeof buf)) > 0) {
      if (p == nullptr) continue;
      if (p->buffer.size() + static_cast<size_t>(n) > options.max_message_bytes) {
        p->too_large = true;
        p->buffer.clear();
      }
      if (!p->too_large) p->buffer.append(buf, static_cast<size_t>(n));
    }
    if (pn_delivery_aborted(d)) {  // core 2.6.14: an aborted transfer is discarded
      if (p) {
        p->buffer.clear();
        p->too_large = false;
        p->receiving = nullptr;
      }
      pn_delivery_settle(d);
      return;
    }
    if (pn_delivery_partial(d)) return;
    pn_link_advance(link);
    if (p != nullptr) p->receiving = nullptr;
    if (p == nullptr) {
      pn_delivery_settle(d);
      return;
    }
    if (p->too_large) {
      pn_condition_t* c = pn_disposition_condition(pn_delivery_local(d));
      SetCondition(c, "amqp:link:message-size-exceeded",
                   "message larger than the limit of " + std::to_string(options.max_message_bytes) + " bytes");
      pn_delivery_update(d, PN_REJECTED);
      pn_delivery_settle(d);
      metrics.appends_rejected.fetch_add(1, std::memory_order_relaxed);
      p->too_large = false;
      p->buffer.clear();
      TopUpCredit(link, p);
      return;
    }
    std::string claimed;
    if (!UserIdMatches(p->buffer, s->user, &claimed)) {
      SetCondition(pn_disposition_condition(pn_delivery_local(d)), "amqp:unauthorized-access",
                   "the message's user-id '" + claimed + "' is not the authenticated user '" + s->user + "'");
      pn_delivery_update(d, PN_REJECTED);
      pn_delivery_settle(d);
      p->buffer.clear();
      TopUpCredit(link, p);
      return;
    }
    AppendJob job;
    job.conn = conns[pn_session_connection(pn_link_session(link))];
    job.delivery = d;
    job.link = link;
    job.producer_id = p->id;
    job.stream_copy = p->stream;
    job.bytes.swap(p->buffer);
    flow.AddInbound(static_cast<int64_t>(job.bytes.size()));
    ++p->outstanding;
    ++in_flight;
    {
      std::lock_guard<std::mutex> lock(append_mu);
      append_queue.push_back(std::move(job));
    }
    append_cv.notify_one();
  }

  // Logs when the store stops or starts taking appends again (StreamEngine::Health, which is where a
  // status or metrics reader finds the same state): after each append round, and on the retention
  // timer, so a store that recovered while nobody appended says so too. Any thread; one logs a change.
  void LogStoreHealth() {
    const engine::StoreHealth health = engine->Health();
    if (store_writable.exchange(health.writable) == health.writable) return;
    if (!health.writable) {
      fprintf(stderr, "sift serve: the store takes no appends (producers get modified, delivery-failed)%s: %s\n",
              health.needs_reopen ? " until sift serve is restarted" : " until it recovers", health.error.c_str());
    } else {
      fprintf(stderr, "sift serve: the store takes appends again\n");
    }
  }

  // Grants credit up to the window, unless an alarm (memory budget, disk) withholds it.
  void TopUpCredit(pn_link_t* link, ProducerLink* p) {
    if (p->closed || shutting_down || (pn_link_state(link) & PN_LOCAL_CLOSED)) return;
    if (!flow.producers_may_send()) return;
    const int64_t window = options.producer_credit;
    const int64_t used = p->credit_left + p->outstanding;
    if (used <= window / 2) {  // in batches, not one flow per message
      p->credit_left += window - used;
      pn_link_flow(link, static_cast<int>(window - used));
    }
  }

  // Re-evaluates the alarms; logs a change, and when producers may send again asks every connection
  // to top its producers up.
  void CheckAlarms() {
    const auto now = Clock::now();
    if (options.min_disk_free > 0 && now >= next_disk_check) {
      next_disk_check = now + kDiskCheckInterval;
      uint64_t free_bytes = 0;
      std::string error;
      if (FileSystemFreeBytes(store_path, &free_bytes, &error)) {
        flow.SetDiskFree(free_bytes);
      } else {
        Log("sift serve: cannot read the free space of the store: %s\n", store_path + ": " + error);
      }
    }
    std::string change;
    if (flow.Evaluate(&change)) {
      fprintf(stderr, "sift serve: %s\n", change.c_str());
      const FlowState state = flow.state();
      metrics.memory_alarm.store(state.memory_alarm ? 1 : 0, std::memory_order_relaxed);
      metrics.disk_alarm.store(state.disk_alarm ? 1 : 0, std::memory_order_relaxed);
    }
    const bool withheld = !flow.producers_may_send();
    if (credit_withheld && !withheld) {
      for (auto& [c, s] : conns) {
        ConnState* state = s.get();
        state->Post([state] { state->topup_requested = true; });
      }
    }
    credit_withheld = withheld;
  }

  void OnWake(pn_connection_t* c) {
    auto it = conns.find(c);
    if (it == conns.end()) return;
    std::shared_ptr<ConnState> s = it->second;
    std::vector<AppendResult> results;
    std::vector<std::shared_ptr<ConsumerLink>> ready;
    bool close = false, expired = false, topup = false, refresh = false;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      results.swap(s->results);
      ready.swap(s->ready);
      close = s->close_requested;
      expired = s->handshake_expired;
      topup = s->topup_requested;
      refresh = s->refresh_requested;
      s->topup_requested = s->refresh_requested = false;
    }
    if (expired && !s->opened) {
      pn_transport_t* t = pn_connection_transport(c);
      if (t != nullptr) {
        SetCondition(pn_transport_condition(t), "amqp:resource-limit-exceeded",
                     "no AMQP open within the handshake deadline");
        pn_transport_close_tail(t);
        pn_transport_close_head(t);
      }
      return;
    }
    if (!results.empty()) CheckAlarms();
    for (AppendResult& r : results) {
      // A freed link's deliveries are gone with it: only results of a live producer are settled.
      auto p = s->producers.find(r.link);
      if (p == s->producers.end() || p->second->id != r.producer_id) continue;
      if (!pn_delivery_settled(r.delivery)) {  // a pre-settled transfer gets no outcome (core 2.6.12)
        if (r.accepted) {
          pn_delivery_update(r.delivery, PN_ACCEPTED);
        } else if (r.store_failed) {
          // `modified` carries no error: the reason is in the server's log (LogStoreHealth).
          pn_disposition_set_failed(pn_delivery_local(r.delivery), true);
          pn_delivery_update(r.delivery, PN_MODIFIED);
        } else {
          SetCondition(pn_disposition_condition(pn_delivery_local(r.delivery)), r.condition, r.description);
          pn_delivery_update(r.delivery, PN_REJECTED);
        }
      }
      pn_delivery_settle(r.delivery);
      if (p->second->outstanding > 0) --p->second->outstanding;
      TopUpCredit(r.link, p->second.get());
    }
    if (topup) {
      for (auto& [link, p] : s->producers) TopUpCredit(link, p.get());
    }
    for (auto& consumer : ready) ServiceConsumer(consumer);
    if (refresh || s->output_blocked) ResumeOutput(s.get());
    if (close && !(pn_connection_state(c) & PN_LOCAL_CLOSED)) {
      SetCondition(pn_connection_condition(c), "amqp:connection:forced", "the server is shutting down");
      pn_connection_close(c);
    }
  }

  // Looks at the connection's queued output again; once below the cap, its consumers send on.
  void ResumeOutput(ConnState* s) {
    const bool was_blocked = s->output_blocked;
    s->output_blocked = RefreshOutput(s) >= options.max_connection_output;
    if (!was_blocked || s->output_blocked) return;
    std::vector<std::shared_ptr<ConsumerLink>> consumers;
    for (auto& [link, consumer] : s->consumers) consumers.push_back(consumer);
    for (auto& consumer : consumers) ServiceConsumer(consumer);
  }

  void OnTransportClosed(pn_connection_t* c) {
    auto it = conns.find(c);
    if (it == conns.end()) return;
    std::shared_ptr<ConnState> s = it->second;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      s->alive = false;
      s->results.clear();
      s->ready.clear();
    }
    for (auto& [link, consumer] : s->consumers) CloseConsumer(consumer);
    s->consumers.clear();
    flow.AddOutbound(-static_cast<int64_t>(s->output));
    s->output = 0;
    if (!s->opened) handshakes.erase(s->handshake_seq);
    if (s->counted) {
      --open_connections;
      if (--per_address[s->address] == 0) per_address.erase(s->address);
    }
    for (auto& [link, producer] : s->producers) producer->open.Release();
    s->open.Release();
    conns.erase(it);
    if (closing_connections && conns.empty()) pn_proactor_cancel_timeout(proactor);
  }

  // The event loop's timer (every kTickMs, kBlockedTickMs while a connection's output is blocked):
  // closes sockets past their handshake deadline, re-evaluates the alarms, and asks connections with
  // queued output to look again (their sockets may have drained: Proton reports no such event).
  void Tick() {
    const auto now = Clock::now();
    const auto deadline = std::chrono::milliseconds(options.handshake_timeout_ms);
    while (!handshakes.empty() && handshakes.begin()->second.first + deadline <= now) {
      ExpireHandshake(handshakes.begin()->second.second, "handshake deadline passed");
      handshakes.erase(handshakes.begin());
    }
    CheckAlarms();
    for (auto& [c, s] : conns) {
      if (s->output == 0 && !s->output_blocked) continue;
      ConnState* state = s.get();
      state->Post([state] { state->refresh_requested = true; });
    }
  }

  int NextTick() const {
    for (const auto& [c, s] : conns) {
      if (s->output_blocked) return kBlockedTickMs;
    }
    return kTickMs;
  }

  void BeginShutdown() {
    if (shutting_down) return;
    shutting_down = true;
    fprintf(stderr, "sift serve: shutting down\n");
    if (listener != nullptr) pn_listener_close(listener);
    shutdown_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    pn_proactor_set_timeout(proactor, 20);
  }

  void OnTimeout() {
    Tick();
    if (!shutting_down) {
      pn_proactor_set_timeout(proactor, NextTick());
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!closing_connections) {
      if (in_flight.load() > 0 && now < shutdown_deadline) {
        pn_proactor_set_timeout(proactor, 20);
        return;
      }
      // Every append is settled-to-be: ask each connection to send its outcomes, then close.
      closing_connections = true;
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        ConnState* s = it->second.get();
        s->Post([s] { s->close_requested = true; });
      }
      if (conns.empty()) return;  // nothing to wait for: the proactor goes inactive
      shutdown_deadline = now + std::chrono::seconds(3);
      pn_proactor_set_timeout(proactor, 3000);
      return;
    }
    pn_proactor_disconnect(proactor, nullptr);  // peers that did not answer our close
  }

  bool Handle(pn_event_t* e) {
    switch (pn_event_type(e)) {
      case PN_LISTENER_OPEN: {
        pn_proactor_set_timeout(proactor, kTickMs);
        char host[256] = "", port[32] = "";
        pn_netaddr_host_port(pn_listener_addr(pn_event_listener(e)), host, sizeof host, port, sizeof port);
        printf("sift serve: listening on %s:%s\n", host, port);
        fflush(stdout);
        break;
      }
      case PN_LISTENER_ACCEPT: OnAccept(pn_event_listener(e)); break;
      case PN_LISTENER_CLOSE: {
        pn_condition_t* c = pn_listener_condition(pn_event_listener(e));
        if (pn_condition_is_set(c)) {
          fprintf(stderr, "sift: cannot listen: %s: %s\n", options.listen.c_str(), pn_condition_get_description(c));
          exit_code = 3;
          shutting_down = true;
        }
        listener = nullptr;
        break;
      }
      case PN_PROACTOR_INTERRUPT: BeginShutdown(); break;
      case PN_PROACTOR_TIMEOUT: OnTimeout(); break;
      case PN_PROACTOR_INACTIVE:
        if (shutting_down) return false;
        break;
      case PN_CONNECTION_REMOTE_OPEN: OnConnectionOpen(pn_event_connection(e)); break;
      case PN_CONNECTION_REMOTE_CLOSE: pn_connection_close(pn_event_connection(e)); break;
      case PN_CONNECTION_WAKE: OnWake(pn_event_connection(e)); break;
      case PN_SESSION_REMOTE_OPEN: OnSessionOpen(pn_event_session(e)); break;
      case PN_SESSION_REMOTE_CLOSE: OnSessionClose(pn_event_session(e)); break;
      case PN_LINK_REMOTE_OPEN: OnLinkOpen(pn_event_link(e)); break;
      case PN_LINK_REMOTE_CLOSE: OnLinkClose(pn_event_link(e), true); break;
      case PN_LINK_REMOTE_DETACH: OnLinkClose(pn_event_link(e), false); break;
      case PN_LINK_FLOW: {
        pn_link_t* link = pn_event_link(e);
        if (pn_link_is_sender(link)) {
          ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
          if (s != nullptr) {
            auto it = s->consumers.find(link);
            if (it != s->consumers.end()) ServiceConsumer(it->second);
          }
        }
        break;
      }
      case PN_DELIVERY: OnDelivery(e); break;
      case PN_TRANSPORT_ERROR: {
        pn_condition_t* c = pn_transport_condition(pn_event_transport(e));
        if (options.verbose && pn_condition_is_set(c)) {
          fprintf(stderr, "sift serve: connection error: %s: %s\n", pn_condition_get_name(c),
                  pn_condition_get_description(c));
        }
        break;
      }
      case PN_TRANSPORT: {  // output was produced or written: a held-back connection may send on
        pn_connection_t* c = pn_event_connection(e);
        ConnState* s = c ? Conn(c) : nullptr;
        if (s != nullptr && s->output_blocked) ResumeOutput(s);
        break;
      }
      case PN_TRANSPORT_CLOSED: OnTransportClosed(pn_event_connection(e)); break;
      default: break;
    }
    return true;
  }
};

Server::Server(const ServeOptions& options, engine::StreamEngine* engine, const Authenticator* authenticator,
               pn_ssl_domain_t* ssl)
    : impl_(std::make_unique<Impl>(options, engine, authenticator, ssl)) {}

Server::~Server() = default;

FlowState Server::flow_state() const { return impl_->flow.state(); }

int Server::Run(const std::string& host, const std::string& port) {
  Impl& m = *impl_;
  if (!m.options.metrics.empty() && !m.StartMetrics()) return 3;
  m.proactor = pn_proactor();
  m.CheckAlarms();  // a full disk withholds credit from the first producer on
  m.append_thread = std::thread([&m] { m.AppendLoop(); });
  for (uint32_t i = 0; i < m.options.reader_threads; ++i) m.readers.emplace_back([&m] { m.ReaderLoop(); });
  if (m.options.retention_interval_ms > 0) m.retention_thread = std::thread([&m] { m.RetentionLoop(); });

  // SIGTERM / SIGINT are blocked in every thread (RunServe blocks them before starting any) and
  // taken here, synchronously, so the handler may call into Proton.
  std::atomic<bool> stop_signals{false};
  std::thread signals([&] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    timespec tick{0, 200 * 1000 * 1000};
    while (!stop_signals.load()) {
      if (sigtimedwait(&set, nullptr, &tick) > 0) {
        pn_proactor_interrupt(m.proactor);
        return;
      }
    }
  });

  char addr[PN_MAX_ADDR];
  pn_proactor_addr(addr, sizeof addr, host.c_str(), port.c_str());
  m.listener = pn_listener();
  pn_proactor_listen(m.proactor, m.listener, addr, 64);

  bool running = true;
  while (running) {
    pn_event_batch_t* batch = pn_proactor_wait(m.proactor);
    pn_event_t* e;
    while ((e = pn_event_batch_next(batch)) != nullptr) {
      if (!m.Handle(e)) running = false;
    }
    pn_proactor_done(m.proactor, batch);
  }

  stop_signals = true;
  signals.join();
  if (m.retention_thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(m.retention_mu);
      m.retention_stop = true;
    }
    m.retention_cv.notify_all();
    m.retention_thread.join();
  }
  {
    std::lock_guard<std::mutex> lock(m.append_mu);
    m.append_stop = true;
  }
  m.append_cv.notify_all();
  m.append_thread.join();
  {
    std::lock_guard<std::mutex> lock(m.read_mu);
    m.read_stop = true;
  }
  m.read_cv.notify_all();
  for (std::thread& t : m.readers) t.join();
  if (m.metrics_endpoint) m.metrics_endpoint->Stop();
  m.read_queue.clear();
  m.waiters.clear();
  m.conns.clear();
  pn_proactor_free(m.proactor);
  m.proactor = nullptr;
  return m.exit_code;
}

}  // namespace sift::tools
