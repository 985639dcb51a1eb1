// RunServe: options to a running endpoint — store, authentication, TLS, signals (see serve.h).
#include "tools/serve/serve.h"

#include <proton/ssl.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "sift/stream_engine.h"
#include "tools/serve/plain_authenticator.h"
#include "tools/serve/server.h"

namespace sift::tools {
namespace {

std::string StoreFolder(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = getenv("SIFT_STORE");
  if (env != nullptr && *env != '\0') return env;
  return "./sift-data";
}

// "HOST:PORT", "[v6]:PORT" or ":PORT" (all interfaces).
bool SplitListen(const std::string& listen, std::string* host, std::string* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) return false;
  *host = listen.substr(0, colon);
  *port = listen.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  for (char c : *port) {
    if (c < '0' || c > '9') return false;
  }
  return std::atoi(port->c_str()) <= 65535;
}

}  // namespace

int RunServe(const ServeOptions& options) {
  std::string host, port;
  if (!SplitListen(options.listen, &host, &port)) {
    fprintf(stderr, "sift: bad usage: --listen %s: expected HOST:PORT\n", options.listen.c_str());
    return 2;
  }
  auto authenticator = std::make_unique<PlainAuthenticator>();  // ANONYMOUS until a user file loads
  if (!options.users_file.empty()) {
    std::string error;
    if (!authenticator->Load(options.users_file, &error)) {
      fprintf(stderr, "sift: bad user file: %s\n", error.c_str());
      return 2;
    }
  }
  pn_ssl_domain_t* ssl = nullptr;
  if (!options.tls_cert.empty()) {
    ssl = pn_ssl_domain(PN_SSL_MODE_SERVER);
    const std::string& key = options.tls_key.empty() ? options.tls_cert : options.tls_key;
    if (ssl == nullptr || pn_ssl_domain_set_credentials(
                              ssl, options.tls_cert.c_str(), key.c_str(),
                              options.tls_key_password.empty() ? nullptr : options.tls_key_password.c_str()) != 0) {
      fprintf(stderr, "sift: bad TLS credentials: %s: cannot load the certificate or its key\n",
              options.tls_cert.c_str());
      if (ssl) pn_ssl_domain_free(ssl);
      return 2;
    }
  } else if (!options.tls_key.empty()) {
    fprintf(stderr, "sift: bad usage: --tls-key: needs --tls-cert\n");
    return 2;
  }

  // Block the shutdown signals before any thread starts (RocksDB starts its own in Open), so every thread inherits the
  // mask and the server's signal thread is the only one that takes them. SIGPIPE: a peer closing mid-write is an
  // ordinary event for the proactor, never a reason to die.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  signal(SIGPIPE, SIG_IGN);

  // Each connection holds a socket: allow as many as the hard limit does (the soft limit is often
  // 1024, below --max-connections plus --max-handshakes).
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  // Proton stops listening when accept fails for want of descriptors: say so while it can be fixed.
  const uint64_t sockets = uint64_t{options.max_connections} + options.max_handshakes + 256;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY && files.rlim_cur < sockets) {
    fprintf(stderr,
            "sift serve: warning: the open-files limit (%llu) is below --max-connections + --max-handshakes + 256 "
            "(%llu): a flood of sockets can exhaust it\n",
            static_cast<unsigned long long>(files.rlim_cur), static_cast<unsigned long long>(sockets));
  }

  const std::string store = StoreFolder(options.store);
  engine::EngineOptions eo;
  eo.store.sync = false;  // the append worker fsyncs once per round (Flush), not once per batch
  eo.store.max_message_bytes = options.max_message_bytes;
  if (options.max_chunk_bytes > 0) eo.store.max_chunk_bytes = options.max_chunk_bytes;
  if (options.max_chunk_messages > 0) eo.store.max_chunk_messages = options.max_chunk_messages;
  // eo.validate stays on: the engine validates each transfer and refuses a malformed one alone
  // (StreamEngine::AppendEach).
  std::unique_ptr<engine::StreamEngine> engine;
  engine::Status s = engine::StreamEngine::Open(store, eo, &engine);
  if (!s.ok()) {
    fprintf(stderr, "sift: cannot open store: %s: %s\n", store.c_str(), s.ToString().c_str());
    if (ssl) pn_ssl_domain_free(ssl);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return 3;
  }

  int rc;
  {
    ServeOptions resolved = options;
    resolved.store = store;  // the folder whose free space --min-disk-free watches
    Server server(resolved, engine.get(), authenticator.get(), ssl);
    rc = server.Run(host, port);
  }
  s = engine->Flush();
  if (!s.ok()) {
    fprintf(stderr, "sift: cannot flush store: %s: %s\n", store.c_str(), s.ToString().c_str());
    if (rc == 0) rc = 3;
  }
  engine.reset();
  timespec zero{0, 0};
  while (sigtimedwait(&set, nullptr, &zero) > 0) {
  }  // a second SIGTERM during shutdown must not kill the process once unblocked
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (ssl) pn_ssl_domain_free(ssl);
  if (rc == 0) fprintf(stderr, "sift serve: stopped\n");
  return rc;
}

}  // namespace sift::tools
