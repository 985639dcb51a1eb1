// MetricsEndpoint: one thread multiplexing the listening socket and a few clients with poll(2)
// (see metrics_endpoint.h).
#include "tools/serve/metrics_endpoint.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace sift::tools {
namespace {

std::string Response(const char* status, std::string_view extra_headers, const std::string& content_type,
                     const std::string& body, bool head_only) {
  std::string r = "HTTP/1.1 ";
  r += status;
  r += "\r\nContent-Type: ";
  r += content_type;
  r += "\r\nContent-Length: ";
  r += std::to_string(body.size());
  r += "\r\nConnection: close\r\n";
  r += extra_headers;
  r += "\r\n";
  if (!head_only) r += body;
  return r;
}

std::string PlainError(const char* status, std::string_view extra_headers, const std::string& message) {
  return Response(status, extra_headers, "text/plain; charset=utf-8", message + "\n", false);
}

// Where a complete request head ends (one past its blank line), or npos.
size_t HeadEnd(std::string_view data) {
  size_t crlf = data.find("\r\n\r\n");
  size_t lf = data.find("\n\n");
  if (crlf == std::string_view::npos && lf == std::string_view::npos) return std::string_view::npos;
  if (lf == std::string_view::npos || (crlf != std::string_view::npos && crlf < lf)) return crlf + 4;
  return lf + 2;
}

constexpr std::chrono::milliseconds kDrainTime{500};

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

std::string AnswerMetricsRequest(std::string_view head, const std::function<std::string()>& render) {
  std::string_view line = head.substr(0, head.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos ||
      line.substr(sp2 + 1).substr(0, 7) != "HTTP/1." || sp1 == 0 || sp2 == sp1 + 1) {
    return PlainError("400 Bad Request", "", "bad request: expected 'GET /metrics HTTP/1.1'");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) {
    return PlainError("405 Method Not Allowed", "Allow: GET, HEAD\r\n",
                      "method not allowed: " + std::string(method) + " (only GET and HEAD)");
  }
  const std::string_view path = target.substr(0, target.find('?'));
  if (path != "/metrics") {
    return PlainError("404 Not Found", "", "not found: " + std::string(path) + " (the metrics are at /metrics)");
  }
  return Response("200 OK", "", "text/plain; version=0.0.4; charset=utf-8", render(), head_only);
}

bool MetricsEndpoint::Start(const std::string& host, const std::string& port, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    *error = gai_strerror(rc);
    return false;
  }
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 16) != 0) {
      last = strerror(errno);
      close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  freeaddrinfo(found);
  if (listen_fd_ < 0) {
    *error = last;
    return false;
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  char h[NI_MAXHOST] = "", p[NI_MAXSERV] = "";
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len) == 0 &&
      getnameinfo(reinterpret_cast<sockaddr*>(&bound), len, h, sizeof h, p, sizeof p,
                  NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    const bool v6 = bound.ss_family == AF_INET6;
    address_.clear();
    if (v6) address_ += '[';
    address_ += h;
    if (v6) address_ += ']';
    address_ += ':';
    address_ += p;
  }
  if (pipe2(wake_fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
    *error = strerror(errno);
    CloseFd(&listen_fd_);
    return false;
  }
  thread_ = std::thread([this] { Loop(); });
  return true;
}

void MetricsEndpoint::Stop() {
  if (thread_.joinable()) {
    const char byte = 0;
    while (write(wake_fds_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  CloseFd(&listen_fd_);
  CloseFd(&wake_fds_[0]);
  CloseFd(&wake_fds_[1]);
}

void MetricsEndpoint::Loop() {
  using Clock = std::chrono::steady_clock;
  struct Client {
    int fd = -1;
    std::string in;
    std::string out;  // the response once the request is complete
    size_t sent = 0;
    bool writing = false;
    bool draining = false;  // answered: reads what the client still sends until it closes
    Clock::time_point deadline;
  };
  std::vector<Client> clients;
  std::vector<pollfd> fds;
  for (;;) {
    const auto now = Clock::now();
    int timeout_ms = 1000;
    for (const Client& c : clients) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, timeout_ms));
    }
    fds.clear();
    fds.push_back({wake_fds_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const Client& c : clients) {
      fds.push_back({c.fd, static_cast<short>(c.writing && !c.draining ? POLLOUT : POLLIN), 0});
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) break;  // Stop
    for (size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      const short revents = fds[i + 2].revents;
      bool done = false;
      if (revents != 0 && c.draining) {
        char buf[4096];
        ssize_t n = recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        done = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
      } else if (revents != 0 && !c.writing) {
        char buf[4096];
        ssize_t n = recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
          c.in.append(buf, static_cast<size_t>(n));
          const size_t end = HeadEnd(c.in);
          if (end != std::string::npos && end <= kMaxRequestBytes) {
            c.out = AnswerMetricsRequest(std::string_view(c.in).substr(0, end), render_);
            c.writing = true;
          } else if (c.in.size() > kMaxRequestBytes) {
            c.out = PlainError("431 Request Header Fields Too Large", "",
                               "request head larger than " + std::to_string(kMaxRequestBytes) + " bytes");
            c.writing = true;
          }
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          done = true;  // the client went away before finishing its request
        }
      } else if (revents != 0) {
        ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) c.sent += static_cast<size_t>(n);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          done = true;
        } else if (c.sent == c.out.size()) {
          // Closing with unread request bytes would reset the connection and could cost the client the
          // response: end our side, then read until the client closes (briefly).
          shutdown(c.fd, SHUT_WR);
          c.draining = true;
          c.deadline = std::min(c.deadline, Clock::now() + kDrainTime);
        }
      }
      if (done || Clock::now() >= c.deadline) {
        close(c.fd);
        c.fd = -1;
      }
    }
    clients.erase(std::remove_if(clients.begin(), clients.end(), [](const Client& c) { return c.fd < 0; }),
                  clients.end());
    if (fds[1].revents != 0) {
      for (;;) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        if (clients.size() >= kMaxClients) {
          // Full: make room by closing the oldest connection that has not sent its request yet. A
          // scraper sends its request as soon as it connects, so only clients that trickle or say
          // nothing lose their place, and they cannot keep a scraper out by holding every slot.
          auto idle = std::find_if(clients.begin(), clients.end(), [](const Client& c) { return !c.writing; });
          if (idle == clients.end()) {
            close(fd);  // every slot is answering a request: a scraper retries at its next interval
            continue;
          }
          close(idle->fd);
          clients.erase(idle);
        }
        Client c;
        c.fd = fd;
        c.deadline = Clock::now() + kConnectionTimeout;
        clients.push_back(std::move(c));
      }
    }
  }
  for (Client& c : clients) close(c.fd);
}

}  // namespace sift::tools
