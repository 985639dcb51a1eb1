// RunServe: options to a running endpoint, in steps: the listen address and access options, the users
// file, the TLS credentials, the process (signals, open files), the store, then the server (serve.h).
#include "tools/serve/serve.h"

#include <malloc.h>
#include <proton/ssl.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

#include "sift/stream_engine.h"
#include "tools/error_line.h"
#include "tools/proton_handles.h"
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
// kDefaultTlsCiphers) of `ssl`. kExitMatched, or kExitUsage after the error line.
int SetTlsVersionsAndCiphers(const ServeOptions& options, pn_ssl_domain_t* ssl) {
  const char* protocols = options.tls_min_version == "1.3" ? "TLSv1.3" : "TLSv1.2 TLSv1.3";
  if (pn_ssl_domain_set_protocols(ssl, protocols) != 0) {
    PrintError("bad usage", "--tls-min-version " + options.tls_min_version,
               std::string("OpenSSL cannot serve ") + protocols);
    return kExitUsage;
  }
  std::string ciphers = options.tls_ciphers.empty() ? kDefaultTlsCiphers : options.tls_ciphers;
  // Proton lowers the security level to 0 for servers that do not verify clients; a list that says
  // nothing of it keeps level 2.
  if (ciphers.find("@SECLEVEL=") == std::string::npos) ciphers += ":@SECLEVEL=2";
  if (pn_ssl_domain_set_ciphers(ssl, ciphers.c_str()) != 0) {
    PrintError("bad usage", "--tls-ciphers '" + options.tls_ciphers + "'", "OpenSSL finds no cipher suite in it");
    return kExitUsage;
  }
  return kExitMatched;
}

// Refuses unsafe or contradictory access options (kExitUsage after the error line) and warns about
// risky ones; kExitMatched when fine.
int CheckAccessOptions(const ServeOptions& options, const std::string& host) {
  if (options.allow_anonymous && !options.users_file.empty()) {
    PrintError("bad usage", "--allow-anonymous",
               "with --users, anonymous clients get what the file's 'anonymous' entry grants");
    return kExitUsage;
  }
  if (options.users_file.empty() && !options.allow_anonymous && !IsLoopbackHost(host)) {
    PrintError("bad usage", "--listen " + options.listen,
               "anonymous access on an address that is not loopback: give a users file (--users) or allow it "
               "explicitly (--allow-anonymous)");
    return kExitUsage;
  }
  if (options.tls_verify_peer != !options.tls_ca.empty()) {
    PrintError("bad usage", options.tls_verify_peer ? "--tls-verify-peer" : "--tls-ca",
               "--tls-ca and --tls-verify-peer go together (mutual TLS)");
    return kExitUsage;
  }
  if (options.tls_cert.empty() && (options.tls_verify_peer || !options.tls_key_password_file.empty() ||
                                   !options.tls_ciphers.empty() || options.tls_min_version != "1.2")) {
    PrintError("bad usage",
               options.tls_verify_peer                  ? "--tls-verify-peer"
               : !options.tls_key_password_file.empty() ? "--tls-key-password-file"
               : !options.tls_ciphers.empty()           ? "--tls-ciphers"
                                                        : "--tls-min-version",
               "needs --tls-cert");
    return kExitUsage;
  }
  if (options.tls_cert.empty() && !options.tls_key.empty()) {
    PrintError("bad usage", "--tls-key", "needs --tls-cert");
    return kExitUsage;
  }
  if (options.allow_anonymous && !IsLoopbackHost(host) && options.tls_cert.empty()) {
    fprintf(stderr,
            "sift serve: warning: anonymous clients from any address, without TLS: anyone who reaches %s may "
            "read, write and create every stream, in clear\n",
            options.listen.c_str());
  }
  return kExitMatched;
}

