// The broker addresses of `sift capture --from` and `--to`: amqp[s]://HOST[:PORT]/ADDRESS.
//
// The scheme says whether the connection is TLS (amqps) or not (amqp); the port defaults to 5671 for
// amqps and 5672 for amqp; HOST is a name, an IPv4 address or an IPv6 address in brackets. The node
// address is the path after the '/' that ends HOST:PORT: amqp://h:5672/orders names "orders" (a
// stream of sift serve). RabbitMQ's addresses start with a slash of their own (/queue/NAME,
// /exchange/NAME/KEY, /topic/KEY, /amq/queue/NAME), and a path in one of those forms keeps it:
// amqp://h:5672/queue/retry names "/queue/retry". Any other address that starts with a slash is
// written with two: amqp://h:5672//other names "/other". Credentials never go in the URL (--user and
// --password-file carry them), so a password is never seen in a process listing.
#ifndef SIFT_TOOLS_AMQP_CLIENT_BROKER_URL_H_
#define SIFT_TOOLS_AMQP_CLIENT_BROKER_URL_H_

#include <string>
#include <string_view>

namespace sift::tools::amqp_client {

struct BrokerUrl {
  bool tls = false;
  std::string host;     // without brackets
  std::string port;     // digits
  std::string address;  // the node address on the broker (never empty)
  std::string text;     // the URL as given

  // "host:port" as the proactor takes it.
  std::string HostPort() const;
  // The URL as given, for error lines (it holds no credentials).
  std::string ToString() const;
};

// Parses `text`; false with *why set when it is not amqp[s]://HOST[:PORT]/ADDRESS.
bool ParseBrokerUrl(std::string_view text, BrokerUrl* out, std::string* why);

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_BROKER_URL_H_
