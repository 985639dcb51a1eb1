// Server::Impl, private to tools/serve: the state of `sift serve` that the event loop (server.cc), the
// reader pool (server_readers.cc) and the append worker with the retention timer (server_append.cc)
// share, and the records they pass between them (connections, producer and consumer links, append
// jobs and their results). server.h says which thread owns what; server.cc says how the AMQP side
// behaves.
#ifndef SIFT_TOOLS_SERVE_SERVER_IMPL_H_
#define SIFT_TOOLS_SERVE_SERVER_IMPL_H_

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
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tools/error_line.h"
#include "tools/serve/authenticator.h"
#include "tools/serve/flow_control.h"
#include "tools/serve/login_checker.h"
#include "tools/serve/management_node.h"
#include "tools/serve/link_filter.h"
#include "tools/serve/metrics.h"
#include "tools/serve/metrics_endpoint.h"
#include "tools/serve/offset_annotation.h"
#include "tools/serve/printable_text.h"
#include "tools/serve/tls_failure.h"
#include "tools/serve/user_id_check.h"

namespace sift::tools {

constexpr uint32_t kConsumerBatch = 256;   // deliveries one poll may produce ahead of credit
constexpr size_t kMaxAppendRound = 16384;  // transfers one group commit takes at most
// Message bytes one poll may produce ahead of credit (a single larger message still goes alone).
constexpr uint64_t kConsumerBatchBytes = 1u << 20;
// A delivery is handed to Proton in pieces of at most this many bytes, each only while the
// connection's queued output is below its cap (OutputCap): a connection that reads nothing holds its
// cap plus one piece in Proton, whatever the message size.
constexpr uint64_t kDeliverySlice = 16u << 10;
// What an unsettled delivery costs in Proton until the peer settles it, besides its bytes in buffer
// (at most a slice, see above): the delivery, its tag and state (measured: about 1 KB; rounded up).
constexpr uint64_t kDeliveryOverhead = 2u << 10;
// What consumers hold (read-ahead, queued output and unsettled deliveries: FlowControl outbound)
// against --memory-budget, in parts of it: from 1/kPressureDivisor on the server is under pressure
// (OutputCap falls to a fair share, and blocked connections drop their read-ahead); at
// 1/kConsumerLimitDivisor no consumer reads more. With the links' share, consumers hold at most about
// half the budget: the rest is the producers', so consumers that never read do not raise the memory
// alarm that withholds producer credit.
constexpr uint64_t kPressureDivisor = 8;
constexpr uint64_t kConsumerLimitDivisor = 4;
// What a consumer link costs while it is open, whatever it reads: its consumer, compiled filter and
// Proton's link (measured: about 11 KB with 65,536 links). Consumer links may hold 1/kLinkShareDivisor
// of --memory-budget; beyond it a connection's second and later consumer links are refused, so that
// 1,024 connections of 64 links cannot hold GBs, and a new client is still served.
constexpr uint64_t kConsumerLinkCost = 12u << 10;
constexpr uint64_t kLinkShareDivisor = 8;
// A refused link keeps its Proton state until the peer detaches it, which a client that reads nothing
// never does: a connection refused this many consumer links for memory is closed instead, and all its
// links go with it.
constexpr uint32_t kMemoryRefusalsBeforeClose = 16;
// A connection the server closes has this long to take the close frame and answer it; then its
// socket is dropped, so that a peer that reads nothing cannot keep a refused connection's state.
constexpr auto kCloseGrace = std::chrono::seconds(1);
// A connection with something to send that sees no frame go either way this long under pressure is
// taken for stalled (Tick): even its deliveries in progress give back what Proton does not have yet.
constexpr auto kStalledAfter = std::chrono::milliseconds(500);
// The management node: the largest request, the credit of a request link, and the responses that may
// wait for a reply link's credit.
constexpr uint64_t kMaxManagementRequest = 64u << 10;
constexpr uint32_t kManagementCredit = 100;
constexpr size_t kMaxQueuedReplies = 64;
// The event loop's timer: handshake deadlines, alarms, and output-blocked connections (faster).
constexpr int kTickMs = 100;
constexpr int kBlockedTickMs = 10;
// How often the store's free disk space is looked at.
constexpr auto kDiskCheckInterval = std::chrono::seconds(1);
// How often a store that takes no appends is tried again (the retention thread).
constexpr auto kStoreRecoveryRetry = std::chrono::milliseconds(500);
// A store that needs a reopen (StoreHealth::needs_reopen) is reopened once the file system has room
// for what the reopen writes out (StoreHealth::reopen_bytes) plus this; looked at this often.
constexpr uint64_t kReopenHeadroomBytes = 16u << 20;
constexpr auto kReopenCheckInterval = std::chrono::seconds(1);

using Clock = std::chrono::steady_clock;

struct ConnState;

// A message read for a consumer and not yet written whole to Proton.
struct PendingDelivery {
  uint64_t offset = 0;
  uint64_t skipped = 0;  // the retention gap its annotation tells (x-opt-sift-retention-skipped)
  std::string bytes;     // annotated; empty once dropped under memory pressure (read again before sending)
  uint64_t sent = 0;     // bytes of it Proton has: the delivery is in progress
};

struct ConsumerLink {
  std::weak_ptr<ConnState> conn;
  pn_link_t* link = nullptr;  // event thread only
  std::string stream;
  ConsumerOptions options;             // to start the consumer again at another offset
  std::unique_ptr<Consumer> consumer;  // used by whoever holds `polling`
  ConsumerStats stats_before;          // of the consumers it replaced (rewinds), for the metrics
  DeliveryBatch batch;                 // reader scratch
  // Offsets retention deleted before the consumer read them, passed since its last delivery: the next
  // delivery tells the client (x-opt-sift-retention-skipped). Used by whoever holds `polling`.
  uint64_t retention_untold = 0;