// The authenticator: anonymous clients only, or the users file's. kExitUsage after the error line
// when the file cannot be read.
int LoadUsers(const ServeOptions& options, const std::string& host, std::unique_ptr<Authenticator>* out) {
  auto authenticator =
      std::make_unique<Authenticator>(options.allow_anonymous, options.tls_verify_peer && !options.users_file.empty(),
                                      options.verbose, /*tls=*/!options.tls_cert.empty());
  if (!options.users_file.empty()) {
    std::string error;
    if (!authenticator->Load(options.users_file, &error)) {
      PrintError("bad users file", "", error);
      return kExitUsage;
    }
    if (authenticator->offers_anonymous() && !IsLoopbackHost(host) && options.tls_cert.empty()) {
      fprintf(stderr,
              "sift serve: warning: the users file grants anonymous access and %s is not loopback: anonymous "
              "clients are served without TLS\n",
              options.listen.c_str());
    }
  }
  *out = std::move(authenticator);
  return kExitMatched;
}

// The server's TLS domain (null without --tls-cert). kExitUsage after the error line when the
// credentials, the CA file or the TLS settings cannot be used. The key's password never outlives this
// call.
int MakeTlsDomain(const ServeOptions& options, SslDomainPtr* out) {
  if (options.tls_cert.empty()) return kExitMatched;
  std::string password, error;
  if (!KeyPassword(options, &password, &error)) {
    PrintError("bad TLS credentials", "", error);
    return kExitUsage;
  }
  struct Wipe {
    std::string* secret;
    ~Wipe() { explicit_bzero(secret->data(), secret->size()); }
  } wipe{&password};
  const std::string& key = options.tls_key.empty() ? options.tls_cert : options.tls_key;
  if (!CheckPemFiles(options, key, password, &error)) {
    PrintError("bad TLS credentials", "", error);
    return kExitUsage;
  }
  SslDomainPtr ssl(pn_ssl_domain(PN_SSL_MODE_SERVER));
  // Never a null password: Proton then installs its own password callback, and OpenSSL's prompt
  // (which reads the terminal, or stdin) can never run. CheckPemFiles refused an encrypted key
  // without a password already.
  if (ssl == nullptr ||
      pn_ssl_domain_set_credentials(ssl.get(), options.tls_cert.c_str(), key.c_str(), password.c_str()) != 0) {
    PrintError("bad TLS credentials", options.tls_cert,
               std::string("cannot load the certificate or its key") +
                   (password.empty() ? "" : " (with the given key password)"));
    return kExitUsage;
  }
  if (options.tls_verify_peer &&
      (pn_ssl_domain_set_trusted_ca_db(ssl.get(), options.tls_ca.c_str()) != 0 ||
       pn_ssl_domain_set_peer_authentication(ssl.get(), PN_SSL_VERIFY_PEER, options.tls_ca.c_str()) != 0)) {
    PrintError("bad TLS credentials", options.tls_ca, "cannot load the CA certificates");
    return kExitUsage;
  }
  if (int rc = SetTlsVersionsAndCiphers(options, ssl.get()); rc != kExitMatched) return rc;
  *out = std::move(ssl);
  return kExitMatched;
}

// Blocks the shutdown signals (*blocked, the mask before them in *old) before any thread starts
// (RocksDB starts its own in Open), so every thread inherits the mask and the server's signal thread
// is the only one that takes them; ignores SIGPIPE (a peer closing mid-write is an ordinary event for
// the proactor, never a reason to die); raises the open-files limit to the hard limit, since each
// connection holds a socket, and warns when that is still too low.
void PrepareProcess(const ServeOptions& options, sigset_t* blocked, sigset_t* old) {
  sigemptyset(blocked);
  sigaddset(blocked, SIGTERM);
  sigaddset(blocked, SIGINT);
  pthread_sigmask(SIG_BLOCK, blocked, old);
  signal(SIGPIPE, SIG_IGN);

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
}

