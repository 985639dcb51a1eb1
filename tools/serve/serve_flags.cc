// The command-line flags of `sift serve` / `sift-serve` (CLI11), bound to ServeOptions.
#include <CLI/CLI.hpp>

#include "tools/serve/serve.h"

namespace sift::tools {

void AddServeFlags(CLI::App* app, ServeOptions* o) {
  app->add_option("--listen", o->listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
  app->add_option("--store", o->store, "store folder (default $SIFT_STORE, else ./sift-data)");
  app->add_flag("--no-auto-create{false}", o->auto_create,
                "refuse links to streams that do not exist (amqp:not-found)");
  app->add_option("--users", o->users_file, "SASL PLAIN user file: one user:password per line")
      ->check(CLI::ExistingFile);
  app->add_option("--tls-cert", o->tls_cert, "PEM certificate: serve TLS only")->check(CLI::ExistingFile);
  app->add_option("--tls-key", o->tls_key, "PEM private key of --tls-cert")->check(CLI::ExistingFile);
  app->add_option("--tls-key-password", o->tls_key_password, "password of --tls-key");
  app->add_flag("--no-sync{false}", o->sync,
                "acknowledge appends before fsync (survive a crash of the process, not of the machine)");
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
  app->add_flag("-v,--verbose", o->verbose, "log connections and links on stderr");
}

}  // namespace sift::tools