  std::mutex mu;                        // guards the fields below
  std::deque<PendingDelivery> pending;  // annotated deliveries awaiting credit
  uint64_t pending_bytes = 0;           // their bytes held, counted in FlowControl outbound and the connection's
  std::optional<uint64_t> rewind;       // read ahead and dropped: the next poll starts again here
  uint64_t rewind_untold = 0;           // retention skips the dropped deliveries were to tell
  pn_delivery_t* current = nullptr;     // the delivery in progress (event thread)
  uint64_t unsettled = 0;               // cost of its deliveries the peer has not settled (event thread)
  bool polling = false;                 // queued, being polled, or parked: the event thread must not schedule it
  bool caught_up = false;               // parked at the end of the stream
  bool closed = false;                  // the link or the connection is gone
  bool failed = false;
  Status error;
  std::shared_ptr<ConsumerCounters> metrics;  // never null once attached
  std::atomic<bool> large{false};             // goes to Impl::read_queue_large
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

// A client's request link to the management node: the transfer being received.
struct ManagementRequests {
  std::string buffer;
  bool too_large = false;
};

// A client's reply link from the management node, and the responses waiting for its credit.
struct ManagementReplies {
  std::string address;
  std::deque<std::string> queued;
  uint64_t next_tag = 0;
};

struct ConnState {
  pn_connection_t* connection = nullptr;
  std::mutex mu;  // guards alive, results, ready and the requests
  bool alive = true;
  bool close_requested = false;
  bool handshake_expired = false;  // close the socket: no open within the deadline, or evicted
  bool drop_requested = false;     // close the socket: the server's close was not answered in time
  bool topup_requested = false;    // an alarm cleared: grant producers their credit
  bool refresh_requested = false;  // look at the queued output again (the socket may have drained)
  bool memory_requested = false;   // consumers waited for memory (memory_wait) and may read now
  std::vector<AppendResult> results;
  std::vector<std::shared_ptr<ConsumerLink>> ready;
  std::optional<PendingLogin> login;         // a password check's verdict, for Authenticator::Complete
  std::vector<std::string> deleted_streams;  // deleted by the management node: detach their links

