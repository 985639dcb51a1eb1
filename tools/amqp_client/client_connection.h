// The connection and transport every broker client of `sift` starts from (container id, host name,
// SASL user and password, TLS with trusted CAs, a client certificate and the broker's name checked
// against the URL's host, as client_options.h describes them), and how a broker's condition reads.
#ifndef SIFT_TOOLS_AMQP_CLIENT_CLIENT_CONNECTION_H_
#define SIFT_TOOLS_AMQP_CLIENT_CLIENT_CONNECTION_H_

#include <proton/condition.h>
#include <proton/connection.h>
#include <proton/ssl.h>
#include <proton/transport.h>

#include <string>

#include "sift/status.h"
#include "tools/amqp_client/broker_url.h"
#include "tools/amqp_client/client_options.h"

namespace sift::tools::amqp_client {

// Sets up `connection` for `url` and makes its transport (*transport, for pn_proactor_connect2). For
// amqps, *ssl gets the TLS domain, which the caller frees once the connection is gone. `what` names
// the URL's flag ("--to", "--server") in errors: InvalidArgument naming the flag or file, with nothing
// left allocated but *ssl.
Status PrepareClientConnection(const BrokerUrl& url, const ClientOptions& options, const std::string& password,
                               const std::string& what, pn_connection_t* connection, pn_ssl_domain_t** ssl,
                               pn_transport_t** transport);

// "amqp:not-found: no queue 'x'" from a broker's condition, or "" when none is set.
std::string ConditionText(pn_condition_t* condition);

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_CLIENT_CONNECTION_H_
