// The metrics registry of `sift serve` and its Prometheus text rendering; the HTTP answers of the
// metrics endpoint, and the endpoint itself over loopback.
#include "tools/serve/metrics.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tools/serve/metrics_endpoint.h"

namespace sift::tools {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Metrics, LabelValuesAreEscapedAsTheTextFormatSays) {
  EXPECT_EQ(EscapeLabelValue("orders"), "orders");
  EXPECT_EQ(EscapeLabelValue("a\"b"), "a\\\"b");
  EXPECT_EQ(EscapeLabelValue("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapeLabelValue("a\nb"), "a\\nb");
  EXPECT_EQ(EscapeLabelValue("zürich/µs"), "zürich/µs");  // UTF-8 stays as is
}

TEST(Metrics, EveryFamilyHasHelpAndTypeEvenWithoutSamples) {
  const std::string text = RenderPrometheusText(MetricsSnapshot{});
  for (const char* family : {"sift_stream_appended_messages_total counter",
                             "sift_stream_appended_bytes_total counter",
                             "sift_stream_stored_messages gauge",
                             "sift_stream_stored_bytes gauge",
                             "sift_stream_retention_deleted_messages_total counter",
                             "sift_stream_next_offset gauge",
                             "sift_consumer_scanned_records_total counter",
                             "sift_consumer_matched_records_total counter",
                             "sift_consumer_pruned_chunks_total counter",
                             "sift_consumer_retention_lost_messages_total counter",
                             "sift_consumer_retention_gaps_total counter",
                             "sift_consumer_lag_messages gauge",
                             "sift_consumer_credit gauge",
                             "sift_connections_open gauge",
                             "sift_producer_links gauge",
                             "sift_consumer_links gauge",
                             "sift_memory_alarm gauge",
                             "sift_disk_alarm gauge",
                             "sift_consumer_memory_bytes gauge",
                             "sift_read_ahead_dropped_bytes_total counter",
                             "sift_memory_refusals_total counter",
                             "sift_appends_rejected_total counter",
                             "sift_appends_failed_total counter",
                             "sift_password_checks_total counter",
                             "sift_logins_unchecked_total counter",
                             "sift_fsync_duration_seconds histogram"}) {
    EXPECT_TRUE(Contains(text, std::string("# TYPE ") + family + "\n")) << family;
    const std::string name = std::string(family).substr(0, std::string(family).find(' '));
    EXPECT_TRUE(Contains(text, "# HELP " + name + " ")) << name;
  }
  EXPECT_TRUE(Contains(text, "\nsift_memory_alarm 0\n"));
  EXPECT_TRUE(Contains(text, "\nsift_password_checks_total{result=\"rejected\"} 0\n"));
  EXPECT_TRUE(Contains(text, "\nsift_logins_unchecked_total{reason=\"locked_out\"} 0\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_bucket{le=\"+Inf\"} 0\n"));
  EXPECT_FALSE(Contains(text, "stream=\""));  // no stream, no sample
  EXPECT_EQ(text.back(), '\n');
}

TEST(Metrics, StreamsAndConsumersAreLabelledAndEscaped) {
  MetricsSnapshot s;
  MetricsSnapshot::Stream st;
  st.name = "odd \"name\"\\x";
  st.appended_messages = 7;
  st.appended_bytes = 700;
  st.stored_messages = 5;
  st.stored_bytes = 900;
  st.retention_deleted_messages = 2;
  st.next_offset = 7;
  s.streams.push_back(st);
  MetricsSnapshot::Consumer c;
  c.stream = "orders";
  c.link_id = 3;
  c.scanned = 100;
  c.matched = 10;
  c.chunks_pruned = 4;
  c.retention_lost = 575;
  c.retention_gaps = 1;
  c.lag_messages = 12;
  c.credit = -1;  // a link's credit can go negative after the client lowers it
  s.consumers.push_back(c);
  s.connections_open = 2;
  s.appends_rejected = 1;
  const std::string text = RenderPrometheusText(s);
  const std::string label = "{stream=\"odd \\\"name\\\"\\\\x\"}";
  EXPECT_TRUE(Contains(text, "\nsift_stream_appended_messages_total" + label + " 7\n")) << text;
  EXPECT_TRUE(Contains(text, "\nsift_stream_appended_bytes_total" + label + " 700\n"));
  EXPECT_TRUE(Contains(text, "\nsift_stream_stored_messages" + label + " 5\n"));
  EXPECT_TRUE(Contains(text, "\nsift_stream_stored_bytes" + label + " 900\n"));
  EXPECT_TRUE(Contains(text, "\nsift_stream_retention_deleted_messages_total" + label + " 2\n"));
  const std::string link = "{stream=\"orders\",link=\"3\"}";
  EXPECT_TRUE(Contains(text, "\nsift_consumer_scanned_records_total" + link + " 100\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_matched_records_total" + link + " 10\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_pruned_chunks_total" + link + " 4\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_retention_lost_messages_total" + link + " 575\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_retention_gaps_total" + link + " 1\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_lag_messages" + link + " 12\n"));
  EXPECT_TRUE(Contains(text, "\nsift_consumer_credit" + link + " -1\n"));
  EXPECT_TRUE(Contains(text, "\nsift_connections_open 2\n"));
  EXPECT_TRUE(Contains(text, "\nsift_appends_rejected_total 1\n"));
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  LatencyHistogram h;
  h.Observe(std::chrono::microseconds(50));   // <= 0.0001
  h.Observe(std::chrono::microseconds(100));  // on the bound: <= 0.0001
  h.Observe(std::chrono::milliseconds(3));    // <= 0.005
  h.Observe(std::chrono::seconds(20));        // above every bound
  const LatencyHistogram::Snapshot r = h.Read();
  EXPECT_EQ(r.cumulative[0], 2u);
  EXPECT_EQ(r.cumulative[4], 2u);  // 0.0025
  EXPECT_EQ(r.cumulative[5], 3u);  // 0.005
  EXPECT_EQ(r.cumulative.back(), 3u);
  EXPECT_EQ(r.count, 4u);
  EXPECT_NEAR(r.sum_seconds, 20.00315, 1e-9);
  MetricsSnapshot s;
  s.fsync = r;
  const std::string text = RenderPrometheusText(s);
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_bucket{le=\"0.0001\"} 2\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_bucket{le=\"0.005\"} 3\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_bucket{le=\"10\"} 3\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_bucket{le=\"+Inf\"} 4\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_count 4\n"));
  EXPECT_TRUE(Contains(text, "\nsift_fsync_duration_seconds_sum 20.00315\n"));
}

TEST(Metrics, RegistryCountsLinksAndStreams) {
  ServeMetrics m;
  StreamCounters* a = m.Stream("a");
  EXPECT_EQ(m.Stream("a"), a);  // one lookup, then the pointer is kept
  a->appended_messages += 3;
  a->appended_bytes += 30;
  {
    GaugeHold producer(&m.producer_links);
    GaugeHold moved = std::move(producer);
    EXPECT_EQ(m.producer_links.load(), 1);
    moved.Release();
    moved.Release();  // once only
    EXPECT_EQ(m.producer_links.load(), 0);
    GaugeHold conn(&m.connections_open);
    EXPECT_EQ(m.connections_open.load(), 1);
  }
  EXPECT_EQ(m.connections_open.load(), 0);
  auto c1 = m.AddConsumer("a");
  auto c2 = m.AddConsumer("b");
  EXPECT_EQ(c1->link_id, 1u);
  EXPECT_EQ(c2->link_id, 2u);
  c2->scanned = 9;
  MetricsSnapshot s = m.Collect(nullptr);
  ASSERT_EQ(s.streams.size(), 1u);
  EXPECT_EQ(s.streams[0].appended_messages, 3u);
  EXPECT_EQ(s.streams[0].appended_bytes, 30u);
  ASSERT_EQ(s.consumers.size(), 2u);
  EXPECT_EQ(s.consumer_links, 2);
  EXPECT_EQ(s.consumers[1].scanned, 9u);
  m.RemoveConsumer(c1.get());
  m.RemoveConsumer(c1.get());
  EXPECT_EQ(m.Collect(nullptr).consumer_links, 1);
}

TEST(ServeMetrics, StreamsBeyondTheBoundAreSummedAndSeriesStay) {
  ServeMetrics m;
  for (const char* name : {"d", "c", "b", "a"}) m.Stream(name)->appended_messages = 1;
  m.Stream("c")->appended_bytes = 7;
  m.Stream("d")->appended_bytes = 5;
  // Without stored bytes (no engine) the free places go by name: a and b.
  MetricsSnapshot s = m.Collect(nullptr, 2);
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_EQ(s.streams[0].name, "a");
  EXPECT_EQ(s.streams[1].name, "b");
  EXPECT_EQ(s.stream_count, 4u);
  EXPECT_EQ(s.other_stream_count, 2u);
  EXPECT_EQ(s.other_streams.appended_messages, 2u);
  EXPECT_EQ(s.other_streams.appended_bytes, 12u);
  const std::string text = RenderPrometheusText(s);
  EXPECT_TRUE(Contains(text, "\nsift_stream_appended_bytes_total 12\n")) << text;
  EXPECT_TRUE(Contains(text, "\nsift_streams 4\n"));
  EXPECT_TRUE(Contains(text, "\nsift_streams_summed 2\n"));
  EXPECT_FALSE(Contains(text, "stream=\"c\""));
  // A new stream that sorts first does not take a place from a stream that has one.
  m.Stream("0")->appended_messages = 1;
  s = m.Collect(nullptr, 2);
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_EQ(s.streams[0].name, "a");
  EXPECT_EQ(s.streams[1].name, "b");
  EXPECT_EQ(s.other_stream_count, 3u);
  // Without a bound, or within it, nothing is summed and no unlabelled sample is written.
  s = m.Collect(nullptr, 0);
  EXPECT_EQ(s.streams.size(), 5u);
  EXPECT_EQ(s.other_stream_count, 0u);
  EXPECT_FALSE(Contains(RenderPrometheusText(s), "\nsift_stream_appended_bytes_total "));
}

std::string Answer(const std::string& head) {
  return AnswerMetricsRequest(head, [] { return std::string("sift_up 1\n"); });
}

TEST(MetricsEndpoint, AnswersMetricsAndRefusesTheRest) {
  const std::string ok = Answer("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_TRUE(Contains(ok, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_TRUE(Contains(ok, "Content-Length: 10\r\n"));
  EXPECT_TRUE(Contains(ok, "Connection: close\r\n"));
  EXPECT_TRUE(Contains(ok, "\r\n\r\nsift_up 1\n"));
  EXPECT_EQ(Answer("GET /metrics?x=1 HTTP/1.0\n\n").rfind("HTTP/1.1 200 OK", 0), 0u);
  const std::string head = Answer("HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(Contains(head, "Content-Length: 10\r\n"));
  EXPECT_FALSE(Contains(head, "sift_up"));
  EXPECT_EQ(Answer("GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404 Not Found", 0), 0u);
  EXPECT_EQ(Answer("GET /metricsx HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404 Not Found", 0), 0u);
  const std::string post = Answer("POST /metrics HTTP/1.1\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 405 Method Not Allowed", 0), 0u);
  EXPECT_TRUE(Contains(post, "Allow: GET, HEAD\r\n"));
  for (const char* bad : {"\r\n\r\n", "GET\r\n\r\n", "GET /metrics\r\n\r\n", "GET /metrics SPDY/3\r\n\r\n",
                          "GET  /metrics HTTP/1.1\r\n\r\n", "GET /metrics HTTP/1.1 extra\r\n\r\n"}) {
    EXPECT_EQ(Answer(bad).rfind("HTTP/1.1 400 Bad Request", 0), 0u) << bad;
  }
}

// Connects to the endpoint, sends `request`, reads until the server closes (at most 10 s).
std::string Exchange(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return "connect failed";
  }
  if (!request.empty()) (void)send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return reply;
}

TEST(MetricsEndpoint, ServesOverLoopbackAndBoundsRequests) {
  MetricsEndpoint endpoint([] { return std::string("sift_up 1\n"); });
  std::string error;
  ASSERT_TRUE(endpoint.Start("127.0.0.1", "0", &error)) << error;
  const std::string& address = endpoint.address();
  ASSERT_EQ(address.rfind("127.0.0.1:", 0), 0u) << address;
  const int port = std::stoi(address.substr(address.rfind(':') + 1));
  ASSERT_GT(port, 0);

  // A client that connects and says nothing holds no one up: the next scrape is served meanwhile.
  int silent = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(silent, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string reply = Exchange(port, "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_TRUE(Contains(reply, "\r\n\r\nsift_up 1\n"));
  close(silent);

  EXPECT_EQ(Exchange(port, "GET /other HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  const std::string huge = "GET /metrics HTTP/1.1\r\nX: " + std::string(MetricsEndpoint::kMaxRequestBytes, 'a');
  EXPECT_EQ(Exchange(port, huge).rfind("HTTP/1.1 431", 0), 0u);
  endpoint.Stop();
  endpoint.Stop();
}

TEST(MetricsEndpoint, AnAddressInUseIsAnError) {
  MetricsEndpoint first([] { return std::string(); });
  std::string error;
  ASSERT_TRUE(first.Start("127.0.0.1", "0", &error)) << error;
  const std::string port = first.address().substr(first.address().rfind(':') + 1);
  MetricsEndpoint second([] { return std::string(); });
  EXPECT_FALSE(second.Start("127.0.0.1", port, &error));
  EXPECT_TRUE(Contains(error, "in use")) << error;
  MetricsEndpoint nowhere([] { return std::string(); });
  EXPECT_FALSE(nowhere.Start("no-such-host.invalid", "0", &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace sift::tools
