// RunServe: options to a running endpoint — store, authentication, TLS, signals (see serve.h).
#include "tools/serve/serve.h"

#include <proton/ssl.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

#include "sift/stream_engine.h"
#include "tools/serve/authenticator.h"
#include "tools/serve/pem_encryption.h"
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

// Whether HOST (of --listen) is a loopback address: only then may anonymous clients be served
// without --allow-anonymous. An empty host listens on every interface.
bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The password of the TLS key: the first line of --tls-key-password-file, else $SIFT_TLS_KEY_PASSWORD,
// else none (empty). False with *error when the file cannot be read.
bool KeyPassword(const ServeOptions& options, std::string* password, std::string* error) {
  password->clear();
  if (!options.tls_key_password_file.empty()) {
    std::ifstream in(options.tls_key_password_file);
    if (!in) {
      *error = options.tls_key_password_file + ": cannot read the key password file";
      return false;
    }
    std::getline(in, *password);
    if (!password->empty() && password->back() == '\r') password->pop_back();
    return true;
  }
  const char* env = getenv("SIFT_TLS_KEY_PASSWORD");
  if (env != nullptr) *password = env;
  return true;
}

// Refuses an encrypted key without a password, and an encrypted block in the certificate or CA file,
// before OpenSSL reads them (pem_encryption.h): false with *error.
bool CheckPemFiles(const ServeOptions& options, const std::string& key, const std::string& password,
                   std::string* error) {
  PemEncryption found;
  if (!ScanPemEncryption(key, &found, error)) return false;
  if (found.key && password.empty()) {
    *error = key + ": the private key is encrypted and no password was given: " +
             (options.tls_key_password_file.empty()
                  ? "put it in a file (--tls-key-password-file FILE) or in $SIFT_TLS_KEY_PASSWORD"
                  : "the first line of " + options.tls_key_password_file + " is empty");
    return false;
  }
  for (const std::string& path : {options.tls_cert, options.tls_ca}) {
    if (path.empty() || path == key) continue;
    if (!ScanPemEncryption(path, &found, error)) return false;
    if (found.other) {
      *error = path + ": holds an encrypted PEM block (certificates are never encrypted)";
      return false;
    }
  }
  return true;
}

// The TLS versions (--tls-min-version and up) and TLS 1.2 cipher suites (--tls-ciphers, else
// kDefaultTlsCiphers) of `ssl`. 0, or 2 after the usage error line.
int SetTlsVersionsAndCiphers(const ServeOptions& options, pn_ssl_domain_t* ssl) {
  const char* protocols = options.tls_min_version == "1.3" ? "TLSv1.3" : "TLSv1.2 TLSv1.3";
  if (pn_ssl_domain_set_protocols(ssl, protocols) != 0) {
    fprintf(stderr, "sift: bad usage: --tls-min-version %s: OpenSSL cannot serve %s\n", options.tls_min_version.c_str(),
            protocols);
    return 2;
  }
  std::string ciphers = options.tls_ciphers.empty() ? kDefaultTlsCiphers : options.tls_ciphers;
  // Proton lowers the security level to 0 for servers that do not verify clients; a list that says
  // nothing of it keeps level 2.
  if (ciphers.find("@SECLEVEL=") == std::string::npos) ciphers += ":@SECLEVEL=2";
  if (pn_ssl_domain_set_ciphers(ssl, ciphers.c_str()) != 0) {
    fprintf(stderr, "sift: bad usage: --tls-ciphers '%s': OpenSSL finds no cipher suite in it\n",
            options.tls_ciphers.c_str());
    return 2;
  }
  return 0;
}

