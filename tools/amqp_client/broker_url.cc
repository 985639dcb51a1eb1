// Broker URLs (see broker_url.h).
#include "tools/amqp_client/broker_url.h"

#include <cctype>

namespace sift::tools::amqp_client {

std::string BrokerUrl::HostPort() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
}

std::string BrokerUrl::ToString() const { return text; }

bool ParseBrokerUrl(std::string_view text, BrokerUrl* out, std::string* why) {
  *out = BrokerUrl{};
  out->text = std::string(text);
  if (text.starts_with("amqps://")) {
    out->tls = true;
    text.remove_prefix(8);
  } else if (text.starts_with("amqp://")) {
    text.remove_prefix(7);
  } else {
    *why = "expected amqp://HOST:PORT/ADDRESS or amqps://HOST:PORT/ADDRESS";
    return false;
  }
  const size_t slash = text.find('/');
  std::string_view authority = text.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) {
    *why = "credentials do not go in the URL: use --user and --password-file";
    return false;
  }
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      *why = "an IPv6 address needs its closing ']'";
      return false;
    }
    out->host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty() && authority[0] != ':') {
      *why = "expected ':PORT' after ']'";
      return false;
    }
    if (!authority.empty()) out->port = std::string(authority.substr(1));
  } else {
    const size_t colon = authority.rfind(':');
    out->host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) out->port = std::string(authority.substr(colon + 1));
    if (colon != std::string_view::npos && out->port.empty()) {
      *why = "empty port";
      return false;
    }
  }
  if (out->host.empty()) {
    *why = "no host";
    return false;
  }
  if (out->port.empty()) out->port = out->tls ? "5671" : "5672";
  for (char c : out->port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      *why = "port '" + out->port + "' is not a number";
      return false;
    }
  }
  if (out->port.size() > 5 || std::stoul(out->port) == 0 || std::stoul(out->port) > 65535) {
    *why = "port '" + out->port + "' is out of range (1 to 65535)";
    return false;
  }
  if (slash == std::string_view::npos || slash + 1 == text.size()) {
    *why = "no address after the host (amqp://HOST:PORT/ADDRESS)";
    return false;
  }
  out->address = std::string(text.substr(slash + 1));
  for (std::string_view form : {"queue/", "exchange/", "topic/", "amq/queue/"}) {
    if (out->address.starts_with(form)) out->address.insert(0, 1, '/');
  }
  return true;
}

}  // namespace sift::tools::amqp_client
