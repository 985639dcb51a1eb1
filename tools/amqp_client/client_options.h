// How `sift capture --from` and `sift replay|filter --to` reach a broker: the URL, TLS and SASL.
//
// TLS (amqps://): the broker's certificate is checked against --tls-ca (else the system's trusted
// CAs) and its name against the URL's host; --tls-cert/--tls-key present a client certificate (SASL
// EXTERNAL). SASL: --user with --password-file (the file's first line) offers PLAIN; no user offers
// ANONYMOUS; a client certificate and no user offers EXTERNAL; --sasl-mechanisms overrides the choice.
// PLAIN is allowed over a connection without TLS (loopback brokers in tests, RabbitMQ's default
// listener); say amqps:// to keep the password off the wire.
#ifndef SIFT_TOOLS_AMQP_CLIENT_CLIENT_OPTIONS_H_
#define SIFT_TOOLS_AMQP_CLIENT_CLIENT_OPTIONS_H_

#include <string>

#include "sift/status.h"
#include "tools/amqp_client/broker_url.h"

namespace CLI {
class App;
}

namespace sift::tools::amqp_client {

struct ClientOptions {
  std::string tls_ca;           // PEM file of trusted CAs (amqps)
  std::string tls_cert;         // client certificate (PEM), for SASL EXTERNAL
  std::string tls_key;          // its key (default: in tls_cert)
  std::string user;             // SASL PLAIN user
  std::string password_file;    // the password: the file's first line
  std::string sasl_mechanisms;  // space-separated, overrides the choice above
  int connect_timeout_ms = 10000;
};

// Adds --tls-ca, --tls-cert, --tls-key, --user, --password-file and --sasl-mechanisms.
void AddClientFlags(CLI::App* command, ClientOptions* options);

// The settings checked together, the password read; `flag` ("--to") names the URL in errors.
// InvalidArgument naming the flag or file.
Status ResolveClientOptions(const ClientOptions& options, const BrokerUrl& url, std::string* password);

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_CLIENT_OPTIONS_H_
