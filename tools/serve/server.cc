// The event loop, the append worker and the consumer readers of `sift serve` (see server.h).
//
// AMQP behaviour (core part 2 and part 3 section numbers):
// - producer link (we are the receiver, 2.6): target address = stream; credit window
//   ServeOptions::producer_credit, topped up as appends are acknowledged, so a slow disk slows
//   producers instead of growing memory; each transfer is settled with accepted / rejected (3.4) after
//   the worker reports it durable or malformed.
// - consumer link (we are the sender): source address = stream, filter-set (3.5.8) parsed by
//   link_filter.h and echoed in place with the source capabilities AMQP_FILTEX_PROP_V1_0 and
//   AMQP_FILTEX_SQL_V1_0; a bad filter refuses the link: attach with a null source, then detach with
//   amqp:invalid-field (2.6.3). Deliveries are sent only against credit (2.6.7), pre-settled when the
//   receiver asked for snd-settle-mode settled; a drain request is answered once caught up.
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

#include "tools/serve/link_filter.h"
#include "tools/serve/metrics.h"
#include "tools/serve/metrics_endpoint.h"
#include "tools/serve/offset_annotation.h"

namespace sift::tools {
namespace {

using engine::Status;

constexpr uint32_t kConsumerBatch = 256;   // deliveries one poll may produce ahead of credit
constexpr size_t kMaxAppendRound = 16384;  // transfers one group commit takes at most

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
  bool polling = false;    // queued, being polled, or parked: the event thread must not schedule it
  bool caught_up = false;  // parked at the end of the stream
  bool closed = false;     // the link or the connection is gone
  bool failed = false;
  Status error;
  std::shared_ptr<ConsumerCounters> metrics;  // never null once attached
};

struct ProducerLink {
  std::string stream;
  std::string buffer;  // bytes of the transfer being received
  bool too_large = false;
  uint32_t outstanding = 0;  // transfers handed to the worker, not settled yet
  bool closed = false;
  GaugeHold open;  // in ServeMetrics::producer_links until closed
};

struct AppendResult {
  pn_delivery_t* delivery = nullptr;
  pn_link_t* link = nullptr;
  bool accepted = false;
  const char* condition = nullptr;
  std::string description;
};

struct ConnState {
  pn_connection_t* connection = nullptr;
  std::mutex mu;  // guards alive, results, ready, close_requested
  bool alive = true;
  bool close_requested = false;
  std::vector<AppendResult> results;
  std::vector<std::shared_ptr<ConsumerLink>> ready;

  // Event thread only.
  std::unordered_map<pn_link_t*, std::unique_ptr<ProducerLink>> producers;
  std::unordered_map<pn_link_t*, std::shared_ptr<ConsumerLink>> consumers;
  uint32_t links = 0;
  uint32_t sessions = 0;
  bool over_limit = false;
  GaugeHold open;  // in ServeMetrics::connections_open until the transport closes

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
  const std::string* stream = nullptr;  // owned by the ProducerLink, which outlives the job
  std::string stream_copy;
  std::string bytes;
};

struct StreamWaiters {
  uint64_t appends = 0;  // bumped after every append round that touched the stream
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
  const PlainAuthenticator* authenticator;
  pn_ssl_domain_t* ssl;
  ServeMetrics metrics;  // declared early: outlives everything that counts in it
  std::unique_ptr<MetricsEndpoint> metrics_endpoint;

  pn_proactor_t* proactor = nullptr;
  pn_listener_t* listener = nullptr;
  std::unordered_map<pn_connection_t*, std::shared_ptr<ConnState>> conns;  // event thread
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

  Impl(const ServeOptions& o, engine::StreamEngine* e, const PlainAuthenticator* a, pn_ssl_domain_t* s)
      : options(o), engine(e), authenticator(a), ssl(s) {}

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
    return waiters[stream].appends;
  }

  void Park(const std::shared_ptr<ConsumerLink>& c, uint64_t seen) {
    {
      std::lock_guard<std::mutex> lock(waiters_mu);
      StreamWaiters& w = waiters[c->stream];
      if (w.appends == seen) {
        w.parked.push_back(c);
        return;
      }
    }
    Schedule(c);  // appended while we polled: look again
  }