// Undoes PrepareProcess's mask; a shutdown signal that came in the meantime is taken first, so that a
// second SIGTERM during shutdown cannot kill the process once unblocked.
void RestoreProcess(const sigset_t& blocked, const sigset_t& old) {
  timespec zero{0, 0};
  while (sigtimedwait(&blocked, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// The engine's options for the store as the server uses it.
EngineOptions ServedEngineOptions(const ServeOptions& options) {
  EngineOptions eo;
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
  return eo;
}

// Opens the store as the server uses it. kExitStorage after the error line when it cannot.
int OpenServedStore(const ServeOptions& options, const std::string& store, std::unique_ptr<StreamEngine>* out) {
  Status s = StreamEngine::Open(store, ServedEngineOptions(options), out);
  if (!s.ok()) {
    PrintError("cannot open store", store, s.ToString());
    return kExitStorage;
  }
  return kExitMatched;
}

// Opens the store again after a failure only a reopen recovers from (Server::kReopenStore). The file
// system had room when the server closed its connections for it, but may have filled again since:
// tried every second, the error logged whenever it changes, until the store opens or SIGTERM or
// SIGINT (`signals`, blocked) comes, which is kExitStorage. Nothing listens meanwhile.
int ReopenServedStore(const ServeOptions& options, const std::string& store, const sigset_t& signals,
                      std::unique_ptr<StreamEngine>* out) {
  std::string last;
  for (;;) {
    Status s = StreamEngine::Open(store, ServedEngineOptions(options), out);
    if (s.ok()) return kExitMatched;
    if (s.ToString() != last) {
      last = s.ToString();
      PrintError("cannot reopen store (trying again every second)", store, last);
    }
    timespec wait{1, 0};
    if (sigtimedwait(&signals, nullptr, &wait) > 0) {
      PrintError("cannot open store", store, last);
      return kExitStorage;
    }
  }
}

}  // namespace

int RunServe(const ServeOptions& options) {
  std::string host, port;
  if (!SplitListen(options.listen, &host, &port)) {
    PrintError("bad usage", "--listen " + options.listen, "expected HOST:PORT");
    return kExitUsage;
  }
  if (int rc = CheckAccessOptions(options, host); rc != kExitMatched) return rc;
  std::unique_ptr<Authenticator> authenticator;
  if (int rc = LoadUsers(options, host, &authenticator); rc != kExitMatched) return rc;
  SslDomainPtr ssl;
  if (int rc = MakeTlsDomain(options, &ssl); rc != kExitMatched) return rc;
  // Messages above a few MB (read for consumers, dropped and read again under memory pressure) get
  // pages of their own, given back when freed. glibc's moving threshold would otherwise serve them
  // from the heap after the first was freed, where what slow consumers made the server read stays
  // resident until a trim; chunk buffers (up to 1 MiB) stay in the heap, warm.
  mallopt(M_MMAP_THRESHOLD, 4 << 20);

  sigset_t blocked, old;
  PrepareProcess(options, &blocked, &old);
  ServeOptions resolved = options;
  resolved.store = StoreFolder(options.store);  // also the folder whose free space --min-disk-free watches
  std::unique_ptr<StreamEngine> engine;
  if (int rc = OpenServedStore(options, resolved.store, &engine); rc != kExitMatched) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return rc;
  }
  int rc;
  ServeOptions serving = resolved;
  for (;;) {
    std::string bound_port, metrics_address;
    {
      Server server(serving, engine.get(), authenticator.get(), ssl.get());
      rc = server.Run(host, port);
      bound_port = server.listening_port();
      metrics_address = server.metrics_address();
    }
    if (rc != Server::kReopenStore) break;
    // The store failed in a way only a reopen recovers from (StoreHealth::needs_reopen), and the file
    // system has room again: reopened here, from its files, and served again on the same addresses
    // (the ports chosen the first time, when 0 was given), as a restart would.
    if (!bound_port.empty()) port = bound_port;
    if (!metrics_address.empty()) serving.metrics = metrics_address;
    engine.reset();
    if (int open_rc = ReopenServedStore(options, resolved.store, blocked, &engine); open_rc != kExitMatched) {
      RestoreProcess(blocked, old);
      return open_rc;
    }
    fprintf(stderr, "sift serve: the store takes appends again (reopened)\n");
  }
  Status s = engine->Flush();
  if (!s.ok()) {
    PrintError("cannot flush store", resolved.store, s.ToString());
    if (rc == kExitMatched) rc = kExitStorage;
  }
  engine.reset();
  RestoreProcess(blocked, old);
  if (rc == kExitMatched) fprintf(stderr, "sift serve: stopped\n");
  return rc;
}

}  // namespace sift::tools