  // Event thread only.
  std::unordered_map<pn_link_t*, ManagementRequests> management_requests;  // links to $management
  std::unordered_map<pn_link_t*, ManagementReplies> management_replies;    // links from it
  std::unordered_map<pn_link_t*, std::unique_ptr<ProducerLink>> producers;
  std::unordered_map<pn_link_t*, std::shared_ptr<ConsumerLink>> consumers;
  uint32_t links = 0;
  uint32_t sessions = 0;
  bool over_limit = false;
  bool closed_by_server = false;      // CloseConnection: links that come now are ignored
  uint32_t memory_refused_links = 0;  // consumer links refused for memory (kMemoryRefusalsBeforeClose)
  std::string refused_as;             // the condition the connection was refused with, if it was
  std::string user;                   // who authenticated (set at the peer's open; "anonymous" without SASL)
  uint64_t handshake_seq = 0;         // key in Impl::handshakes while the open has not arrived
  bool opened = false;                // the peer's open arrived
  bool counted = false;               // counts against --max-connections and its address's limit
  std::string address;                // the peer's host
  uint64_t output = 0;                // queued output (Proton's), as last counted in FlowControl outbound
  bool output_blocked = false;        // output reached its cap (OutputCap): consumers wait
  // A consumer was not read for (MayRead): the timer looks again (any thread).
  std::atomic<bool> memory_wait{false};
  // Bytes its consumers read and have not written whole to Proton (any thread; their pending_bytes).
  std::atomic<uint64_t> pending{0};
  std::atomic<uint64_t> output_seen{0};  // `output`, for the readers
  // What its consumers' deliveries that the peer has not settled cost (kDeliveryOverhead): Proton
  // keeps each until it is settled, and a client that never reads never settles. Counted in
  // FlowControl outbound and against the connection's cap like queued output.
  std::atomic<uint64_t> unsettled{0};
  std::atomic<bool> stalled{false};  // read-ahead dropped, no output framed since: reads nothing
  uint64_t frames_seen = 0;          // frames output and input (Proton counts), at the last look
  Clock::time_point progress_at;     // when a frame last moved, or it had nothing to send
  Clock::time_point looked_at;       // when the timer last asked it to look at its output
  GaugeHold open;                    // in ServeMetrics::connections_open until the transport closes

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

inline void SetCondition(pn_condition_t* c, const char* name, const std::string& description) {
  pn_condition_set_name(c, name);
  pn_condition_set_description(c, description.c_str());
}

inline void PutCapabilities(pn_data_t* data) {
  pn_data_clear(data);
  pn_data_put_array(data, false, PN_SYMBOL);
  pn_data_enter(data);
  pn_data_put_symbol(data, pn_bytes(21, "AMQP_FILTEX_PROP_V1_0"));
  pn_data_put_symbol(data, pn_bytes(20, "AMQP_FILTEX_SQL_V1_0"));
  pn_data_exit(data);
}

inline std::string TerminusAddress(pn_terminus_t* t) {
  const char* a = pn_terminus_get_address(t);
  return a ? std::string(a) : std::string();
}

struct Server::Impl {
  ServeOptions options;
  StreamEngine* engine;
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
  // Event thread: connections the server closed, in the order it closed them, with the time their
  // socket is dropped unless the peer answered first (kCloseGrace).
  std::deque<std::pair<Clock::time_point, std::weak_ptr<ConnState>>> close_deadlines;
  uint32_t open_connections = 0;
  std::unordered_map<std::string, uint32_t> per_address;
  uint64_t next_producer_id = 1;
  FlowControl flow;
  bool credit_withheld = false;
  Clock::time_point next_disk_check;
  Clock::time_point next_reopen_check;
  std::string store_path;
  std::string listening_port;  // from the listener's open
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
  // Consumers whose last read brought a message larger than a batch (kConsumerBatchBytes), or new ones
  // on a stream where one did: readers take them in turn with the others, so that a thousand reads of
  // 15 MB messages do not stand before a small read for a second.
  std::deque<std::shared_ptr<ConsumerLink>> read_queue_large;
  bool large_turn = false;
  bool read_stop = false;
  std::vector<std::thread> readers;

