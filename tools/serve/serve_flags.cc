// The command-line flags of `sift serve` / `sift-serve` (CLI11), bound to ServeOptions.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "tools/units.h"
#include "tools/serve/serve.h"
#include "tools/compression_flag.h"
#include "tools/unit_flags.h"

namespace sift::tools {

void AddServeFlags(CLI::App* app, ServeOptions* o) {
  app->add_option("--listen", o->listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
  app->add_option("--store", o->store, "store folder (default $SIFT_STORE, else ./sift-data)");
  app->add_flag("--no-auto-create{false}", o->auto_create,
                "refuse links to streams that do not exist (amqp:not-found)");
  app->add_option("--users", o->users_file, "users file: password hashes and permissions (sift users)")
      ->check(CLI::ExistingFile);
  app->add_flag("--allow-anonymous", o->allow_anonymous,
                "without --users, accept anonymous clients from any address, not only loopback");
  app->add_option("--tls-cert", o->tls_cert, "PEM certificate: serve TLS only")->check(CLI::ExistingFile);
  app->add_option("--tls-key", o->tls_key, "PEM private key of --tls-cert")->check(CLI::ExistingFile);
  app->add_option("--tls-key-password-file", o->tls_key_password_file,
                  "file holding the password of --tls-key (else $SIFT_TLS_KEY_PASSWORD)")
      ->check(CLI::ExistingFile);
  // A password on the command line shows in `ps` and in shell histories: the old flag is an error
  // saying where the password goes now.
  app->add_option_function<std::string>("--tls-key-password",
                                        [](const std::string&) {
                                          throw CLI::ValidationError(
                                              "--tls-key-password",
                                              "a password is not taken on the command line: put it in a file "
                                              "(--tls-key-password-file FILE) or in $SIFT_TLS_KEY_PASSWORD");
                                        })
      ->group("");
  app->add_option("--tls-ca", o->tls_ca, "PEM CA certificates that sign client certificates (mutual TLS)")
      ->check(CLI::ExistingFile);
  app->add_flag("--tls-verify-peer", o->tls_verify_peer, "require a client certificate signed by a CA of --tls-ca");
  app->add_option("--tls-min-version", o->tls_min_version, "lowest TLS version served: 1.2 or 1.3")
      ->capture_default_str()
      ->check(CLI::IsMember({"1.2", "1.3"}));
  app->add_option("--tls-ciphers", o->tls_ciphers,
                  "TLS 1.2 cipher suites, OpenSSL cipher-list syntax (default: ECDHE and DHE with AES-GCM or "
                  "ChaCha20-Poly1305)");
  app->add_flag("--no-sync{false}", o->sync,
                "acknowledge appends before fsync (survive a crash of the process, not of the machine)");
  app->add_flag("--no-summary{false}", o->summarize,
                "write no chunk summaries (appends cost less CPU; filtered consumers then read every chunk)");
  app->add_option("--max-frame-size", o->max_frame_size, "largest AMQP frame, bytes")
      ->capture_default_str()
      ->check(CLI::Range(512u, 1u << 30));
  app->add_option("--max-sessions", o->max_sessions, "sessions per connection")
      ->capture_default_str()
      ->check(CLI::Range(1u, 65536u));
  app->add_option("--max-links", o->max_links, "links per connection")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--max-connections", o->max_connections, "simultaneous connections")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--max-message-size", o->max_message_bytes, "largest message, bytes")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 30));
  app->add_option("--producer-credit", o->producer_credit, "credit window of each producer link")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--reader-threads", o->reader_threads, "threads scanning streams for consumers")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  AddByteSizeOption(app, "--max-chunk-bytes", &o->max_chunk_bytes, 1, 1u << 30,
                    "close a chunk before its records pass this size (default 1MiB)");
  app->add_option("--max-chunk-messages", o->max_chunk_messages, "messages per chunk at most (default 4096)")
      ->check(CLI::Range(1u, 1u << 20));
  AddByteSizeOption(app, "--retention-max-bytes", &o->retention_max_bytes, 0, std::numeric_limits<uint64_t>::max(),
                    "streams the server creates keep at most this many stored bytes (0: no limit)")
      ->capture_default_str();
  AddDurationOption(app, "--retention-max-age", &o->retention_max_age_ms, 0, std::numeric_limits<int64_t>::max(),
                    "streams the server creates keep messages this long, e.g. 7d (0: no limit)")
      ->capture_default_str();
  AddCompressionFlag(app, &o->compression, "the streams the server creates (default: none)");
  AddDurationOption(app, "--retention-interval", &o->retention_interval_ms, 0, int64_t{7} * 86'400'000,
                    "apply every stream's retention this often, e.g. 30s (0: only on append)")
      ->default_str(FormatDuration(o->retention_interval_ms));
  AddByteSizeOption(app, "--max-connection-output", &o->max_connection_output, 64u << 10, uint64_t{1} << 32,
                    "stop sending to a connection with this much output queued until its socket drains")
      ->default_str(FormatByteSize(o->max_connection_output));
  AddByteSizeOption(app, "--memory-budget", &o->memory_budget, 0, std::numeric_limits<uint64_t>::max(),
                    "withhold producer credit while received and queued bytes reach this (0: no budget)")
      ->default_str(FormatByteSize(o->memory_budget));
  AddByteSizeOption(app, "--min-disk-free", &o->min_disk_free, 0, std::numeric_limits<uint64_t>::max(),
                    "withhold producer credit while the store's file system has less free (0: no check)")
      ->default_str(FormatByteSize(o->min_disk_free));
  AddDurationOption(app, "--handshake-timeout", &o->handshake_timeout_ms, 100, 3'600'000,
                    "close a socket that has not completed AMQP header, SASL and open within this")
      ->default_str(FormatDuration(o->handshake_timeout_ms));
  AddDurationOption(app, "--idle-timeout", &o->idle_timeout_ms, 0, 86'400'000,
                    "close a connection silent for this long; heartbeats keep live ones open (0: none)")
      ->default_str(FormatDuration(o->idle_timeout_ms));
  app->add_option("--max-handshakes", o->max_handshakes, "sockets still in their handshake; beyond: oldest closed")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--login-threads", o->login_threads, "threads that check the passwords of PLAIN logins")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  app->add_option("--max-pending-logins", o->max_pending_logins,
                  "PLAIN logins waiting for their password check; beyond: refused unchecked")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  app->add_option("--max-connections-per-address", o->max_connections_per_address,
                  "open connections per client address (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1u << 20));
  app->add_option("--max-streams", o->max_streams,
                  "streams the store may hold; a link that would create one more is refused (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1u << 30));
  app->add_option("--metrics-max-streams", o->metrics_max_streams,
                  "streams with series of their own on the metrics page; the others are summed (0: all)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1u << 30));
  AddDurationOption(app, "--reader-slice", &o->reader_slice_ms, 1, 60'000,
                    "longest turn of one consumer's scan on a reader thread")
      ->default_str(FormatDuration(o->reader_slice_ms));
  app->add_option("--metrics", o->metrics, "serve Prometheus metrics at http://HOST:PORT/metrics")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const size_t colon = v.rfind(':');
            const bool port_ok = colon != std::string::npos && colon + 1 < v.size() && v.size() - colon - 1 <= 5 &&
                                 v.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                                 std::stoul(v.substr(colon + 1)) <= 65535;
            return port_ok ? std::string() : "expected HOST:PORT (port 0 to 65535), got '" + v + "'";
          },
          "HOST:PORT"));
  app->add_flag("-v,--verbose", o->verbose, "log connections and links on stderr");
}

}  // namespace sift::tools
