// Who a connection is, and what that user may do: the server side of SASL for a Proton transport, and
// the permissions of the users file (users_file.h; docs/serve.md, "Users and permissions").
//
// Without a users file: SASL ANONYMOUS only (clients that skip SASL are welcome too), from loopback
// peers only unless `allow_remote_anonymous`; an anonymous client may do everything.
// With a users file: SASL PLAIN (RFC 4616) against the file's password hashes; ANONYMOUS as well when
// the file has an `anonymous` entry with at least one permission line; EXTERNAL as well when TLS
// verifies client certificates, naming the user by the certificate subject's one common name
// (certificate_name.h). Clients must authenticate. Each user may do what her permission lines grant.
// On a TLS listener no mechanism is offered to a client that reaches SASL in clear: it is refused
// before it can send a password.
//
// Proton's built-in SASL offers only ANONYMOUS and EXTERNAL, and the Cyrus build Debian ships needs a
// system-wide SASL configuration; this is a small pnx_sasl_implementation (proton/sasl_plugin.h) with
// no configuration beyond the users file, loaded once at start-up. A failed login is logged on stderr
// (peer, user name, reason; never the password), a successful one when verbose.
//
// A PLAIN password is hashed by a LoginChecker (login_checker.h) on threads of its own when one is
// attached: the transport waits without an outcome meanwhile, and the event thread sends it once the
// verdict is posted back (Complete). ANONYMOUS and EXTERNAL cost no hashing and are decided at once.
//
// The table is immutable after Load(); Attach() may be called from the event thread for any number
// of transports, which keep a pointer to the authenticator: it must outlive them.
#ifndef SIFT_TOOLS_SERVE_AUTHENTICATOR_H_
#define SIFT_TOOLS_SERVE_AUTHENTICATOR_H_

#include <functional>
#include <string>
#include <string_view>

#include "tools/serve/login_checker.h"
#include "tools/serve/users_file.h"

struct pn_transport_t;

namespace sift::tools {

// A PLAIN login's verdict from the LoginChecker, carried back to the event thread.
struct PendingLogin {
  std::string user;     // the authentication identity the client sent
  std::string authzid;  // the authorization identity it sent (may be empty)
  LoginChecker::Verdict verdict = LoginChecker::Verdict::kRejected;
};
// Called on a checker thread with the verdict: must hand it to the connection's event thread, which
// then calls Authenticator::Complete.
using LoginPoster = std::function<void(PendingLogin)>;
// Whether the connection still waits for its verdict (LoginChecker::Wanted).
using LoginWanted = std::function<bool()>;

class Authenticator {
 public:
  // `allow_remote_anonymous`: without a users file, accept anonymous clients from any address, not
  // only from loopback. `external`: offer SASL EXTERNAL (TLS verifies client certificates). `tls`: the
  // listener serves TLS only, so a client that reaches SASL in clear is offered no mechanism and
  // refused (PLAIN would send its password in clear).
  Authenticator(bool allow_remote_anonymous, bool external, bool verbose, bool tls = false)
      : allow_remote_anonymous_(allow_remote_anonymous), external_(external), verbose_(verbose), tls_(tls) {}

  // Reads the users file. False with *error ("FILE: line N: why") when it cannot be read or parsed.
  bool Load(const std::string& path, std::string* error);

  // Makes `transport` (server side, before it is bound) offer the mechanisms above. With `checker`,
  // PLAIN passwords are checked there and their verdicts come back through `post`; without, they are
  // checked at once on the calling thread. `wanted` lets the checker drop the check of a client that
  // has gone.
  void Attach(pn_transport_t* transport, LoginChecker* checker = nullptr, LoginPoster post = {},
              LoginWanted wanted = {}) const;

  // Sends the SASL outcome of a PLAIN login whose verdict `post` delivered (event thread only).
  void Complete(pn_transport_t* transport, const PendingLogin& login) const;

  // True when `user` has a password hash and `password` matches it. An unknown user costs the same
  // time as a wrong password.
  bool Check(std::string_view user, std::string_view password) const;

  // Whether a client authenticated as `user` from `transport` may stay: false with *why when there is
  // no users file, the peer is not loopback and remote anonymous clients are not allowed. (With a
  // users file, Proton itself refuses clients that skip SASL, and ANONYMOUS is offered only when the
  // file grants it.)
  bool Admits(pn_transport_t* transport, std::string_view user, std::string* why) const;

  // True when `user` may do `permission` on `stream`.
  bool Allows(std::string_view user, Permission permission, std::string_view stream) const;

  // True while no users file is loaded (anonymous clients only, with every permission).
  bool open() const { return !loaded_; }
  // True when SASL ANONYMOUS is offered.
  bool offers_anonymous() const;
  bool external() const { return external_; }
  bool tls() const { return tls_; }
  bool verbose() const { return verbose_; }
  const UsersFile& users() const { return users_; }

 private:
  bool allow_remote_anonymous_;
  bool external_;
  bool verbose_;
  bool tls_;
  bool loaded_ = false;
  UsersFile users_;
};

// True when the transport's peer is a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104).
bool PeerIsLoopback(pn_transport_t* transport);
// "HOST:PORT" of the transport's peer, or "unknown peer".
std::string PeerName(pn_transport_t* transport);
// The host of the transport's peer, without port; empty when unknown.
std::string PeerHost(pn_transport_t* transport);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_AUTHENTICATOR_H_