  std::mutex waiters_mu;
  std::unordered_map<std::string, StreamWaiters> waiters;
  // Streams a read found a message larger than a batch in (kept after their last consumer leaves, so
  // that the next ones start in read_queue_large; a deleted stream leaves it). Under waiters_mu.
  std::unordered_set<std::string> large_streams;

  // Password checks of PLAIN logins, off the event thread (null without a users file). Stopped before
  // the proactor is freed: its threads wake connections.
  std::unique_ptr<LoginChecker> login_checker;

  // The management node ($management) and the number of the next dynamic reply address.
  ManagementNode management;
  uint64_t next_reply_address = 1;

  // Retention timer.
  std::mutex retention_mu;
  std::condition_variable retention_cv;
  bool retention_stop = false;
  std::thread retention_thread;

  Impl(const ServeOptions& o, StreamEngine* e, const Authenticator* a, pn_ssl_domain_t* s)
      : options(o),
        engine(e),
        authenticator(a),
        ssl(s),
        flow(o.memory_budget, o.min_disk_free),
        store_path(o.store),
        management(e, ManagementSettings{
                          RetentionPolicy{o.retention_max_bytes, std::chrono::milliseconds(o.retention_max_age_ms)},
                          o.max_streams}) {
    if (!a->open()) {
      LoginCheckerOptions checker;
      checker.threads = o.login_threads;
      checker.max_queued = o.max_pending_logins;
      // A failed login's outcome never waits past half the handshake deadline, so the client hears
      // why before the socket is closed for want of an open.
      checker.policy.max_delay =
          std::min(checker.policy.max_delay, std::chrono::milliseconds(o.handshake_timeout_ms / 2));
      checker.policy.first_delay = std::min(checker.policy.first_delay, checker.policy.max_delay);
      login_checker = std::make_unique<LoginChecker>(
          [a](std::string_view user, std::string_view password) { return a->Check(user, password); }, checker);
    }
  }

  std::atomic<bool> store_writable{true};  // as last logged (LogStoreHealth)
  // A connection or a consumer link closed: the retention thread gives the heap's free memory back to
  // the system (malloc_trim). glibc keeps what it freed otherwise, and clients that made the server
  // buffer hundreds of MB left its RSS there after they were gone.
  std::atomic<bool> trim_requested{false};

  void Log(const char* format, const std::string& what);

  // ---- readers ----

  void Schedule(std::shared_ptr<ConsumerLink> c);

  uint64_t AppendCount(const std::string& stream);

  // Returns whether the stream is known for large messages (large_streams).
  bool AddWaiter(const std::string& stream);

  // The consumer is closed (c.closed already set): out of the parked list, and the stream's entry
  // goes with its last consumer.
  void RemoveWaiter(const std::shared_ptr<ConsumerLink>& c);

  void Park(const std::shared_ptr<ConsumerLink>& c, uint64_t seen);

  void Appended(const std::string& stream);

  void NotifyConsumer(const std::shared_ptr<ConsumerLink>& c);

  void ReaderLoop();

  void PollConsumer(const std::shared_ptr<ConsumerLink>& c);

  // The front delivery was dropped mid-send: reads it again (same offset, same annotation). False
  // with *error set when the store no longer has it.
  bool ReadAgain(const std::shared_ptr<ConsumerLink>& c, std::string* error);

  // ---- memory (docs/serve.md, "Resource limits", "Consumers' memory") ----

