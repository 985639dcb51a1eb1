// Broker URLs: the scheme, host, port and address rules of --to and --from (broker_url.h).
#include "tools/amqp_client/broker_url.h"

#include <gtest/gtest.h>

namespace sift::tools::amqp_client {
namespace {

BrokerUrl Parse(const std::string& text) {
  BrokerUrl url;
  std::string why;
  EXPECT_TRUE(ParseBrokerUrl(text, &url, &why)) << text << ": " << why;
  return url;
}

std::string Refusal(const std::string& text) {
  BrokerUrl url;
  std::string why;
  EXPECT_FALSE(ParseBrokerUrl(text, &url, &why)) << text;
  return why;
}

TEST(BrokerUrl, SchemesAndDefaultPorts) {
  BrokerUrl plain = Parse("amqp://broker.example/orders");
  EXPECT_FALSE(plain.tls);
  EXPECT_EQ(plain.host, "broker.example");
  EXPECT_EQ(plain.port, "5672");
  EXPECT_EQ(plain.address, "orders");
  EXPECT_EQ(plain.HostPort(), "broker.example:5672");
  BrokerUrl tls = Parse("amqps://broker.example/orders");
  EXPECT_TRUE(tls.tls);
  EXPECT_EQ(tls.port, "5671");
  EXPECT_EQ(tls.ToString(), "amqps://broker.example/orders");
}

TEST(BrokerUrl, RabbitMqAddressesKeepTheirSlash) {
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672/queue/retry").address, "/queue/retry");
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672/exchange/amq.topic/eu.#").address, "/exchange/amq.topic/eu.#");
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672/topic/eu").address, "/topic/eu");
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672/amq/queue/q").address, "/amq/queue/q");
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672//other").address, "/other");
  EXPECT_EQ(Parse("amqp://127.0.0.1:5672/queues/x").address, "queues/x");
}

TEST(BrokerUrl, Ipv6) {
  BrokerUrl url = Parse("amqp://[::1]:5673/orders");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, "5673");
  EXPECT_EQ(url.HostPort(), "[::1]:5673");
  EXPECT_EQ(Parse("amqp://[::1]/orders").port, "5672");
}

TEST(BrokerUrl, Refusals) {
  EXPECT_NE(Refusal("http://h/x").find("expected amqp://"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:5672").find("no address"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:5672/").find("no address"), std::string::npos);
  EXPECT_NE(Refusal("amqp:///x").find("no host"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:/x").find("empty port"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:ab/x").find("not a number"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:0/x").find("out of range"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:65536/x").find("out of range"), std::string::npos);
  EXPECT_NE(Refusal("amqp://h:123456789012345678901/x").find("out of range"), std::string::npos);
  EXPECT_NE(Refusal("amqp://user:pw@h/x").find("credentials"), std::string::npos);
  EXPECT_NE(Refusal("amqp://[::1/x").find("closing ']'"), std::string::npos);
  EXPECT_NE(Refusal("amqp://[::1]x/x").find("':PORT'"), std::string::npos);
}

}  // namespace
}  // namespace sift::tools::amqp_client
