// ServeMetrics, the histogram and the Prometheus text rendering (see metrics.h).
#include "tools/serve/metrics.h"

#include <algorithm>
#include <cstdio>

#include "sift/stream_engine.h"

namespace sift::tools {

void LatencyHistogram::Observe(std::chrono::nanoseconds duration) {
  const int64_t ns = std::max<int64_t>(duration.count(), 0);
  const double seconds = static_cast<double>(ns) / 1e9;
  size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
}

LatencyHistogram::Snapshot LatencyHistogram::Read() const {
  Snapshot s;
  uint64_t running = 0;
  for (size_t i = 0; i < kBounds.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.count = running + buckets_[kBounds.size()].load(std::memory_order_relaxed);
  s.sum_seconds = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

GaugeHold& GaugeHold::operator=(GaugeHold&& other) noexcept {
  if (this != &other) {
    Release();
    gauge_ = other.gauge_;
    other.gauge_ = nullptr;
  }
  return *this;
}

void GaugeHold::Release() {
  if (gauge_ != nullptr) gauge_->fetch_sub(1, std::memory_order_relaxed);
  gauge_ = nullptr;
}

StreamCounters* ServeMetrics::Stream(const std::string& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) it = streams_.emplace(stream, std::make_unique<StreamCounters>()).first;
  return it->second.get();
}

std::shared_ptr<ConsumerCounters> ServeMetrics::AddConsumer(const std::string& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = std::make_shared<ConsumerCounters>(stream, next_link_id_++);
  consumers_[c->link_id] = c;
  return c;
}

void ServeMetrics::RemoveConsumer(const ConsumerCounters* consumer) {
  if (consumer == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  consumers_.erase(consumer->link_id);
}

MetricsSnapshot ServeMetrics::Collect(const StreamEngine* engine, size_t max_stream_series) const {
  MetricsSnapshot s;
  std::vector<std::string> names;
  if (engine != nullptr && !engine->ListStreams(&names).ok()) names.clear();
  std::vector<std::shared_ptr<ConsumerCounters>> consumers;
  std::map<std::string, const StreamCounters*, std::less<>> counters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, c] : streams_) {
      counters[name] = c.get();
      if (engine == nullptr) names.push_back(name);
    }
    for (const auto& [id, c] : consumers_) consumers.push_back(c);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::map<std::string, uint64_t, std::less<>> next_offsets;
  for (const std::string& name : names) {
    MetricsSnapshot::Stream st;
    st.name = name;
    if (engine != nullptr) {
      StreamInfo info;
      if (!engine->GetStreamInfo(name, &info).ok()) continue;  // deleted meanwhile
      st.stored_messages = info.message_count;
      st.stored_bytes = info.bytes;
      st.retention_deleted_messages = info.first_offset;  // offsets start at 0 and are never reused
      st.next_offset = info.next_offset;
      next_offsets[name] = info.next_offset;
    }
    auto it = counters.find(name);
    if (it != counters.end()) {
      st.appended_messages = it->second->appended_messages.load(std::memory_order_relaxed);
      st.appended_bytes = it->second->appended_bytes.load(std::memory_order_relaxed);
    }
    s.streams.push_back(std::move(st));
  }
  s.stream_count = s.streams.size();
  if (max_stream_series > 0 && s.streams.size() > max_stream_series) BoundStreamSeries(max_stream_series, &s);
  for (const auto& c : consumers) {
    MetricsSnapshot::Consumer out;
    // The position first (acquire; the reader stores it last, release): the counters read after it are
    // at least as recent, so a caught-up link never shows the counts of an earlier poll.
    const uint64_t position = c->position.load(std::memory_order_acquire);
    out.stream = c->stream;
    out.link_id = c->link_id;
    out.scanned = c->scanned.load(std::memory_order_relaxed);
    out.matched = c->matched.load(std::memory_order_relaxed);
    out.chunks_pruned = c->chunks_pruned.load(std::memory_order_relaxed);
    out.retention_lost = c->retention_lost.load(std::memory_order_relaxed);
    out.retention_gaps = c->retention_gaps.load(std::memory_order_relaxed);
    out.credit = c->credit.load(std::memory_order_relaxed);
    auto end = next_offsets.find(c->stream);
    if (end != next_offsets.end() && end->second > position) out.lag_messages = end->second - position;
    s.consumers.push_back(std::move(out));
  }
  s.connections_open = connections_open.load(std::memory_order_relaxed);
  s.producer_links = producer_links.load(std::memory_order_relaxed);
  s.consumer_links = static_cast<int64_t>(consumers.size());
  s.memory_alarm = memory_alarm.load(std::memory_order_relaxed);
  s.disk_alarm = disk_alarm.load(std::memory_order_relaxed);
  s.consumer_memory_bytes = consumer_memory.load(std::memory_order_relaxed);
  s.read_ahead_dropped_bytes = read_ahead_dropped.load(std::memory_order_relaxed);
  s.memory_refusals = memory_refusals.load(std::memory_order_relaxed);
  s.appends_rejected = appends_rejected.load(std::memory_order_relaxed);
  s.appends_failed = appends_failed.load(std::memory_order_relaxed);
  s.fsync = fsync.Read();
  return s;
}

namespace {

// The per-stream families, each a field of MetricsSnapshot::Stream: what is rendered, and what is
// summed for the streams without series of their own.
struct StreamFamily {
  const char* name;
  const char* type;
  const char* help;
  uint64_t MetricsSnapshot::Stream::*field;
};
constexpr StreamFamily kStreamFamilies[] = {
    {"sift_stream_appended_messages_total", "counter",
     "Messages producers appended to the stream since the server started.",
     &MetricsSnapshot::Stream::appended_messages},
    {"sift_stream_appended_bytes_total", "counter",
     "Bytes of the messages producers appended since the server started.", &MetricsSnapshot::Stream::appended_bytes},
    {"sift_stream_stored_messages", "gauge", "Messages the stream holds.", &MetricsSnapshot::Stream::stored_messages},
    {"sift_stream_stored_bytes", "gauge", "Stored bytes of the stream, chunk headers included.",
     &MetricsSnapshot::Stream::stored_bytes},
    {"sift_stream_retention_deleted_messages_total", "counter",
     "Messages retention deleted from the stream (the oldest offset it keeps).",
     &MetricsSnapshot::Stream::retention_deleted_messages},
    {"sift_stream_next_offset", "gauge", "The offset the next message appended to the stream gets.",
     &MetricsSnapshot::Stream::next_offset},
};
}  // namespace

void ServeMetrics::BoundStreamSeries(size_t max_series, MetricsSnapshot* s) const {
  using Stream = MetricsSnapshot::Stream;
  std::lock_guard<std::mutex> lock(mu_);
  // Keep the streams that had series (while they exist), then the largest of the others.
  std::vector<const Stream*> keep, rest;
  for (const Stream& st : s->streams) {
    (series_streams_.count(st.name) != 0 && keep.size() < max_series ? keep : rest).push_back(&st);
  }
  std::sort(rest.begin(), rest.end(), [](const Stream* a, const Stream* b) {
    return a->stored_bytes != b->stored_bytes ? a->stored_bytes > b->stored_bytes : a->name < b->name;
  });
  size_t taken = 0;
  while (keep.size() < max_series && taken < rest.size()) keep.push_back(rest[taken++]);
  for (size_t i = taken; i < rest.size(); ++i) {
    for (const StreamFamily& f : kStreamFamilies) s->other_streams.*(f.field) += rest[i]->*(f.field);
  }
  s->other_stream_count = rest.size() - taken;
  series_streams_.clear();
  std::vector<Stream> kept;
  kept.reserve(keep.size());
  for (const Stream* st : keep) {
    series_streams_.insert(st->name);
    kept.push_back(*st);
  }
  std::sort(kept.begin(), kept.end(), [](const Stream& a, const Stream& b) { return a.name < b.name; });
  s->streams = std::move(kept);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string Number(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}
  void Family(const char* name, const char* type, const char* help) {
    *out_ += "# HELP ";
    *out_ += name;
    *out_ += ' ';
    *out_ += help;
    *out_ += "\n# TYPE ";
    *out_ += name;
    *out_ += ' ';
    *out_ += type;
    *out_ += '\n';
  }
  // `labels` is the inside of the braces, already escaped ("" for none).
  void Sample(const char* name, const std::string& labels, const std::string& value) {
    *out_ += name;
    if (!labels.empty()) {
      *out_ += '{';
      *out_ += labels;
      *out_ += '}';
    }
    *out_ += ' ';
    *out_ += value;
    *out_ += '\n';
  }
  template <typename T>
  void Sample(const char* name, const std::string& labels, T value) {
    Sample(name, labels, std::to_string(value));
  }

 private:
  std::string* out_;
};

std::string StreamLabel(const std::string& stream) { return "stream=\"" + EscapeLabelValue(stream) + "\""; }

std::string ConsumerLabels(const MetricsSnapshot::Consumer& c) {
  return StreamLabel(c.stream) + ",link=\"" + std::to_string(c.link_id) + "\"";
}

}  // namespace

