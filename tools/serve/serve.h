// `sift serve`: an AMQP 1.0 endpoint (Qpid Proton proactor) in front of an StreamEngine.
//
// Producers attach a sender whose target address names a stream; every transfer is validated,
// appended, and settled `accepted` only once the append is durable (a worker thread group-commits
// the appends of many transfers with one fsync), `rejected` with amqp:decode-error naming the byte
// and the reason, nothing stored, or `modified` (delivery-failed) when the store failed: the client
// may send it again. Consumers see a message once it is durable. Consumers attach a receiver whose
// source address names a stream and whose filter-set (link_filter.h) selects messages and a start
// position; only matching messages use credit, each carries its offset in the message annotation
// `x-stream-offset`, and consumers tail new appends. Consumers scan on a pool of reader threads, so
// neither a slow consumer nor a long filtered scan ever blocks the event loop, appends or other
// consumers. Who may connect, and read, write or create which streams, is the users file
// (authenticator.h, users_file.h); without one only anonymous clients from loopback are served.
// docs/serve.md is the manual.
#ifndef SIFT_TOOLS_SERVE_SERVE_H_
#define SIFT_TOOLS_SERVE_SERVE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "sift/options.h"

namespace CLI {
class App;
}

namespace sift::tools {

// TLS 1.2 suites served by default: forward secret key exchange (ECDHE, DHE) and AEAD ciphers only,
// so no RSA key exchange, no CBC with SHA-1, no CCM8; security level 2 (RSA keys of 2048 bits and
// more, no SHA-1 signatures).
inline constexpr const char* kDefaultTlsCiphers =
    "ECDHE+AESGCM:ECDHE+CHACHA20:DHE+AESGCM:DHE+CHACHA20:!aNULL:!eNULL:!PSK:!SRP:!DSS:@SECLEVEL=2";

struct ServeOptions {
  // HOST:PORT to listen on; port 0 picks a free port (the "listening on" line tells which).
  std::string listen = "127.0.0.1:5672";
  // The store folder; empty means $SIFT_STORE, else ./sift-data. Created when missing.
  std::string store;
  // Create a stream the first time a producer or consumer attaches to it; when false such a link is
  // refused with amqp:not-found.
  bool auto_create = true;
  // The users file (users_file.h: password hashes and permissions per user). Empty: only SASL
  // ANONYMOUS is offered, with every permission, to loopback peers (any peer with allow_anonymous).
  std::string users_file;
  // Without a users file, accept anonymous clients from any address; needed to listen on anything but
  // loopback without a users file.
  bool allow_anonymous = false;
  // TLS: PEM certificate chain and private key, and a file holding the key's password (else
  // $SIFT_TLS_KEY_PASSWORD, if set). With a certificate, clients must use TLS.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_key_password_file;
  // Mutual TLS: clients must present a certificate signed by a CA of this PEM file (both set or
  // neither). With a users file, SASL EXTERNAL then logs in the user named by the certificate's CN.
  std::string tls_ca;
  bool tls_verify_peer = false;
  // The lowest TLS version served, "1.2" or "1.3".
  std::string tls_min_version = "1.2";
  // The TLS 1.2 cipher suites, in OpenSSL's cipher-list syntax; empty: kDefaultTlsCiphers. (TLS 1.3
  // suites are OpenSSL's defaults, all of them forward secret and AEAD.) OpenSSL's security level is
  // 2 unless the list sets another with @SECLEVEL=N.
  std::string tls_ciphers;
  // fsync before `accepted` (true), or acknowledge once the append reached the OS (survives a process
  // crash, not a power loss).
  bool sync = true;
  // Write a summary of every chunk appended (EngineOptions::summarize_chunks), so that filtered
  // consumers skip chunks that cannot match; off saves its CPU on every append.
  bool summarize = true;
  // Largest AMQP frame accepted and sent, in bytes.
  uint32_t max_frame_size = 256u << 10;
  // Sessions per connection (the channel-max of the open frame, plus one).
  uint32_t max_sessions = 16;
  // Links per connection.
  uint32_t max_links = 64;
  // Simultaneous connections.
  uint32_t max_connections = 1024;
  // Largest message accepted from a producer, in bytes (larger: rejected, message-size-exceeded).
  uint32_t max_message_bytes = 16u << 20;
  // Credit window granted to each producer link: transfers in flight before acknowledgements.
  uint32_t producer_credit = 1000;
  // Threads that scan streams for consumers.
  uint32_t reader_threads = 2;
  // Chunk bounds of what the server appends (storage::StoreOptions max_chunk_bytes and
  // max_chunk_messages); 0 keeps the store's default (1 MiB, 4096 messages).
  uint32_t max_chunk_bytes = 0;
  uint32_t max_chunk_messages = 0;
  // Retention of every stream the server creates (auto-create), RetentionPolicy: stored bytes
  // and age in milliseconds, 0 for no limit. A stream that exists keeps its own (`sift stream
  // set-retention` changes it).
  uint64_t retention_max_bytes = 0;
  int64_t retention_max_age_ms = 0;
  // How the streams the server creates store their chunks (StoreOptions::compression).
  std::optional<ChunkCompression> compression;
  // Every this many milliseconds the server applies every stream's retention
  // (StreamEngine::EnforceRetention), so age limits also hold on streams nobody appends to; appends
  // apply it to the streams they touch in any case. 0: no timer.
  int64_t retention_interval_ms = 5000;
  // Hostile or careless clients (docs/serve.md, "Resource limits"):
  // Bytes queued for one connection's consumers (Proton's unsent output) at which the server stops
  // handing it deliveries until its socket drains.
  uint64_t max_connection_output = 4u << 20;
  // Server-wide memory budget (received transfers not yet appended plus queued output): at the budget
  // producer credit is withheld until use falls below 90% of it (flow_control.h). 0: no budget.
  uint64_t memory_budget = uint64_t{1} << 30;
  // Producer credit is withheld while the store's file system has less than this free. 0: no check.
  uint64_t min_disk_free = 50u << 20;
  // A socket must complete the AMQP header, SASL and open within this many milliseconds, else it is
  // closed.
  int64_t handshake_timeout_ms = 5000;
  // Threads that hash the passwords of PLAIN logins (LoginChecker), and the logins that may wait for
  // one; a login beyond them is refused unchecked.
  uint32_t login_threads = 1;
  uint32_t max_pending_logins = 256;
  // Idle timeout announced in open (Proton sends heartbeats and closes a peer silent for this long).
  // 0: none.
  int64_t idle_timeout_ms = 60000;
  // Sockets still in their handshake, at most (more than max_connections: they are cheap and short
  // lived); beyond it the oldest is closed.
  uint32_t max_handshakes = 2048;
  // Open connections per client address (0: no limit).
  uint32_t max_connections_per_address = 0;
  // The longest turn one consumer's scan takes on a reader thread before the next consumer's turn.
  int64_t reader_slice_ms = 2;
  // Streams the store may hold: a link that would create one more is refused
  // (amqp:resource-limit-exceeded). 0: no limit.
  uint32_t max_streams = 10000;
  // HOST:PORT of the Prometheus metrics endpoint (GET /metrics, metrics_endpoint.h); empty: none.
  std::string metrics;
  // Streams with per-stream series on the metrics page; the others are summed (ServeMetrics::Collect).
  // 0: every stream.
  uint32_t metrics_max_streams = 100;
  // Print connection-level events on stderr.
  bool verbose = false;
};

// Adds the serve flags (--listen, --store, --no-auto-create, --users, --tls-cert, ...) to `app`,
// bound to *options. Sizes and durations are read strictly (tools/unit_flags.h): a bad value is a
// CLI11 ValidationError naming the flag.
void AddServeFlags(CLI::App* app, ServeOptions* options);

// Opens the store, listens, and serves until SIGTERM or SIGINT, then shuts down gracefully:
// it stops listening, lets in-flight appends finish and settles them, closes the connections and
// flushes the store. Prints "sift serve: listening on HOST:PORT" on stdout once listening. Returns the
// process exit code: 0 after a clean shutdown, 2 for bad options, 3 when the store cannot be opened
// or the address cannot be listened on (the error line on stderr, `sift: <what>: <where>: <why>`).
int RunServe(const ServeOptions& options);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_SERVE_H_
