// ServeMetrics: the counters and gauges of `sift serve`, and their rendering in the Prometheus text
// exposition format (version 0.0.4) that `--metrics HOST:PORT` serves (metrics_endpoint.h).
//
// The server updates the registry on its hot paths with relaxed atomic operations only: the append
// worker looks a stream's counters up once per stream (StreamCounters pointers stay valid for the
// registry's life), a consumer link holds its own ConsumerCounters, and nothing is locked per message
// or per delivery. A mutex is taken only to add or remove a stream or a consumer, and by Collect. What
// the store knows (stored messages and bytes, the oldest offset kept, the end of the stream) is read
// from StreamEngine at scrape time, not counted. docs/serve.md, "Metrics", lists every metric.
#ifndef SIFT_TOOLS_SERVE_METRICS_H_
#define SIFT_TOOLS_SERVE_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sift {
class StreamEngine;
}

namespace sift::tools {

// A histogram of durations with fixed bucket bounds (seconds, 100 µs to 10 s); Observe is lock-free.
class LatencyHistogram {
 public:
  static constexpr std::array<double, 14> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                     0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   10.0};
  struct Snapshot {
    std::array<uint64_t, kBounds.size()> cumulative{};  // observations <= kBounds[i]
    uint64_t count = 0;                                 // all observations (the +Inf bucket)
    double sum_seconds = 0;
  };

  void Observe(std::chrono::nanoseconds duration);
  Snapshot Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};  // the last one: above every bound
  std::atomic<uint64_t> sum_ns_{0};
};

// Increments a gauge on construction and decrements it once, on Release or destruction, so a link or
// a connection counts as long as it is open whichever path closes it.
class GaugeHold {
 public:
  GaugeHold() = default;
  explicit GaugeHold(std::atomic<int64_t>* gauge) : gauge_(gauge) { gauge_->fetch_add(1, std::memory_order_relaxed); }
  ~GaugeHold() { Release(); }
  GaugeHold(GaugeHold&& other) noexcept : gauge_(other.gauge_) { other.gauge_ = nullptr; }
  GaugeHold& operator=(GaugeHold&& other) noexcept;
  GaugeHold(const GaugeHold&) = delete;
  GaugeHold& operator=(const GaugeHold&) = delete;
  void Release();

 private:
  std::atomic<int64_t>* gauge_ = nullptr;
};

// What producers did to one stream since the server started (the append worker adds to these).
struct StreamCounters {
  std::atomic<uint64_t> appended_messages{0};
  std::atomic<uint64_t> appended_bytes{0};
};

// One consumer link: its reader stores the ConsumerStats totals and the position after every
// poll, the event thread the link's credit after every flow and send.
struct ConsumerCounters {
  ConsumerCounters(std::string stream_name, uint64_t id) : stream(std::move(stream_name)), link_id(id) {}
  const std::string stream;
  const uint64_t link_id;  // unique among the server's consumer links, in attach order from 1
  std::atomic<uint64_t> scanned{0};
  std::atomic<uint64_t> matched{0};
  std::atomic<uint64_t> chunks_pruned{0};
  std::atomic<uint64_t> retention_lost{0};  // offsets retention deleted before the link read them
  std::atomic<uint64_t> retention_gaps{0};  // runs of them
  std::atomic<uint64_t> position{0};        // the next offset the consumer looks at
  std::atomic<int64_t> credit{0};
};

