// MetricsEndpoint: the small HTTP/1.1 server behind `sift serve --metrics HOST:PORT`.
//
// One thread of its own, plain POSIX sockets and poll(2): `GET /metrics` (or HEAD) is answered with
// the page the render function returns, as `text/plain; version=0.0.4`, with Content-Length and
// `Connection: close`; any other path is 404, any other method 405, a malformed request 400. A
// hostile client cannot hold it: a request head is at most kMaxRequestBytes (else 431), each
// connection must be read and answered within kConnectionTimeout (else it is closed), and at most
// kMaxClients are served at once: a connection beyond them closes the oldest one that has not sent its
// whole request yet (or, when every one is being answered, is closed itself), so clients that connect
// and trickle bytes cannot keep a scraper out. Nothing here touches
// Proton or the engine except through the render function, called on the endpoint's thread.
#ifndef SIFT_TOOLS_SERVE_METRICS_ENDPOINT_H_
#define SIFT_TOOLS_SERVE_METRICS_ENDPOINT_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace sift::tools {

// The whole HTTP response (status line, headers, body) to a complete request head `head` (up to and
// including the blank line); `render` makes the metrics page. Pure apart from `render`: unit-tested.
std::string AnswerMetricsRequest(std::string_view head, const std::function<std::string()>& render);

class MetricsEndpoint {
 public:
  static constexpr size_t kMaxRequestBytes = 8192;
  static constexpr size_t kMaxClients = 16;
  static constexpr std::chrono::milliseconds kConnectionTimeout{5000};

  explicit MetricsEndpoint(std::function<std::string()> render) : render_(std::move(render)) {}
  ~MetricsEndpoint() { Stop(); }
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Listens on `host`:`port` (port "0": any free port) and starts serving. False with *error (the
  // system's reason) when the address cannot be resolved, bound or listened on.
  bool Start(const std::string& host, const std::string& port, std::string* error);
  // "HOST:PORT" actually bound (after Start).
  const std::string& address() const { return address_; }
  // Stops the thread and closes every socket (idempotent).
  void Stop();

 private:
  void Loop();

  std::function<std::string()> render_;
  std::string address_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};  // a pipe: Stop writes a byte to end poll()
  std::thread thread_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_METRICS_ENDPOINT_H_
