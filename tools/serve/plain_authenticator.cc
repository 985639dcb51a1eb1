// SASL ANONYMOUS, or PLAIN against a user file, as a Proton SASL plug-in (see plain_authenticator.h).
#include "tools/serve/plain_authenticator.h"

#include <proton/sasl.h>
#include <proton/sasl_plugin.h>
#include <proton/transport.h>

#include <cstring>
#include <fstream>

namespace sift::tools {
namespace {

const PlainAuthenticator* Table(pn_transport_t* t) {
  return static_cast<const PlainAuthenticator*>(pnx_sasl_get_context(t));
}

void Free(pn_transport_t*) {}  // the table is not owned by the transport
const char* ListMechanisms(pn_transport_t* t) { return Table(t)->anonymous() ? "ANONYMOUS" : "PLAIN"; }
bool InitServer(pn_transport_t* t) {
  pnx_sasl_set_desired_state(t, SASL_POSTED_MECHANISMS);
  return true;
}
bool InitClient(pn_transport_t*) { return false; }
void Prepare(pn_transport_t*) {}

// RFC 4616: message = [authzid] NUL authcid NUL passwd.
void ProcessInit(pn_transport_t* t, const char* mechanism, const pn_bytes_t* recv) {
  bool ok = false;
  std::string user, authzid;
  if (Table(t)->anonymous()) {
    ok = strcmp(mechanism, "ANONYMOUS") == 0;
    user = "anonymous";
  } else if (strcmp(mechanism, "PLAIN") == 0 && recv != nullptr) {
    std::string_view in(recv->start, recv->size);
    size_t first = in.find('\0');
    size_t second = first == std::string_view::npos ? first : in.find('\0', first + 1);
    if (second != std::string_view::npos) {
      authzid = std::string(in.substr(0, first));
      user = std::string(in.substr(first + 1, second - first - 1));
      std::string_view password = in.substr(second + 1);
      ok = Table(t)->Check(user, password) && (authzid.empty() || authzid == user);
    }
  }
  if (ok) {
    pnx_sasl_set_succeeded(t, user.c_str(), authzid.empty() ? nullptr : authzid.c_str());
  } else {
    pnx_sasl_set_failed(t);
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

const pnx_sasl_implementation kPlainImplementation = {Free,
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

bool PlainAuthenticator::Load(const std::string& path, std::string* error) {
  anonymous_ = false;
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read the user file";
    return false;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
      *error = path + ": line " + std::to_string(number) + ": expected user:password";
      return false;
    }
    users_[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return true;
}

void PlainAuthenticator::Attach(pn_transport_t* transport) const {
  pn_sasl_t* sasl = pn_sasl(transport);
  pnx_sasl_set_implementation(transport, &kPlainImplementation, const_cast<PlainAuthenticator*>(this));
  pn_sasl_allowed_mechs(sasl, anonymous_ ? "ANONYMOUS" : "PLAIN");
  pn_sasl_set_allow_insecure_mechs(sasl, true);
  pn_transport_require_auth(transport, !anonymous_);  // anonymous: clients without SASL welcome too
}

bool PlainAuthenticator::Check(std::string_view user, std::string_view password) const {
  auto it = users_.find(user);
  if (it == users_.end()) return false;
  const std::string& expected = it->second;
  if (expected.empty()) return password.empty();
  // Constant time in the password's content (its length is not hidden).
  unsigned char diff = expected.size() == password.size() ? 0 : 1;
  for (size_t i = 0; i < password.size(); ++i) {
    diff |= static_cast<unsigned char>(password[i] ^ expected[i % expected.size()]);
  }
  return diff == 0;
}

}  // namespace sift::tools
