// Words for the TLS failures Proton reports (see tls_failure.h).
#include "tools/serve/tls_failure.h"

namespace sift::tools {
namespace {

// The reason of an OpenSSL error string, "error:0A000086:SSL routines::certificate verify failed"
// (ERR_error_string_n: code, library, function, reason): the text after the fourth colon.
std::string_view OpenSslReason(std::string_view error) {
  if (error.substr(0, 6) != "error:") return error;
  size_t pos = 0;
  for (int colons = 0; colons < 4; ++colons) {
    pos = error.find(':', pos);
    if (pos == std::string_view::npos) return error;
    ++pos;
  }
  return error.substr(pos);
}

std::string Explain(std::string_view reason) {
  if (reason == "peer did not return a certificate") {
    return "no client certificate (--tls-verify-peer requires one signed by a CA of --tls-ca)";
  }
  if (reason == "certificate verify failed") {
    return "the client certificate does not verify against --tls-ca: signed by another CA, expired or not yet "
           "valid";
  }
  if (reason == "unsupported protocol")
    return "the client offers no TLS version the server accepts (--tls-min-version)";
  if (reason == "no shared cipher") return "no cipher suite in common with the client (--tls-ciphers)";
  return std::string(reason);
}

}  // namespace

std::string TlsFailureCause(std::string_view name, std::string_view description, bool encrypted) {
  constexpr std::string_view kSslFailure = "SSL Failure: ";
  if (description.substr(0, kSslFailure.size()) == kSslFailure) {
    const std::string_view reason = OpenSslReason(description.substr(kSslFailure.size()));
    return Explain(reason) + " (OpenSSL: " + std::string(reason) + ")";
  }
  if (encrypted) return "";
  // Proton's protocol detection saw an AMQP or SASL header in clear, or bytes of no known protocol.
  if (name == "amqp:connection:policy-error") {
    return "plaintext AMQP on the TLS port (clients must connect with amqps://)";
  }
  if (name == "amqp:connection:framing-error" &&
      (description.substr(0, 25) == "Unknown protocol detected" ||
       description.substr(0, 37) == "Incompatible AMQP connection detected")) {
    return "not TLS on the TLS port: " + std::string(description);
  }
  return "";
}

}  // namespace sift::tools
