// Server: the event loop of `sift serve` (private to tools/serve; serve.h is the entry point).
// Its state is Server::Impl (server_impl.h); the event loop is server.cc, the reader threads
// server_readers.cc, the append worker and the retention timer server_append.cc.
//
// Threads and who owns what:
// - the event thread (the caller of Run) is the only one that touches Proton objects: it accepts
//   connections, opens sessions, attaches links, reads transfers and sends deliveries;
// - the append worker takes completed transfers and appends each stream's share with one
//   StreamEngine::AppendEach (the engine validates each transfer and refuses a malformed one alone;
//   the others are stored as one atomic write), makes the round durable with one fsync (group commit)
//   and posts the outcomes back;
// - the retention timer applies every stream's retention (StreamEngine::EnforceRetention) every
//   ServeOptions::retention_interval_ms, so age limits hold on streams nobody appends to;
// - reader threads poll consumers (Consumer), annotate each match with its offset and post the
//   deliveries back; a consumer that caught up parks until its stream is appended to.
// Workers never call Proton except pn_connection_wake, under the connection's mutex and only while
// the connection is alive (the wake is the only thread-safe call on a connection).
#ifndef SIFT_TOOLS_SERVE_SERVER_H_
#define SIFT_TOOLS_SERVE_SERVER_H_

#include <memory>

#include "sift/stream_engine.h"
#include "tools/serve/authenticator.h"
#include "tools/serve/flow_control.h"
#include "tools/serve/serve.h"

struct pn_ssl_domain_t;

namespace sift::tools {

class Server {
 public:
  // `engine` must outlive the server; `authenticator` decides SASL and permissions (never null), `ssl` is null without
  // TLS (both outlive the server).
  Server(const ServeOptions& options, StreamEngine* engine, const Authenticator* authenticator, pn_ssl_domain_t* ssl);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Listens on `host`:`port` and serves until SIGTERM / SIGINT. Returns the exit code (0, or 3 when the
  // address cannot be listened on), or kReopenStore. Every worker has stopped and every consumer is
  // gone on return.
  int Run(const std::string& host, const std::string& port);

  // Run's answer when the store failed in a way RocksDB cannot resume from in place
  // (StoreHealth::needs_reopen) and the file system has room again: the server closed every
  // connection as on SIGTERM, so that the caller can reopen the store and serve it again on the same
  // addresses (listening_port(), metrics_address()). Never an exit code.
  static constexpr int kReopenStore = -1;

  // After Run: the port it listened on (the one given, or the one chosen for port 0; empty if none),
  // and the metrics endpoint's HOST:PORT (empty without --metrics).
  std::string listening_port() const;
  std::string metrics_address() const;

  // The memory and disk alarms and the byte counts behind them, from any thread (flow_control.h).
  FlowState flow_state() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_SERVER_H_
