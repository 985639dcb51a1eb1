// TlsFailureCause: the transport conditions Proton 0.37 and OpenSSL 3.0 give for each way a client
// fails the TLS listener (texts taken from a running server), in words; other errors are no TLS
// failure.
#include "tools/serve/tls_failure.h"

#include <gtest/gtest.h>

namespace sift::tools {
namespace {

constexpr const char* kFraming = "amqp:connection:framing-error";

TEST(TlsFailure, HandshakeFailuresAreExplainedWithOpenSslsReason) {
  EXPECT_EQ(
      TlsFailureCause(kFraming, "SSL Failure: error:0A0000C7:SSL routines::peer did not return a certificate", false),
      "no client certificate (--tls-verify-peer requires one signed by a CA of --tls-ca) (OpenSSL: peer did not "
      "return a certificate)");
  EXPECT_EQ(TlsFailureCause(kFraming, "SSL Failure: error:0A000086:SSL routines::certificate verify failed", false),
            "the client certificate does not verify against --tls-ca: signed by another CA, expired or not yet valid "
            "(OpenSSL: certificate verify failed)");
  EXPECT_EQ(TlsFailureCause(kFraming, "SSL Failure: error:0A000102:SSL routines::unsupported protocol", false),
            "the client offers no TLS version the server accepts (--tls-min-version) (OpenSSL: unsupported protocol)");
  EXPECT_EQ(TlsFailureCause(kFraming, "SSL Failure: error:0A0000C1:SSL routines::no shared cipher", false),
            "no cipher suite in common with the client (--tls-ciphers) (OpenSSL: no shared cipher)");
}

TEST(TlsFailure, OtherOpenSslReasonsAreGivenAsTheyAre) {
  EXPECT_EQ(TlsFailureCause(kFraming, "SSL Failure: error:0A000418:SSL routines::tlsv1 alert unknown ca", false),
            "tlsv1 alert unknown ca (OpenSSL: tlsv1 alert unknown ca)");
  EXPECT_EQ(TlsFailureCause(kFraming, "SSL Failure: Unknown error", true), "Unknown error (OpenSSL: Unknown error)");
}

TEST(TlsFailure, PlaintextOnTheTlsPort) {
  EXPECT_EQ(TlsFailureCause("amqp:connection:policy-error", "Client connection unencrypted - forbidden", false),
            "plaintext AMQP on the TLS port (clients must connect with amqps://)");
  EXPECT_EQ(TlsFailureCause("amqp:connection:policy-error", "Client skipped authentication - forbidden", false),
            "plaintext AMQP on the TLS port (clients must connect with amqps://)");
  EXPECT_EQ(TlsFailureCause(kFraming, "Unknown protocol detected: 'GET / HTTP/1.0\\x0d\\x0a\\x0d\\x0a'", false),
            "not TLS on the TLS port: Unknown protocol detected: 'GET / HTTP/1.0\\x0d\\x0a\\x0d\\x0a'");
}

TEST(TlsFailure, OtherErrorsAreNoTlsFailure) {
  // Inside TLS: a client that skipped SASL, a refused login (logged as such), a protocol error.
  EXPECT_EQ(TlsFailureCause("amqp:connection:policy-error", "Client skipped authentication - forbidden", true), "");
  EXPECT_EQ(TlsFailureCause("amqp:unauthorized-access", "Failed to authenticate client [mech=PLAIN]", false), "");
  EXPECT_EQ(TlsFailureCause(kFraming, "connection aborted", true), "");
  // A socket closed before it sent a byte, or a handshake deadline: no client spoke at all.
  EXPECT_EQ(TlsFailureCause(kFraming, "No protocol header found (connection aborted)", false), "");
  EXPECT_EQ(TlsFailureCause("amqp:resource-limit-exceeded", "no AMQP open within the handshake deadline", false), "");
}

}  // namespace
}  // namespace sift::tools
