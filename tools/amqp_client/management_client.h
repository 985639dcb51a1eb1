// A client of the management node `$management` of `sift serve` (docs/serve.md, "Management"):
// requests and their responses, one at a time, on the caller's thread.
//
// Connect() opens one connection (TLS and SASL as ClientOptions say), one session, a sender link to
// `$management` and a receiver link with a dynamic source, whose address the server names in its
// attach: every request carries it as its reply-to. Request() sends one request (message-id: a
// counter) and waits for the response that carries the same correlation-id and for the server to
// settle the request. A response is returned whatever its status: turning a 404 into an error is the
// caller's choice.
//
// Errors are values: a server that cannot be reached, refuses the login or refuses a link is IOError
// "cannot connect" naming the URL and why (a management command's storage-class error, exit 3: the
// request was not made); bad connection settings are InvalidArgument (ResolveClientOptions). Not
// thread-safe.
#ifndef SIFT_TOOLS_AMQP_CLIENT_MANAGEMENT_CLIENT_H_
#define SIFT_TOOLS_AMQP_CLIENT_MANAGEMENT_CLIENT_H_

#include <proton/event.h>
#include <proton/ssl.h>
#include <proton/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "sift/status.h"
#include "sift/stream_engine.h"
#include "tools/amqp_client/broker_url.h"
#include "tools/amqp_client/client_options.h"
#include "tools/management_protocol.h"

namespace sift::tools::amqp_client {

// An attribute value as the node sends and takes them: ulong (any unsigned integer on the wire),
// long (any signed integer) or string (string or symbol).
using AttributeValue = std::variant<uint64_t, int64_t, std::string>;
using Attributes = std::map<std::string, AttributeValue, std::less<>>;

struct ManagementRequest {
  std::string operation;  // CREATE, READ, UPDATE, DELETE, ENFORCE-RETENTION
  std::string type;       // sift:stream, sift:store
  std::string name;
  std::optional<Attributes> attributes;  // the body; none: no body
};

struct ManagementResponse {
  int status_code = 0;
  std::string description;               // statusDescription ("" when the server sent none)
  std::optional<Attributes> attributes;  // the body when it is a map; none when null or absent
};

class ManagementClient {
 public:
  // How long Request() waits for its response and settlement.
  static constexpr std::chrono::milliseconds kRequestTimeout{30000};

  // Connects and attaches both links; `url.address` is not used (the node is always `$management`).
  static Status Connect(const BrokerUrl& url, const ClientOptions& options, std::unique_ptr<ManagementClient>* out);
  ~ManagementClient();
  ManagementClient(const ManagementClient&) = delete;
  ManagementClient& operator=(const ManagementClient&) = delete;

  // Sends `request` and waits for its response. IOError saying only why (the caller names the
  // operation and the server with Status::Rewrap) when the request was rejected, the connection
  // failed or no response came within kRequestTimeout.
  Status Request(const ManagementRequest& request, ManagementResponse* out);

  // Closes the links and the connection, waiting a little for the server to confirm.
  void Close();

  // The address the server gave the reply link.
  const std::string& reply_address() const { return reply_address_; }

 private:
  ManagementClient() = default;
  void Handle(pn_event_t* event);
  // Handles the event batches that are ready, waiting up to `timeout` for the first.
  void Run(std::chrono::milliseconds timeout);
  // Runs until done() or the connection fails or `timeout` passes; false unless done().
  bool RunUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout);
  void Fail(std::string why);
  // Sends the encoded request once the server gives credit (inside Handle: Proton's rule).
  void SendPending();
  // The server's settlement of the request in flight.
  void OnOutcome(pn_delivery_t* delivery);
  void OnReply(pn_delivery_t* delivery);

  pn_proactor_t* proactor_ = nullptr;
  pn_connection_t* connection_ = nullptr;
  pn_link_t* sender_ = nullptr;
  pn_link_t* receiver_ = nullptr;
  pn_ssl_domain_t* ssl_ = nullptr;
  std::string reply_address_;
  bool sender_open_ = false;
  bool receiver_open_ = false;
  uint64_t next_id_ = 1;
  // The request in flight: its message-id (0: none), its bytes until sent, its delivery until the
  // server settles it, the outcome (PN_ACCEPTED, PN_REJECTED, ...; 0 until known) and its response.
  uint64_t pending_id_ = 0;
  std::string outgoing_;
  pn_delivery_t* pending_delivery_ = nullptr;
  uint64_t outcome_ = 0;
  std::string outcome_condition_;
  std::optional<ManagementResponse> response_;
  std::string decode_error_;  // a reply to the request in flight that could not be read
  bool closing_ = false;
  bool inactive_ = false;
  std::string failure_;  // why the connection or a link ended ("" while all is well)
};

// The `--server` URL of `sift stream`: [amqp[s]://]HOST[:PORT], optionally ending in `/` or
// `/$management`; a scheme left out is amqp. `out->text` keeps the text as given. False with *why set
// when it is not such a URL.
bool ParseManagementUrl(std::string_view text, BrokerUrl* out, std::string* why);

// A stream's attributes of a response (name, messages, offsets, chunks, bytes, timestamps, retention,
// compression) as StreamInfo. Corruption saying only why (the response cannot be read:
// a server's fault, not the caller's) naming the attribute that is missing or of another type.
Status StreamInfoFromAttributes(const Attributes& attributes, StreamInfo* info);

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_MANAGEMENT_CLIENT_H_