std::string RenderPrometheusText(const MetricsSnapshot& s) {
  std::string out;
  Writer w(&out);
  using Stream = MetricsSnapshot::Stream;
  using Consumer = MetricsSnapshot::Consumer;
  for (const StreamFamily& f : kStreamFamilies) {
    w.Family(f.name, f.type, f.help);
    for (const Stream& st : s.streams) w.Sample(f.name, StreamLabel(st.name), st.*(f.field));
    // The streams without series of their own, summed: the sample without a stream label.
    if (s.other_stream_count > 0) w.Sample(f.name, "", s.other_streams.*(f.field));
  }
  struct ConsumerFamily {
    const char* name;
    const char* type;
    const char* help;
    uint64_t Consumer::*field;
  };
  static constexpr ConsumerFamily kConsumerFamilies[] = {
      {"sift_consumer_scanned_records_total", "counter", "Records the consumer link's filter evaluated.",
       &Consumer::scanned},
      {"sift_consumer_matched_records_total", "counter", "Records that matched the consumer link's filter.",
       &Consumer::matched},
      {"sift_consumer_pruned_chunks_total", "counter",
       "Chunks the consumer link skipped unread because their summary rules out every message.",
       &Consumer::chunks_pruned},
      {"sift_consumer_retention_lost_messages_total", "counter",
       "Messages retention deleted before the consumer link read them (it went on after them).",
       &Consumer::retention_lost},
      {"sift_consumer_retention_gaps_total", "counter",
       "Times the consumer link found the messages it was about to read deleted by retention.",
       &Consumer::retention_gaps},
      {"sift_consumer_lag_messages", "gauge",
       "Messages between the consumer link's position and the end of its stream.", &Consumer::lag_messages},
  };
  for (const ConsumerFamily& f : kConsumerFamilies) {
    w.Family(f.name, f.type, f.help);
    for (const Consumer& c : s.consumers) w.Sample(f.name, ConsumerLabels(c), c.*(f.field));
  }
  w.Family("sift_consumer_credit", "gauge", "Credit the client has granted the consumer link.");
  for (const Consumer& c : s.consumers) w.Sample("sift_consumer_credit", ConsumerLabels(c), c.credit);

  w.Family("sift_streams", "gauge", "Streams in the store.");
  w.Sample("sift_streams", "", s.stream_count);
  w.Family("sift_streams_summed", "gauge",
           "Streams without per-stream series (beyond --metrics-max-streams), summed in the sift_stream_* "
           "samples without a stream label.");
  w.Sample("sift_streams_summed", "", s.other_stream_count);
  w.Family("sift_connections_open", "gauge", "AMQP connections open.");
  w.Sample("sift_connections_open", "", s.connections_open);
  w.Family("sift_producer_links", "gauge", "Producer links attached.");
  w.Sample("sift_producer_links", "", s.producer_links);
  w.Family("sift_consumer_links", "gauge", "Consumer links attached.");
  w.Sample("sift_consumer_links", "", s.consumer_links);
  w.Family("sift_memory_alarm", "gauge", "1 while producers are held back for lack of memory, else 0.");
  w.Sample("sift_memory_alarm", "", s.memory_alarm);
  w.Family("sift_disk_alarm", "gauge", "1 while producers are held back for lack of disk space, else 0.");
  w.Sample("sift_disk_alarm", "", s.disk_alarm);
  w.Family("sift_consumer_memory_bytes", "gauge",
           "Bytes held for consumers: read ahead of their credit or socket, and queued for their sockets.");
  w.Sample("sift_consumer_memory_bytes", "", s.consumer_memory_bytes);
  w.Family("sift_read_ahead_dropped_bytes_total", "counter",
           "Bytes read ahead for consumers of blocked connections and dropped under memory pressure (read "
           "again once they drain).");
  w.Sample("sift_read_ahead_dropped_bytes_total", "", s.read_ahead_dropped_bytes);
  w.Family("sift_memory_refusals_total", "counter",
           "Connections and consumer links refused (amqp:resource-limit-exceeded) for lack of memory.");
  w.Sample("sift_memory_refusals_total", "", s.memory_refusals);
  w.Family("sift_appends_rejected_total", "counter",
           "Transfers rejected for what they are: malformed, too large or refused by the store's checks.");
  w.Sample("sift_appends_rejected_total", "", s.appends_rejected);
  w.Family("sift_appends_failed_total", "counter",
           "Transfers the store could not append or make durable (rejected with amqp:internal-error).");
  w.Sample("sift_appends_failed_total", "", s.appends_failed);

  w.Family("sift_password_checks_total", "counter", "Passwords of PLAIN logins hashed, by result.");
  w.Sample("sift_password_checks_total", "result=\"accepted\"", s.password_checks - s.password_checks_failed);
  w.Sample("sift_password_checks_total", "result=\"rejected\"", s.password_checks_failed);
  w.Family("sift_logins_unchecked_total", "counter",
           "PLAIN logins answered without hashing their password: the name is locked out from its address, "
           "the queue of checks was full, or the client left before its turn.");
  w.Sample("sift_logins_unchecked_total", "reason=\"locked_out\"", s.logins_locked_out);
  w.Sample("sift_logins_unchecked_total", "reason=\"queue_full\"", s.logins_queue_full);
  w.Sample("sift_logins_unchecked_total", "reason=\"client_left\"", s.logins_abandoned);

  const char* h = "sift_fsync_duration_seconds";
  w.Family(h, "histogram", "Time the append worker's durable step (one fsync per group commit) took.");
  for (size_t i = 0; i < LatencyHistogram::kBounds.size(); ++i) {
    w.Sample("sift_fsync_duration_seconds_bucket", "le=\"" + Number(LatencyHistogram::kBounds[i]) + "\"",
             s.fsync.cumulative[i]);
  }
  w.Sample("sift_fsync_duration_seconds_bucket", "le=\"+Inf\"", s.fsync.count);
  w.Sample("sift_fsync_duration_seconds_sum", "", Number(s.fsync.sum_seconds));
  w.Sample("sift_fsync_duration_seconds_count", "", s.fsync.count);
  return out;
}

}  // namespace sift::tools
