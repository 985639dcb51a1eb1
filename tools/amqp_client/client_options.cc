// Connection flags of the broker commands (see client_options.h).
#include "tools/amqp_client/client_options.h"

#include <CLI/CLI.hpp>

#include <fstream>

namespace sift::tools::amqp_client {

void AddClientFlags(CLI::App* command, ClientOptions* options) {
  command->add_option("--tls-ca", options->tls_ca,
                      "PEM file of the CAs trusted to sign the broker's certificate (amqps)");
  command->add_option("--tls-cert", options->tls_cert,
                      "Client certificate (PEM) presented to the broker (SASL EXTERNAL)");
  command->add_option("--tls-key", options->tls_key, "Private key of --tls-cert (default: in the --tls-cert file)");
  command->add_option("--user", options->user, "SASL PLAIN user name (its password: --password-file)");
  command->add_option("--password-file", options->password_file, "File whose first line is the password of --user");
  command->add_option("--sasl-mechanisms", options->sasl_mechanisms,
                      "SASL mechanisms to offer, space-separated (default: PLAIN with --user, EXTERNAL with "
                      "--tls-cert, else ANONYMOUS)");
}

Status ResolveClientOptions(const ClientOptions& options, const BrokerUrl& url, std::string* password) {
  password->clear();
  if (!options.password_file.empty() && options.user.empty())
    return Status::InvalidArgument("usage", "--password-file", "needs --user");
  if (!options.user.empty()) {
    if (options.password_file.empty())
      return Status::InvalidArgument("usage", "--user", "needs --password-file (the password's first line)");
    std::ifstream in(options.password_file);
    if (!in) return Status::InvalidArgument("--password-file", options.password_file, "cannot read the file");
    std::getline(in, *password);
    if (!password->empty() && password->back() == '\r') password->pop_back();
    if (password->empty())
      return Status::InvalidArgument("--password-file", options.password_file, "the first line is empty");
  }
  if (!url.tls) {
    for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--tls-ca", &options.tls_ca},
                                      {"--tls-cert", &options.tls_cert},
                                      {"--tls-key", &options.tls_key}}) {
      if (!value->empty())
        return Status::InvalidArgument("usage", flag, "needs an amqps:// URL (" + url.ToString() + " is not TLS)");
    }
  }
  if (!options.tls_key.empty() && options.tls_cert.empty())
    return Status::InvalidArgument("usage", "--tls-key", "needs --tls-cert");
  for (const std::string* file : {&options.tls_ca, &options.tls_cert, &options.tls_key}) {
    if (!file->empty() && !std::ifstream(*file))
      return Status::InvalidArgument("cannot read file", *file, "no such file or not readable");
  }
  return Status::OK();
}

}  // namespace sift::tools::amqp_client