  // Consumers hold 1/kPressureDivisor of the budget or more.
  bool UnderPressure() const;
  // Consumers hold 1/kConsumerLimitDivisor of the budget or more: none reads more.
  bool ConsumersAtLimit() const;
  // A connection's queued output under pressure: half the room between the pressure mark and the
  // consumers' limit over --max-connections (at most --max-connection-output), so that all
  // connections together stay under the limit and a new client is still served.
  uint64_t FairShare() const;
  // The most queued output a connection may have now: --max-connection-output, and its fair share
  // under pressure.
  uint64_t OutputCap() const;
  // Whether a consumer of the connection may read from the store: the connection not stalled (see
  // Tick), what it holds (queued output, read-ahead, unsettled deliveries) under its cap, and
  // consumers under their limit (1/kConsumerLimitDivisor of the budget). Checked before each read;
  // what one read brings is at most one batch (kConsumerBatchBytes, or one larger message), so the
  // consumers' limit is passed by at most --reader-threads such reads. Any thread.
  bool MayRead(const ConnState& s) const;
  // Under pressure, a connection whose output is blocked drops what its consumers read ahead and
  // have not begun to send, and a stalled one (Tick) also the unsent rest of each delivery in
  // progress (`started`): read again from the store once its socket takes output again. A consumer being polled is left
  // alone; its batch comes back through ServiceConsumer, which drops it then.
  void DropReadAhead(ConnState* s, bool started);
  // The same for one consumer; c->mu held.
  void DropReadAhead(ConsumerLink* c, ConnState* s, bool started);
  // What a consumer holds is counted three times alike: on its link, on its connection (the cap) and
  // in FlowControl (the budget). A signed change of its read-ahead (`pending`) or of what its deliveries
  // the peer has not settled cost (`unsettled`).
  void ChargePending(ConsumerLink* c, ConnState* s, int64_t delta) {
    c->pending_bytes += static_cast<uint64_t>(delta);
    s->pending.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
    flow.AddOutbound(delta);
  }
  void ChargeUnsettled(ConsumerLink* c, ConnState* s, int64_t delta) {
    c->unsettled += static_cast<uint64_t>(delta);
    s->unsettled.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
    flow.AddOutbound(delta);
  }

  // ---- append worker ----

  void AppendLoop();

  void AppendRound(std::vector<AppendJob>& jobs, std::unordered_map<std::string, StreamCounters*>& counters);

  // ---- retention timer ----

  // Applies every stream's retention every options.retention_interval_ms until stopped. A failure is
  // logged (once until the error changes) and tried again at the next tick.
  void RetentionLoop();

  // ---- metrics ----

  // Serves options.metrics (validated HOST:PORT) on a thread of its own; prints where, on stdout, as
  // the AMQP listener does. False after printing why it cannot listen.
  bool StartMetrics();

  // ---- event thread ----

  ConnState* Conn(pn_connection_t* c);

  void OnAccept(pn_listener_t* l);

  // Asks the connection's own event batch to close its socket (another connection's transport is
  // not ours to touch here).
  void ExpireHandshake(pn_connection_t* c, const std::string& why);

  void OnConnectionOpen(pn_connection_t* c);

  // Closes the connection with `condition` and stops its consumers; its socket is dropped after
  // kCloseGrace unless the peer answers the close first.
  void CloseConnection(ConnState* s, const char* condition, const std::string& description);

  // False after refusing the link when the connection's user lacks `permission` on `stream`.
  bool Authorize(pn_link_t* link, Permission permission, const std::string& stream);

  void OnSessionOpen(pn_session_t* session);

  void OnSessionClose(pn_session_t* session);

  void Refuse(pn_link_t* link, const char* condition, const std::string& description);

  // Makes sure `stream` exists (creating it under auto-create); false after refusing the link.
  bool EnsureStream(pn_link_t* link, const std::string& stream);

  void OnLinkOpen(pn_link_t* link);

  void OpenProducer(ConnState* s, pn_link_t* link);

  void OpenConsumer(ConnState* s, pn_link_t* link);

  // ---- the management node (docs/serve.md, "Management") ----