// Everything one scrape shows, as plain values (RenderPrometheusText's input).
struct MetricsSnapshot {
  struct Stream {
    std::string name;
    uint64_t appended_messages = 0;
    uint64_t appended_bytes = 0;
    uint64_t stored_messages = 0;
    uint64_t stored_bytes = 0;
    uint64_t retention_deleted_messages = 0;  // offsets below the oldest kept: retention deleted them
    uint64_t next_offset = 0;
  };
  struct Consumer {
    std::string stream;
    uint64_t link_id = 0;
    uint64_t scanned = 0;
    uint64_t matched = 0;
    uint64_t chunks_pruned = 0;
    uint64_t retention_lost = 0;
    uint64_t retention_gaps = 0;
    uint64_t lag_messages = 0;  // the stream's next offset minus the consumer's position
    int64_t credit = 0;
  };
  std::vector<Stream> streams;  // by name: the streams with series of their own
  // The streams past the bound on per-stream series (ServeMetrics::Collect), summed field by field
  // (their name is empty), and how many they are; every stream, counted.
  Stream other_streams;
  uint64_t other_stream_count = 0;
  uint64_t stream_count = 0;
  std::vector<Consumer> consumers;  // by link id
  int64_t connections_open = 0;
  int64_t producer_links = 0;
  int64_t consumer_links = 0;
  int64_t memory_alarm = 0;
  int64_t disk_alarm = 0;
  int64_t consumer_memory_bytes = 0;
  uint64_t read_ahead_dropped_bytes = 0;
  uint64_t memory_refusals = 0;
  uint64_t appends_rejected = 0;
  uint64_t appends_failed = 0;
  LatencyHistogram::Snapshot fsync;
  // PLAIN logins (LoginChecker::Counts): passwords hashed, and of those wrong; logins refused
  // unchecked, by why; checks dropped because the client left first.
  uint64_t password_checks = 0;
  uint64_t password_checks_failed = 0;
  uint64_t logins_locked_out = 0;
  uint64_t logins_queue_full = 0;
  uint64_t logins_abandoned = 0;
};

// The snapshot in the Prometheus text format 0.0.4: a HELP and a TYPE line per family, every family
// present (with no sample when it has none), label values escaped (EscapeLabelValue).
std::string RenderPrometheusText(const MetricsSnapshot& snapshot);

// A label value as the text format writes it between double quotes: `\` as `\\`, `"` as `\"`, a line
// feed as `\n`; every other byte as is (the format is UTF-8).
std::string EscapeLabelValue(std::string_view value);

class ServeMetrics {
 public:
  // The counters of `stream`, created on first use. The pointer stays valid as long as the registry,
  // so a caller looks a stream up once and keeps the pointer.
  StreamCounters* Stream(const std::string& stream);
  // Registers a consumer link of `stream` under the next link id; RemoveConsumer when it closes
  // (idempotent).
  std::shared_ptr<ConsumerCounters> AddConsumer(const std::string& stream);
  void RemoveConsumer(const ConsumerCounters* consumer);

  // Reads every stream of `engine` (StreamEngine::ListStreams, GetStreamInfo) and the registry; a
  // stream the engine no longer has is left out. `engine` may be null (then only the registry's
  // streams, with nothing stored).
  //
  // At most `max_stream_series` streams get series of their own; the others are summed into
  // MetricsSnapshot::other_streams, so that the page and a scraper's series stay bounded whatever
  // clients create. A stream keeps its series from one scrape to the next while it exists (a series
  // that comes and goes would break rate() over it); free places go to the largest streams by stored
  // bytes (then by name). 0: no bound.
  MetricsSnapshot Collect(const StreamEngine* engine, size_t max_stream_series = 0) const;

  std::atomic<int64_t> connections_open{0};
  std::atomic<int64_t> producer_links{0};
  // Resource alarms, 0 or 1: the server sets them from FlowControl (flow_control.h) whenever an alarm
  // is raised or cleared, i.e. while producers get no credit for lack of memory or disk.
  std::atomic<int64_t> memory_alarm{0};
  std::atomic<int64_t> disk_alarm{0};
  // What consumers hold (read ahead, and queued in Proton for their sockets): FlowControl outbound,
  // set by the event loop's timer. Bytes read ahead and dropped under memory pressure (read again
  // later), and connections and consumer links refused for lack of memory.
  std::atomic<int64_t> consumer_memory{0};
  std::atomic<uint64_t> read_ahead_dropped{0};
  std::atomic<uint64_t> memory_refusals{0};
  // Transfers refused for what they are (malformed, too large, not accepted by the store's checks)
  // and transfers the store could not append or make durable.
  std::atomic<uint64_t> appends_rejected{0};
  std::atomic<uint64_t> appends_failed{0};
  // The append worker's durable step (one fsync per group commit).
  LatencyHistogram fsync;

 private:
  void BoundStreamSeries(size_t max_series, MetricsSnapshot* s) const;

  mutable std::mutex mu_;  // guards the maps, not the counters in them
  std::map<std::string, std::unique_ptr<StreamCounters>, std::less<>> streams_;
  std::map<uint64_t, std::shared_ptr<ConsumerCounters>> consumers_;
  mutable std::set<std::string, std::less<>> series_streams_;  // the streams that had series last time
  uint64_t next_link_id_ = 1;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_METRICS_H_
