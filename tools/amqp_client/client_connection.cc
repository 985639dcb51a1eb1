// Connection and transport settings shared by the broker clients (see client_connection.h).
#include "tools/amqp_client/client_connection.h"

#include <proton/sasl.h>
#include <unistd.h>

namespace sift::tools::amqp_client {

Status PrepareClientConnection(const BrokerUrl& url, const ClientOptions& options, const std::string& password,
                               const std::string& what, pn_connection_t* connection, pn_ssl_domain_t** ssl,
                               pn_transport_t** transport) {
  const std::string container = "sift-" + std::to_string(getpid());
  pn_connection_set_container(connection, container.c_str());
  pn_connection_set_hostname(connection, url.host.c_str());
  if (!options.user.empty()) {
    pn_connection_set_user(connection, options.user.c_str());
    pn_connection_set_password(connection, password.c_str());
  }
  pn_transport_t* t = pn_transport();
  if (url.tls) {
    *ssl = pn_ssl_domain(PN_SSL_MODE_CLIENT);
    if (*ssl == nullptr) {
      pn_transport_free(t);
      return Status::InvalidArgument(what, url.ToString(), "no TLS here");
    }
    if (!options.tls_ca.empty() && pn_ssl_domain_set_trusted_ca_db(*ssl, options.tls_ca.c_str()) != 0) {
      pn_transport_free(t);
      return Status::InvalidArgument("--tls-ca", options.tls_ca, "cannot read the CA certificates");
    }
    if (!options.tls_cert.empty()) {
      const std::string& key = options.tls_key.empty() ? options.tls_cert : options.tls_key;
      if (pn_ssl_domain_set_credentials(*ssl, options.tls_cert.c_str(), key.c_str(), nullptr) != 0) {
        pn_transport_free(t);
        return Status::InvalidArgument("--tls-cert", options.tls_cert,
                                       "cannot read the client certificate and key " + key);
      }
    }
    pn_ssl_domain_set_peer_authentication(*ssl, PN_SSL_VERIFY_PEER_NAME, nullptr);
    pn_ssl_t* session = pn_ssl(t);
    pn_ssl_init(session, *ssl, nullptr);
    pn_ssl_set_peer_hostname(session, url.host.c_str());
  }
  pn_sasl_t* sasl = pn_sasl(t);
  std::string mechanisms = options.sasl_mechanisms;
  if (mechanisms.empty()) {
    mechanisms = !options.user.empty() ? "PLAIN" : !options.tls_cert.empty() ? "EXTERNAL" : "ANONYMOUS";
  }
  pn_sasl_allowed_mechs(sasl, mechanisms.c_str());
  // PLAIN over a connection without TLS is the caller's choice (client_options.h).
  pn_sasl_set_allow_insecure_mechs(sasl, true);
  *transport = t;
  return Status::OK();
}

std::string ConditionText(pn_condition_t* condition) {
  if (condition == nullptr || !pn_condition_is_set(condition)) return "";
  const char* name = pn_condition_get_name(condition);
  const char* description = pn_condition_get_description(condition);
  std::string text = name != nullptr ? name : "error";
  if (description != nullptr && *description != '\0') text += std::string(": ") + description;
  return text;
}

}  // namespace sift::tools::amqp_client
