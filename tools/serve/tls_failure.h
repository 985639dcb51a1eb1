// The cause of a failed connection on the TLS listener, for the one log line each such failure gets
// whether or not the server is verbose: a TLS handshake that failed (no client certificate, one that
// does not verify, no protocol version or cipher suite in common, ...) or a client that did not speak
// TLS at all. Proton reports both as the transport's error condition (PN_TRANSPORT_ERROR): a TLS
// failure as "SSL Failure: " and the first OpenSSL error of the handshake, plaintext as the policy or
// framing error of its protocol detection.
//
// OpenSSL 3.0 says "certificate verify failed" alike for a certificate no CA of --tls-ca signed, an
// expired one and one not yet valid: the reason it found stays inside the handshake (the alert the
// client gets names it), so the line says the three possibilities.
#ifndef SIFT_TOOLS_SERVE_TLS_FAILURE_H_
#define SIFT_TOOLS_SERVE_TLS_FAILURE_H_

#include <string>
#include <string_view>

namespace sift::tools {

// What went wrong, in words, from the transport's condition: `name` and `description` as Proton set
// them, `encrypted` whether TLS was established. "" when the error is not a TLS failure (a login
// refused, a protocol error inside TLS, a socket closed before it sent anything): those are logged
// elsewhere or only when verbose.
std::string TlsFailureCause(std::string_view name, std::string_view description, bool encrypted);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_TLS_FAILURE_H_