  // A sender of the client's to $management: requests come on it.
  void OpenManagementRequests(ConnState* s, pn_link_t* link);
  // A receiver of the client's from $management (dynamic source, or the address $management):
  // responses go on it.
  void OpenManagementReplies(ConnState* s, pn_link_t* link);
  // A transfer on a request link: answered once whole, settled accepted or rejected.
  void OnManagementDelivery(ConnState* s, pn_link_t* link, pn_delivery_t* d);
  // Sends the link's queued responses as its credit allows.
  void SendReplies(pn_link_t* link, ManagementReplies* replies);
  // Asks every connection with links on `stream` to detach them (amqp:resource-deleted).
  void StreamDeleted(const std::string& stream);
  // On the connection's own event thread turn: detaches its links on `stream`.
  void DetachDeletedStream(ConnState* s, const std::string& stream);

  // Stops a consumer: a reader drops it at its next turn, its queued deliveries are released and it
  // leaves its stream's waiting list.
  void CloseConsumer(const std::shared_ptr<ConsumerLink>& c);
  // CloseConsumer for each consumer of the connection, which then has none.
  void CloseConsumers(ConnState* s);

  // The peer closed or detached the link (core 2.6.6 / 2.7.4): stop its consumer, answer in kind and
  // free the link (Proton keeps it until our detach is written), so attach/detach churn costs nothing.
  void OnLinkClose(pn_link_t* link, bool closed);

  // Brings the connection's queued output (deliveries Proton has not framed yet) into FlowControl,
  // and returns it.
  uint64_t RefreshOutput(ConnState* s);

  // Sends what the reader prepared, as credit allows; schedules the next poll.
  // Stops at --max-connection-output of queued output (the connection is then output_blocked until
  // a later look finds its socket drained), so a peer that grants credit and never reads costs a
  // bounded amount. A consumer left without credit releases its store iterator.
  void ServiceConsumer(const std::shared_ptr<ConsumerLink>& c);
  // ServiceConsumer for each consumer of the connection.
  void ServiceConsumers(ConnState* s);

  void OnDelivery(pn_event_t* e);

  // Logs when the store stops or starts taking appends again (StreamEngine::Health, which is where a
  // status or metrics reader finds the same state): after each append round, and on the retention
  // timer, so a store that recovered while nobody appended says so too. Any thread; one logs a change.
  void LogStoreHealth();

  // Grants credit up to the window, unless an alarm (memory budget, disk) withholds it.
  void TopUpCredit(pn_link_t* link, ProducerLink* p);

  // Re-evaluates the alarms; logs a change, and when producers may send again asks every connection
  // to top its producers up.
  void CheckAlarms();

  void OnWake(pn_connection_t* c);

  // Looks at the connection's queued output again; once below the cap, its consumers send on.
  void ResumeOutput(ConnState* s);

  void OnTransportClosed(pn_connection_t* c);
  // Logs a TLS failure (tls_failure.h) always, any other transport error when verbose.
  void OnTransportError(pn_transport_t* t);

  // The event loop's timer (every kTickMs, kBlockedTickMs while a connection's output is blocked):
  // closes sockets past their handshake deadline and those of closes left unanswered (kCloseGrace),
  // re-evaluates the alarms, finds stalled connections (see kStalledAfter), asks connections with
  // queued output to look again (their sockets may have drained: Proton reports no such event) and
  // those whose consumers waited for memory to try again.
  void Tick();

  int NextTick() const;

  // What a connection or link the shutdown closes is told (amqp:connection:forced).
  const char* ShutdownReason() const;

  // Stops listening and closes every connection once its appends are settled; `why` goes to the log.
  void BeginShutdown(const char* why = "shutting down");

  // When the store needs a reopen and the file system has room for it (kReopenHeadroomBytes): logs
  // it and shuts down with exit_code Server::kReopenStore. From Tick, at most every kReopenCheckInterval.
  void ReopenStoreWhenRoom(Clock::time_point now);

  void OnTimeout();

  bool Handle(pn_event_t* e);
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_SERVER_IMPL_H_