// Refuses unsafe or contradictory access options (exit 2) and warns about risky ones; 0 when fine.
int CheckAccessOptions(const ServeOptions& options, const std::string& host) {
  if (options.allow_anonymous && !options.users_file.empty()) {
    fprintf(stderr,
            "sift: bad usage: --allow-anonymous: with --users, anonymous clients get what the file's "
            "'anonymous' entry grants\n");
    return 2;
  }
  if (options.users_file.empty() && !options.allow_anonymous && !IsLoopbackHost(host)) {
    fprintf(stderr,
            "sift: bad usage: --listen %s: anonymous access on an address that is not loopback: give a users "
            "file (--users) or allow it explicitly (--allow-anonymous)\n",
            options.listen.c_str());
    return 2;
  }
  if (options.tls_verify_peer != !options.tls_ca.empty()) {
    fprintf(stderr, "sift: bad usage: %s: --tls-ca and --tls-verify-peer go together (mutual TLS)\n",
            options.tls_verify_peer ? "--tls-verify-peer" : "--tls-ca");
    return 2;
  }
  if (options.tls_cert.empty() && (options.tls_verify_peer || !options.tls_key_password_file.empty() ||
                                   !options.tls_ciphers.empty() || options.tls_min_version != "1.2")) {
    fprintf(stderr, "sift: bad usage: %s: needs --tls-cert\n",
            options.tls_verify_peer                  ? "--tls-verify-peer"
            : !options.tls_key_password_file.empty() ? "--tls-key-password-file"
            : !options.tls_ciphers.empty()           ? "--tls-ciphers"
                                                     : "--tls-min-version");
    return 2;
  }
  if (options.allow_anonymous && !IsLoopbackHost(host) && options.tls_cert.empty()) {
    fprintf(stderr,
            "sift serve: warning: anonymous clients from any address, without TLS: anyone who reaches %s may "
            "read, write and create every stream, in clear\n",
            options.listen.c_str());
  }
  return 0;
}

}  // namespace

int RunServe(const ServeOptions& options) {
  std::string host, port;
  if (!SplitListen(options.listen, &host, &port)) {
    fprintf(stderr, "sift: bad usage: --listen %s: expected HOST:PORT\n", options.listen.c_str());
    return 2;
  }
  if (int rc = CheckAccessOptions(options, host); rc != 0) return rc;
  // ANONYMOUS until a users file loads.
  auto authenticator =
      std::make_unique<Authenticator>(options.allow_anonymous, options.tls_verify_peer && !options.users_file.empty(),
                                      options.verbose, /*tls=*/!options.tls_cert.empty());
  if (!options.users_file.empty()) {
    std::string error;
    if (!authenticator->Load(options.users_file, &error)) {
      fprintf(stderr, "sift: bad users file: %s\n", error.c_str());
      return 2;
    }
    if (authenticator->offers_anonymous() && !IsLoopbackHost(host) && options.tls_cert.empty()) {
      fprintf(stderr,
              "sift serve: warning: the users file grants anonymous access and %s is not loopback: anonymous "
              "clients are served without TLS\n",
              options.listen.c_str());
    }
  }
  pn_ssl_domain_t* ssl = nullptr;
  if (!options.tls_cert.empty()) {
    std::string password, error;
    if (!KeyPassword(options, &password, &error)) {
      fprintf(stderr, "sift: bad TLS credentials: %s\n", error.c_str());
      return 2;
    }
    const std::string& key = options.tls_key.empty() ? options.tls_cert : options.tls_key;
    if (!CheckPemFiles(options, key, password, &error)) {
      fprintf(stderr, "sift: bad TLS credentials: %s\n", error.c_str());
      explicit_bzero(password.data(), password.size());
      return 2;
    }
    ssl = pn_ssl_domain(PN_SSL_MODE_SERVER);
    // Never a null password: Proton then installs its own password callback, and OpenSSL's prompt
    // (which reads the terminal, or stdin) can never run. CheckPemFiles refused an encrypted key
    // without a password already.
    if (ssl == nullptr ||
        pn_ssl_domain_set_credentials(ssl, options.tls_cert.c_str(), key.c_str(), password.c_str()) != 0) {
      fprintf(stderr, "sift: bad TLS credentials: %s: cannot load the certificate or its key%s\n",
              options.tls_cert.c_str(), password.empty() ? "" : " (with the given key password)");
      if (ssl) pn_ssl_domain_free(ssl);
      explicit_bzero(password.data(), password.size());
      return 2;
    }
    explicit_bzero(password.data(), password.size());  // OpenSSL has decrypted the key
    if (options.tls_verify_peer &&
        (pn_ssl_domain_set_trusted_ca_db(ssl, options.tls_ca.c_str()) != 0 ||
         pn_ssl_domain_set_peer_authentication(ssl, PN_SSL_VERIFY_PEER, options.tls_ca.c_str()) != 0)) {
      fprintf(stderr, "sift: bad TLS credentials: %s: cannot load the CA certificates\n", options.tls_ca.c_str());
      pn_ssl_domain_free(ssl);
      return 2;
    }
    if (int rc = SetTlsVersionsAndCiphers(options, ssl); rc != 0) {
      pn_ssl_domain_free(ssl);
      return rc;
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
  // ...and consumers see a round's messages once that fsync returned (none with --no-sync).
  eo.store.deferred_sync = options.sync;
  eo.store.max_message_bytes = options.max_message_bytes;
  eo.summarize_chunks = options.summarize;
  if (options.compression) eo.store.compression = *options.compression;
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