  void Appended(const std::string& stream) {
    std::vector<std::shared_ptr<ConsumerLink>> wake;
    {
      std::lock_guard<std::mutex> lock(waiters_mu);
      StreamWaiters& w = waiters[stream];
      ++w.appends;
      wake.swap(w.parked);
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
      AppendRound(jobs, counters);
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
      StreamCounters*& counted = counters[std::string(stream)];
      if (counted == nullptr) counted = metrics.Stream(std::string(stream));
      for (size_t k = 0; k < indexes.size(); ++k) {
        const Status& one = outcomes[k].status;
        AppendResult& r = results[indexes[k]];
        if (one.ok()) {
          r.accepted = true;
          appended = true;
          counted->appended_messages.fetch_add(1, std::memory_order_relaxed);
          counted->appended_bytes.fetch_add(views[k].size(), std::memory_order_relaxed);
          continue;
        }
        const bool refused = one.IsMalformed() || one.IsNotFound() || one.IsInputError();
        (refused ? metrics.appends_rejected : metrics.appends_failed).fetch_add(1, std::memory_order_relaxed);
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
          r.condition = "amqp:internal-error";
          r.description = "the append could not be made durable: " + f.ToString();
        }
      }
    }
    for (auto& [stream, indexes] : groups) Appended(std::string(stream));
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
    if (ssl != nullptr) pn_ssl_init(pn_ssl(t), ssl, nullptr);
    authenticator->Attach(t);
    auto state = std::make_shared<ConnState>();
    state->connection = c;
    state->over_limit = conns.size() >= options.max_connections;
    state->open = GaugeHold(&metrics.connections_open);
    conns[c] = state;
    pn_listener_accept2(l, c, t);
  }

  void OnConnectionOpen(pn_connection_t* c) {
    ConnState* s = Conn(c);
    pn_connection_set_container(c, "sift-serve");
    PutCapabilities(pn_connection_offered_capabilities(c));
    pn_connection_open(c);
    if (s == nullptr || s->over_limit) {
      SetCondition(pn_connection_condition(c), "amqp:resource-limit-exceeded",
                   "too many connections (limit " + std::to_string(options.max_connections) + ")");
      pn_connection_close(c);
    }
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
          CloseConsumer(*it->second);
          it = s->consumers.erase(it);
          if (s->links > 0) --s->links;
        } else {
          ++it;
        }
      }
      for (auto& [link, p] : s->producers) {
        if (pn_link_session(link) == session && !p->closed) {
          p->closed = true;
          p->open.Release();
          if (s->links > 0) --s->links;
        }
      }
    }
    pn_session_close(session);
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
    if (!EnsureStream(link, stream)) return;
    auto p = std::make_unique<ProducerLink>();
    p->stream = stream;
    p->open = GaugeHold(&metrics.producer_links);
    s->producers[link] = std::move(p);
    ++s->links;
    pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
    pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
    pn_link_set_rcv_settle_mode(link, PN_RCV_FIRST);
    pn_link_set_max_message_size(link, options.max_message_bytes);
    pn_link_open(link);
    pn_link_flow(link, static_cast<int>(options.producer_credit));
    Log("sift serve: producer attached to %s\n", stream);
  }

  void OpenConsumer(ConnState* s, pn_link_t* link) {
    pn_terminus_t* source = pn_link_remote_source(link);
    std::string stream = TerminusAddress(source);
    if (stream.empty()) {
      Refuse(link, "amqp:invalid-field", "the source address must name a stream");
      return;
    }
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
    auto c = std::make_shared<ConsumerLink>();
    Status st = engine->NewConsumer(co, &c->consumer);
    if (!st.ok()) {
      Refuse(link, st.IsInputError() ? "amqp:invalid-field" : "amqp:internal-error", st.ToString());
      return;
    }
    c->conn = conns[pn_session_connection(pn_link_session(link))];
    c->link = link;
    c->stream = stream;
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

  void CloseConsumer(ConsumerLink& c) {
    metrics.RemoveConsumer(c.metrics.get());
    std::lock_guard<std::mutex> lock(c.mu);
    c.closed = true;
    c.pending.clear();
  }

  // The peer closed or detached the link (core 2.6.6 / 2.7.4): stop its consumer, answer in kind.
  void OnLinkClose(pn_link_t* link, bool closed) {
    ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
    if (s != nullptr) {
      auto c = s->consumers.find(link);
      if (c != s->consumers.end()) {
        CloseConsumer(*c->second);
        s->consumers.erase(c);
        if (s->links > 0) --s->links;
      }
      auto p = s->producers.find(link);
      if (p != s->producers.end() && !p->second->closed) {
        p->second->closed = true;
        p->second->open.Release();
        if (s->links > 0) --s->links;
      }
    }
    if (closed) {
      pn_link_close(link);
    } else {
      pn_link_detach(link);
    }
  }

  // Sends what the reader prepared, as credit allows; schedules the next poll.
  void ServiceConsumer(const std::shared_ptr<ConsumerLink>& c) {
    pn_link_t* link = c->link;
    if (pn_link_state(link) & PN_LOCAL_CLOSED) return;
    bool schedule = false, drained = false, failed = false;
    Status error;
    {
      std::lock_guard<std::mutex> lock(c->mu);
      if (c->closed) return;
      const bool presettled = pn_link_snd_settle_mode(link) == PN_SND_SETTLED;
      while (!c->pending.empty() && pn_link_credit(link) > 0) {
        auto& [offset, bytes] = c->pending.front();
        char tag[8];
        for (int i = 0; i < 8; ++i) tag[i] = static_cast<char>(offset >> (56 - 8 * i));
        pn_delivery_t* d = pn_delivery(link, pn_dtag(tag, sizeof tag));
        pn_link_send(link, bytes.data(), bytes.size());
        pn_link_advance(link);
        if (presettled) pn_delivery_settle(d);
        c->pending.pop_front();
      }
      if (c->failed && c->pending.empty()) {
        failed = true;
        error = c->error;
        c->closed = true;
      } else if (c->pending.empty() && !c->polling && pn_link_credit(link) > 0) {
        c->polling = true;
        schedule = true;
      }
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
      }
      pn_delivery_settle(d);
      return;
    }
    if (pn_delivery_partial(d)) return;
    pn_link_advance(link);
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
    AppendJob job;
    job.conn = conns[pn_session_connection(pn_link_session(link))];
    job.delivery = d;
    job.link = link;
    job.stream_copy = p->stream;
    job.bytes.swap(p->buffer);
    ++p->outstanding;
    ++in_flight;
    {
      std::lock_guard<std::mutex> lock(append_mu);
      append_queue.push_back(std::move(job));
    }
    append_cv.notify_one();
  }

  void TopUpCredit(pn_link_t* link, ProducerLink* p) {
    if (p->closed || shutting_down || (pn_link_state(link) & PN_LOCAL_CLOSED)) return;
    const int window = static_cast<int>(options.producer_credit);
    const int credit = pn_link_credit(link);
    const int used = credit + static_cast<int>(p->outstanding);
    if (used <= window / 2) pn_link_flow(link, window - used);  // in batches, not one flow per message
  }

  void OnWake(pn_connection_t* c) {
    auto it = conns.find(c);
    if (it == conns.end()) return;
    std::shared_ptr<ConnState> s = it->second;
    std::vector<AppendResult> results;
    std::vector<std::shared_ptr<ConsumerLink>> ready;
    bool close = false;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      results.swap(s->results);
      ready.swap(s->ready);
      close = s->close_requested;
    }
    for (AppendResult& r : results) {
      if (!pn_delivery_settled(r.delivery)) {  // a pre-settled transfer gets no outcome (core 2.6.12)
        if (r.accepted) {
          pn_delivery_update(r.delivery, PN_ACCEPTED);
        } else {
          SetCondition(pn_disposition_condition(pn_delivery_local(r.delivery)), r.condition, r.description);
          pn_delivery_update(r.delivery, PN_REJECTED);
        }
      }
      pn_delivery_settle(r.delivery);
      auto p = s->producers.find(r.link);
      if (p != s->producers.end()) {
        if (p->second->outstanding > 0) --p->second->outstanding;
        TopUpCredit(r.link, p->second.get());
      }
    }
    for (auto& consumer : ready) ServiceConsumer(consumer);
    if (close && !(pn_connection_state(c) & PN_LOCAL_CLOSED)) {
      SetCondition(pn_connection_condition(c), "amqp:connection:forced", "the server is shutting down");
      pn_connection_close(c);
    }
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
    for (auto& [link, consumer] : s->consumers) CloseConsumer(*consumer);
    s->consumers.clear();
    for (auto& [link, producer] : s->producers) producer->open.Release();
    s->open.Release();
    conns.erase(it);
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
    if (!shutting_down) return;
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
      shutdown_deadline = now + std::chrono::seconds(3);
      pn_proactor_set_timeout(proactor, 3000);
      return;
    }
    pn_proactor_disconnect(proactor, nullptr);  // peers that did not answer our close
  }

  bool Handle(pn_event_t* e) {
    switch (pn_event_type(e)) {
      case PN_LISTENER_OPEN: {
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
      case PN_TRANSPORT_CLOSED: OnTransportClosed(pn_event_connection(e)); break;
      default: break;
    }
    return true;
  }
};

Server::Server(const ServeOptions& options, engine::StreamEngine* engine, const PlainAuthenticator* authenticator,
               pn_ssl_domain_t* ssl)
    : impl_(std::make_unique<Impl>(options, engine, authenticator, ssl)) {}

Server::~Server() = default;

int Server::Run(const std::string& host, const std::string& port) {
  Impl& m = *impl_;
  if (!m.options.metrics.empty() && !m.StartMetrics()) return 3;
  m.proactor = pn_proactor();
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
