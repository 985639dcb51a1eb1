// SASL ANONYMOUS, PLAIN and EXTERNAL as a Proton SASL plug-in, and the users' permissions (see
// authenticator.h).
#include "tools/serve/authenticator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <proton/netaddr.h>
#include <proton/sasl.h>
#include <proton/sasl_plugin.h>
#include <proton/ssl.h>
#include <proton/transport.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "tools/serve/certificate_name.h"
#include "tools/serve/password_hash.h"
#include "tools/serve/printable_text.h"

namespace sift::tools {
namespace {

// What each transport's SASL plug-in knows: owned by the transport, deleted by Free.
struct SaslContext {
  const Authenticator* table = nullptr;
  LoginChecker* checker = nullptr;  // null: passwords are checked at once
  LoginPoster post;
  LoginWanted wanted;
  bool checking = false;  // a PLAIN check is out; its outcome is not sent yet
};

SaslContext* Context(pn_transport_t* t) { return static_cast<SaslContext*>(pnx_sasl_get_context(t)); }
const Authenticator* Table(pn_transport_t* t) { return Context(t)->table; }

void Fail(pn_transport_t* t, const char* mechanism, std::string_view user, const std::string& reason) {
  fprintf(stderr, "sift serve: login failed: %s: user '%s' (%s): %s\n", PeerName(t).c_str(),
          PrintableText(user).c_str(), mechanism, reason.c_str());
  pnx_sasl_set_failed(t);
}

// `user` must outlive the transport: Proton keeps the pointer, not a copy. It is a name in the users
// table or the literal "anonymous".
void Succeed(pn_transport_t* t, const char* mechanism, const char* user, bool with_authzid) {
  if (Table(t)->verbose()) {
    fprintf(stderr, "sift serve: login: %s: user '%s' (%s)\n", PeerName(t).c_str(), PrintableText(user).c_str(),
            mechanism);
  }
  pnx_sasl_set_succeeded(t, user, with_authzid ? user : nullptr);
}

// True when `t` reached SASL in clear on the TLS listener: such a client is offered no mechanism, so a
// client that would send PLAIN has nothing to send it with.
bool ClearOnTlsListener(const Authenticator* a, pn_transport_t* t) {
  return a->tls() && !pnx_sasl_is_transport_encrypted(t);
}

// The mechanisms offered on an encrypted connection, or on any connection of a listener without TLS.
std::string Mechanisms(const Authenticator* a) {
  if (a->open()) return "ANONYMOUS";
  std::string m = "PLAIN";
  if (a->offers_anonymous()) m += " ANONYMOUS";
  if (a->external()) m += " EXTERNAL";
  return m;
}

// True when `mechanism` is one of the words of Mechanisms(a) and `t` may use it.
bool Offers(const Authenticator* a, pn_transport_t* t, std::string_view mechanism) {
  if (ClearOnTlsListener(a, t)) return false;
  const std::string all = Mechanisms(a);
  std::string_view list = all;
  while (!list.empty()) {
    const size_t space = list.find(' ');
    if (list.substr(0, space) == mechanism) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

void Free(pn_transport_t* t) { delete Context(t); }
const char* ListMechanisms(pn_transport_t* t) {
  // Proton copies the list before the next call; a static per combination keeps it alive meanwhile.
  static const char* const kLists[] = {"ANONYMOUS", "PLAIN", "PLAIN ANONYMOUS", "PLAIN EXTERNAL",
                                       "PLAIN ANONYMOUS EXTERNAL"};
  if (ClearOnTlsListener(Table(t), t)) return "";
  const std::string m = Mechanisms(Table(t));
  for (const char* list : kLists) {
    if (m == list) return list;
  }
  return "PLAIN";
}
bool InitServer(pn_transport_t* t) {
  if (ClearOnTlsListener(Table(t), t)) {
    // Refused before the client may choose a mechanism: an empty list, then the failed outcome. No
    // password reaches the server, so right and wrong ones cannot be told apart.
    fprintf(stderr, "sift serve: TLS failed: %s: plaintext SASL on the TLS port (clients must connect with amqps://)\n",
            PeerName(t).c_str());
    pnx_sasl_error(t, "SASL without TLS on the TLS port", "amqp:unauthorized-access");
    pnx_sasl_set_failed(t);
    pnx_sasl_set_desired_state(t, SASL_POSTED_OUTCOME);
    return true;
  }
  pnx_sasl_set_desired_state(t, SASL_POSTED_MECHANISMS);
  return true;
}
bool InitClient(pn_transport_t*) { return false; }
void Prepare(pn_transport_t*) {}

// The outcome of a PLAIN login once its password was checked: `user` and `authzid` as the client sent
// them.
void FinishPlain(pn_transport_t* t, const std::string& user, const std::string& authzid,
                 LoginChecker::Verdict verdict) {
  const UserEntry* entry = Table(t)->users().Find(user);
  switch (verdict) {
    case LoginChecker::Verdict::kAccepted: break;
    case LoginChecker::Verdict::kRejected:
      return Fail(t, "PLAIN", user,
                  entry == nullptr                ? "no such user"
                  : entry->name == kAnonymousUser ? "the anonymous entry has no password"
                                                  : "wrong password");
    case LoginChecker::Verdict::kLockedOut:
      return Fail(t, "PLAIN", user,
                  "too many failed logins for this user from this address; refused unchecked for a while");
    case LoginChecker::Verdict::kBusy:
      return Fail(t, "PLAIN", user, "too many logins waiting for their password check; refused unchecked");
  }
  if (!authzid.empty() && authzid != user) {
    return Fail(t, "PLAIN", user, "the authorization identity '" + PrintableText(authzid) + "' is not the user");
  }
  Succeed(t, "PLAIN", entry->name.c_str(), !authzid.empty());
}

// True when the outcome is decided now; false when the check went to the LoginChecker, whose verdict
// comes back through Authenticator::Complete.
bool PlainLogin(pn_transport_t* t, const pn_bytes_t* recv) {
  // RFC 4616: message = [authzid] NUL authcid NUL passwd.
  std::string_view in = recv == nullptr ? std::string_view() : std::string_view(recv->start, recv->size);
  size_t first = in.find('\0');
  size_t second = first == std::string_view::npos ? first : in.find('\0', first + 1);
  if (second == std::string_view::npos) {
    Fail(t, "PLAIN", "", "malformed PLAIN message");
    return true;
  }
  std::string authzid(in.substr(0, first));
  std::string user(in.substr(first + 1, second - first - 1));
  std::string_view password = in.substr(second + 1);
  SaslContext* ctx = Context(t);
  if (ctx->checker == nullptr) {
    FinishPlain(
        t, user, authzid,
        ctx->table->Check(user, password) ? LoginChecker::Verdict::kAccepted : LoginChecker::Verdict::kRejected);
    return true;
  }
  if (ctx->checking) {  // a second init before the first one's outcome: the protocol has one
    Fail(t, "PLAIN", user, "a second SASL init before the first one's outcome");
    return true;
  }
  PendingLogin pending{user, authzid, LoginChecker::Verdict::kRejected};
  auto verdict = ctx->checker->Submit(
      PeerHost(t), user, std::string(password),
      [post = ctx->post, pending](LoginChecker::Verdict v) mutable {
        pending.verdict = v;
        post(std::move(pending));
      },
      ctx->wanted);
  if (verdict.has_value()) {
    FinishPlain(t, user, authzid, *verdict);
    return true;
  }
  ctx->checking = true;
  return false;
}

void ExternalLogin(pn_transport_t* t) {
  // The subject as text, every value converted to UTF-8 and escaped (certificate_name.h), not the
  // raw bytes of the CN entry.
  pn_ssl_t* ssl = pn_ssl(t);
  const char* subject = ssl == nullptr ? nullptr : pn_ssl_get_remote_subject(ssl);
  if (subject == nullptr) return Fail(t, "EXTERNAL", "", "no client certificate");
  std::string cn, why;
  if (!CommonNameFromSubject(subject, &cn, &why)) {
    return Fail(t, "EXTERNAL", "", why + " (subject '" + PrintableText(subject) + "')");
  }
  const UserEntry* entry = Table(t)->users().Find(cn);
  if (entry == nullptr || entry->name == kAnonymousUser) {
    return Fail(t, "EXTERNAL", cn, "the certificate's common name is no user of the users file");
  }
  Succeed(t, "EXTERNAL", entry->name.c_str(), false);
}

void ProcessInit(pn_transport_t* t, const char* mechanism, const pn_bytes_t* recv) {
  const Authenticator* a = Table(t);
  if (ClearOnTlsListener(a, t)) {
    // InitServer refused (and logged) it already; Proton reads no further SASL frame then, but the
    // init's bytes are never looked at whatever it does.
    pnx_sasl_set_failed(t);
  } else if (!Offers(a, t, mechanism)) {
    Fail(t, mechanism, "", "mechanism not offered");
  } else if (strcmp(mechanism, "ANONYMOUS") == 0) {
    std::string why;
    if (a->Admits(t, kAnonymousUser, &why)) {
      Succeed(t, "ANONYMOUS", "anonymous", false);
    } else {
      Fail(t, "ANONYMOUS", kAnonymousUser, why);
    }
  } else if (strcmp(mechanism, "PLAIN") == 0) {
    if (!PlainLogin(t, recv)) return;  // the outcome is sent by Complete
  } else {
    ExternalLogin(t);
  }
  pnx_sasl_set_desired_state(t, SASL_POSTED_OUTCOME);
}
void ProcessResponse(pn_transport_t* t, const pn_bytes_t*) {
  pnx_sasl_set_failed(t);
  pnx_sasl_set_desired_state(t, SASL_POSTED_OUTCOME);
}
bool ProcessMechanisms(pn_transport_t*, const char*) { return false; }
void ProcessChallenge(pn_transport_t*, const pn_bytes_t*) {}
void ProcessOutcome(pn_transport_t*, const pn_bytes_t*) {}
bool CanEncrypt(pn_transport_t*) { return false; }
ssize_t MaxEncryptSize(pn_transport_t*) { return 0; }
ssize_t Encode(pn_transport_t*, pn_bytes_t, pn_bytes_t*) { return 0; }
ssize_t Decode(pn_transport_t*, pn_bytes_t, pn_bytes_t*) { return 0; }

const pnx_sasl_implementation kImplementation = {Free,
                                                 ListMechanisms,
                                                 InitServer,
                                                 InitClient,
                                                 Prepare,
                                                 ProcessInit,
                                                 ProcessResponse,
                                                 ProcessMechanisms,
                                                 ProcessChallenge,
                                                 ProcessOutcome,
                                                 CanEncrypt,
                                                 MaxEncryptSize,
                                                 Encode,
                                                 Decode};

}  // namespace

bool Authenticator::Load(const std::string& path, std::string* error) {
  UsersFile users;
  if (!ReadUsersFile(path, &users, error)) return false;
  users_ = std::move(users);
  loaded_ = true;
  return true;
}

bool Authenticator::offers_anonymous() const {
  if (!loaded_) return true;
  const UserEntry* entry = users_.Find(kAnonymousUser);
  return entry != nullptr && !entry->grants.empty();
}

void Authenticator::Attach(pn_transport_t* transport, LoginChecker* checker, LoginPoster post,
                           LoginWanted wanted) const {
  pn_sasl_t* sasl = pn_sasl(transport);
  auto* context = new SaslContext{this, post ? checker : nullptr, std::move(post), std::move(wanted), false};
  pnx_sasl_set_implementation(transport, &kImplementation, context);
  pn_sasl_allowed_mechs(sasl, Mechanisms(this).c_str());
  pn_sasl_set_allow_insecure_mechs(sasl, true);
  pn_transport_require_auth(transport, loaded_);  // without a users file, clients without SASL welcome too
}

void Authenticator::Complete(pn_transport_t* transport, const PendingLogin& login) const {
  SaslContext* ctx = Context(transport);
  if (ctx == nullptr || !ctx->checking) return;  // not waiting for a verdict
  ctx->checking = false;
  FinishPlain(transport, login.user, login.authzid, login.verdict);
  pnx_sasl_set_desired_state(transport, SASL_POSTED_OUTCOME);
}

bool Authenticator::Check(std::string_view user, std::string_view password) const {
  const UserEntry* entry = users_.Find(user);
  if (entry == nullptr || entry->hash.empty()) {
    VerifyNothing(password);
    return false;
  }
  return VerifyPassword(password, entry->hash);
}

bool Authenticator::Admits(pn_transport_t* transport, std::string_view user, std::string* why) const {
  (void)user;  // without a users file every client is anonymous, whatever Proton calls it
  if (loaded_ || allow_remote_anonymous_ || PeerIsLoopback(transport)) return true;
  *why = "anonymous access is allowed from loopback only (the server runs without --users or --allow-anonymous)";
  return false;
}

bool Authenticator::Allows(std::string_view user, Permission permission, std::string_view stream) const {
  if (!loaded_) return true;
  const UserEntry* entry = users_.Find(user);
  return entry != nullptr && entry->Allows(permission, stream);
}

bool PeerIsLoopback(pn_transport_t* transport) {
  const pn_netaddr_t* addr = pn_transport_remote_addr(transport);
  const sockaddr* sa = addr == nullptr ? nullptr : pn_netaddr_sockaddr(addr);
  if (sa == nullptr) return false;
  if (sa->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

std::string PeerHost(pn_transport_t* transport) {
  const pn_netaddr_t* addr = transport ? pn_transport_remote_addr(transport) : nullptr;
  char host[256] = "", port[32] = "";
  if (addr != nullptr) pn_netaddr_host_port(addr, host, sizeof host, port, sizeof port);
  return host;
}

std::string PeerName(pn_transport_t* transport) {
  const pn_netaddr_t* addr = pn_transport_remote_addr(transport);
  char buf[128];
  if (addr == nullptr || pn_netaddr_str(addr, buf, sizeof buf) <= 0) return "unknown peer";
  return buf;
}

}  // namespace sift::tools
