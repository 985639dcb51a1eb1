// The management node's client (see management_client.h).
#include "tools/amqp_client/management_client.h"

#include <proton/codec.h>
#include <proton/condition.h>
#include <proton/connection.h>
#include <proton/delivery.h>
#include <proton/disposition.h>
#include <proton/link.h>
#include <proton/message.h>
#include <proton/proactor.h>
#include <proton/sasl.h>
#include <proton/session.h>
#include <proton/terminus.h>
#include <proton/transport.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <utility>

#include "tools/amqp_client/client_connection.h"
#include "tools/compression_flag.h"
#include "tools/proton_data.h"
#include "tools/proton_handles.h"

namespace sift::tools::amqp_client {
namespace {

// Replies the server may send ahead. One request is in flight at a time, so a few cover any reply
// left over from a request that timed out.
constexpr int kReplyCredit = 8;

// The current value of `data` as an attribute value; false for a type the node never sends.
bool ReadValue(pn_data_t* data, AttributeValue* out) {
  if (auto integer = IntegerAt(data)) {
    std::visit([out](auto v) { *out = v; }, *integer);
    return true;
  }
  if (auto text = TextAt(data)) {
    *out = std::move(*text);
    return true;
  }
  return false;
}

// The map `data` is positioned on, keys of string or symbol type; entries of other types are left
// out (a newer server may send more than this client reads).
Attributes ReadMap(pn_data_t* data) {
  Attributes map;
  const size_t count = pn_data_get_map(data);
  pn_data_enter(data);
  for (size_t i = 0; i + 1 < count; i += 2) {
    if (!pn_data_next(data)) break;
    const std::string key = TextAt(data).value_or("");
    if (!pn_data_next(data)) break;
    AttributeValue value;
    if (!key.empty() && ReadValue(data, &value)) map[key] = std::move(value);
  }
  pn_data_exit(data);
  return map;
}

void PutAttributes(pn_data_t* data, const Attributes& attributes) {
  pn_data_put_map(data);
  pn_data_enter(data);
  for (const auto& [key, value] : attributes) {
    PutText(data, key);
    if (const uint64_t* u = std::get_if<uint64_t>(&value)) {
      pn_data_put_ulong(data, *u);
    } else if (const int64_t* s = std::get_if<int64_t>(&value)) {
      pn_data_put_long(data, *s);
    } else {
      PutText(data, std::get<std::string>(value));
    }
  }
  pn_data_exit(data);
}

// The response's statusCode, statusDescription and body; false with *why set when it has no status.
bool ReadResponse(pn_message_t* message, ManagementResponse* out, std::string* why) {
  *out = ManagementResponse{};
  pn_data_t* properties = pn_message_properties(message);
  pn_data_rewind(properties);
  if (!pn_data_next(properties) || pn_data_type(properties) != PN_MAP) {
    *why = "the response has no application-properties";
    return false;
  }
  const Attributes status = ReadMap(properties);
  const auto code = status.find("statusCode");
  const uint64_t* unsigned_code = code == status.end() ? nullptr : std::get_if<uint64_t>(&code->second);
  const int64_t* signed_code = code == status.end() ? nullptr : std::get_if<int64_t>(&code->second);
  if (unsigned_code != nullptr && *unsigned_code < 1000) {
    out->status_code = static_cast<int>(*unsigned_code);
  } else if (signed_code != nullptr && *signed_code >= 0 && *signed_code < 1000) {
    out->status_code = static_cast<int>(*signed_code);
  } else {
    *why = "the response has no statusCode";
    return false;
  }
  const auto description = status.find("statusDescription");
  if (description != status.end()) {
    if (const std::string* text = std::get_if<std::string>(&description->second)) out->description = *text;
  }
  pn_data_t* body = pn_message_body(message);
  pn_data_rewind(body);
  if (pn_data_next(body) && pn_data_type(body) == PN_MAP) out->attributes = ReadMap(body);
  return true;
}

Status MissingAttribute(std::string_view key, std::string_view type) {
  return Status::Corruption("the response's attribute '" + std::string(key) + "' is missing or not " +
                            std::string(type));
}

Status GetUnsigned(const Attributes& attributes, std::string_view key, uint64_t* out) {
  const auto it = attributes.find(key);
  if (it != attributes.end()) {
    if (const uint64_t* u = std::get_if<uint64_t>(&it->second)) {
      *out = *u;
      return Status::OK();
    }
    if (const int64_t* s = std::get_if<int64_t>(&it->second); s != nullptr && *s >= 0) {
      *out = static_cast<uint64_t>(*s);
      return Status::OK();
    }
  }
  return MissingAttribute(key, "a non-negative integer");
}

Status GetSigned(const Attributes& attributes, std::string_view key, int64_t* out) {
  const auto it = attributes.find(key);
  if (it != attributes.end()) {
    if (const int64_t* s = std::get_if<int64_t>(&it->second)) {
      *out = *s;
      return Status::OK();
    }
    if (const uint64_t* u = std::get_if<uint64_t>(&it->second);
        u != nullptr && *u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *out = static_cast<int64_t>(*u);
      return Status::OK();
    }
  }
  return MissingAttribute(key, "an integer");
}

}  // namespace

bool ParseManagementUrl(std::string_view text, BrokerUrl* out, std::string* why) {
  std::string url(text);
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    url.insert(0, "amqp://");
  } else if (!url.starts_with("amqp://") && !url.starts_with("amqps://")) {
    *why = "expected [amqp[s]://]HOST:PORT";
    return false;
  }
  const size_t authority = url.find("://") + 3;
  const size_t slash = url.find('/', authority);
  // The node is always $management: any other path is most likely a stream's URL given by mistake.
  const std::string path = slash == std::string::npos ? "" : url.substr(slash + 1);
  if (!path.empty() && path != kManagementAddress) {
    *why = "'/" + path + "' is not the management node (give [amqp[s]://]HOST:PORT)";
    return false;
  }
  url = url.substr(0, slash) + "/" + std::string(kManagementAddress);
  if (!ParseBrokerUrl(url, out, why)) return false;
  out->text = std::string(text);
  return true;
}

Status StreamInfoFromAttributes(const Attributes& attributes, StreamInfo* info) {
  *info = StreamInfo{};
  const auto name = attributes.find(attribute::kName);
  if (name == attributes.end() || !std::holds_alternative<std::string>(name->second))
    return MissingAttribute(attribute::kName, "a string");
  info->name = std::get<std::string>(name->second);
  for (const auto& [key, field] : {std::pair<std::string_view, uint64_t*>{attribute::kMessages, &info->message_count},
                                   {attribute::kFirstOffset, &info->first_offset},
                                   {attribute::kNextOffset, &info->next_offset},
                                   {attribute::kChunks, &info->chunk_count},
                                   {attribute::kStoredBytes, &info->bytes},
                                   {attribute::kRawBytes, &info->raw_bytes},
                                   {attribute::kRetentionMaxBytes, &info->retention.max_bytes}}) {
    Status status = GetUnsigned(attributes, key, field);
    if (!status.ok()) return status;
  }
  for (const auto& [key, field] :
       {std::pair<std::string_view, int64_t*>{attribute::kFirstTimestampMs, &info->first_timestamp_ms},
        {attribute::kLastTimestampMs, &info->last_timestamp_ms}}) {
    Status status = GetSigned(attributes, key, field);
    if (!status.ok()) return status;
  }
  int64_t max_age_ms = 0;
  if (Status status = GetSigned(attributes, attribute::kRetentionMaxAgeMs, &max_age_ms); !status.ok()) return status;
  info->retention.max_age = std::chrono::milliseconds(max_age_ms);
  const auto compression = attributes.find(attribute::kCompression);
  const std::string* text = compression == attributes.end() ? nullptr : std::get_if<std::string>(&compression->second);
  std::string why;
  if (text == nullptr || !ParseChunkCompression(*text, &info->compression, &why))
    return MissingAttribute(attribute::kCompression, "none or zstd:LEVEL");
  return Status::OK();
}

Status ManagementClient::Connect(const BrokerUrl& url, const ClientOptions& options,
                                 std::unique_ptr<ManagementClient>* out) {
  std::string password;
  Status status = ResolveClientOptions(options, url, &password);
  if (!status.ok()) return status;
  std::unique_ptr<ManagementClient> client(new ManagementClient());
  client->proactor_ = pn_proactor();
  client->connection_ = pn_connection();
  pn_connection_t* c = client->connection_;
  pn_transport_t* t = nullptr;
  Status prepared = PrepareClientConnection(url, options, password, "--server", c, &client->ssl_, &t);
  if (!prepared.ok()) return prepared;
  pn_session_t* session = pn_session(c);
  pn_session_open(session);
  const std::string address(kManagementAddress);
  const std::string suffix = std::to_string(getpid());
  client->sender_ = pn_sender(session, ("sift-management-requests-" + suffix).c_str());
  pn_terminus_set_address(pn_link_target(client->sender_), address.c_str());
  pn_link_set_snd_settle_mode(client->sender_, PN_SND_UNSETTLED);
  client->receiver_ = pn_receiver(session, ("sift-management-replies-" + suffix).c_str());
  pn_terminus_set_dynamic(pn_link_source(client->receiver_), true);
  pn_link_set_rcv_settle_mode(client->receiver_, PN_RCV_FIRST);
  pn_link_open(client->sender_);
  pn_link_open(client->receiver_);
  pn_connection_open(c);
  pn_proactor_connect2(client->proactor_, c, t, url.HostPort().c_str());

  const std::chrono::milliseconds timeout(options.connect_timeout_ms);
  if (!client->RunUntil([&] { return client->sender_open_ && client->receiver_open_; }, timeout) &&
      client->failure_.empty()) {
    client->Fail("no answer from the server within " + std::to_string(options.connect_timeout_ms / 1000) + " s");
  }
  // A refused attach arrives as an attach with no terminus, then a detach with the condition: the
  // rest of the batch, or the next, says which.
  if (client->failure_.empty()) client->Run(std::chrono::milliseconds(0));
  auto refused = [&] {
    pn_terminus_t* target = pn_link_remote_target(client->sender_);
    return target == nullptr || pn_terminus_get_type(target) == PN_UNSPECIFIED || client->reply_address_.empty();
  };
  if (client->failure_.empty() && refused()) {
    client->RunUntil([&] { return !client->failure_.empty(); }, std::chrono::milliseconds(2000));
    client->Fail(client->reply_address_.empty() ? "the server gave the reply link no address"
                                                : "the server attached " + address + " without a target");
  }
  if (!client->failure_.empty()) return Status::IOError("cannot connect", url.ToString(), client->failure_);
  *out = std::move(client);
  return Status::OK();
}

ManagementClient::~ManagementClient() {
  if (proactor_ != nullptr) pn_proactor_free(proactor_);  // frees the connection and everything in it
  if (ssl_ != nullptr) pn_ssl_domain_free(ssl_);
}

void ManagementClient::Fail(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
}

void ManagementClient::SendPending() {
  if (outgoing_.empty() || pn_link_credit(sender_) <= 0) return;
  const std::string tag = std::to_string(pending_id_);
  pending_delivery_ = pn_delivery(sender_, pn_dtag(tag.data(), tag.size()));
  pn_link_send(sender_, outgoing_.data(), outgoing_.size());
  pn_link_advance(sender_);
  outgoing_.clear();
}

void ManagementClient::OnOutcome(pn_delivery_t* delivery) {
  const uint64_t state = pn_delivery_remote_state(delivery);
  if (state == PN_RECEIVED || (state == 0 && !pn_delivery_settled(delivery))) return;  // not the outcome yet
  // Settled with no outcome: the server took it (it sends no response for what it refused).
  outcome_ = state != 0 ? state : PN_ACCEPTED;
  if (state == PN_REJECTED) outcome_condition_ = ConditionText(pn_disposition_condition(pn_delivery_remote(delivery)));
  pn_delivery_settle(delivery);
  pending_delivery_ = nullptr;
}

void ManagementClient::OnReply(pn_delivery_t* delivery) {
  if (!pn_delivery_readable(delivery) || pn_delivery_partial(delivery)) return;  // the rest is on its way
  std::string bytes(pn_delivery_pending(delivery), '\0');
  const ssize_t n = pn_link_recv(receiver_, bytes.data(), bytes.size());
  pn_link_advance(receiver_);
  pn_delivery_update(delivery, PN_ACCEPTED);
  pn_delivery_settle(delivery);
  pn_link_flow(receiver_, 1);
  if (pending_id_ == 0 || response_) return;  // a reply to a request given up on
  MessagePtr owned(pn_message());
  pn_message_t* message = owned.get();
  if (n < 0 || pn_message_decode(message, bytes.data(), static_cast<size_t>(n)) != 0) {
    // One request is in flight: a reply that cannot be read is taken to be its response.
    decode_error_ = "the response is not an AMQP message";
  } else {
    const pn_msgid_t id = pn_message_get_correlation_id(message);
    if (id.type == PN_ULONG && id.u.as_ulong == pending_id_) {
      ManagementResponse response;
      std::string why;
      if (ReadResponse(message, &response, &why)) {
        response_ = std::move(response);
      } else {
        decode_error_ = why;
      }
    }
  }
}

void ManagementClient::Handle(pn_event_t* event) {
  switch (pn_event_type(event)) {
    case PN_CONNECTION_WAKE:
      if (closing_) {
        for (pn_link_t* link : {sender_, receiver_}) {
          if (!(pn_link_state(link) & PN_LOCAL_CLOSED)) pn_link_close(link);
        }
        if (!(pn_connection_state(connection_) & PN_LOCAL_CLOSED)) pn_connection_close(connection_);
      } else {
        SendPending();
      }
      break;
    case PN_LINK_REMOTE_OPEN: {
      pn_link_t* link = pn_event_link(event);
      if (link == sender_) sender_open_ = true;
      if (link == receiver_) {
        receiver_open_ = true;
        pn_terminus_t* source = pn_link_remote_source(receiver_);
        const char* address = source != nullptr ? pn_terminus_get_address(source) : nullptr;
        if (address != nullptr) reply_address_ = address;
        pn_link_flow(receiver_, kReplyCredit);
      }
      break;
    }
    case PN_LINK_FLOW:
      if (pn_event_link(event) == sender_ && !closing_) SendPending();
      break;
    case PN_DELIVERY: {
      pn_delivery_t* delivery = pn_event_delivery(event);
      pn_link_t* link = pn_delivery_link(delivery);
      if (link == receiver_) {
        OnReply(delivery);
      } else if (link == sender_ && delivery == pending_delivery_) {
        OnOutcome(delivery);
      }
      break;
    }
    case PN_LINK_REMOTE_CLOSE:
    case PN_LINK_REMOTE_DETACH: {
      pn_link_t* link = pn_event_link(event);
      if (!closing_) {
        const std::string why = ConditionText(pn_link_remote_condition(link));
        const std::string which = link == sender_ ? "the link to " + std::string(kManagementAddress) : "the reply link";
        Fail("the server closed " + which + (why.empty() ? "" : ": " + why));
      }
      if (!(pn_link_state(link) & PN_LOCAL_CLOSED)) pn_link_close(link);
      break;
    }
    case PN_SESSION_REMOTE_CLOSE:
      if (!closing_) {
        const std::string why = ConditionText(pn_session_remote_condition(pn_event_session(event)));
        Fail(why.empty() ? "the server closed the session" : "the server closed the session: " + why);
      }
      break;
    case PN_CONNECTION_REMOTE_CLOSE:
      if (!closing_) {
        const std::string why = ConditionText(pn_connection_remote_condition(pn_event_connection(event)));
        Fail(why.empty() ? "the server closed the connection" : "the server closed the connection: " + why);
      }
      if (!(pn_connection_state(pn_event_connection(event)) & PN_LOCAL_CLOSED))
        pn_connection_close(pn_event_connection(event));
      break;
    case PN_TRANSPORT_CLOSED:
      if (!closing_) {
        std::string why = ConditionText(pn_transport_condition(pn_event_transport(event)));
        if (why.find("unauthorized-access") != std::string::npos ||
            why.find("Authentication failed") != std::string::npos)
          why = "the server refused the login (" + why + ")";
        Fail(why.empty() ? "the connection was lost" : why);
      }
      break;
    case PN_PROACTOR_INACTIVE: inactive_ = true; break;
    default: break;
  }
}

void ManagementClient::Run(std::chrono::milliseconds timeout) {
  if (inactive_) return;
  pn_event_batch_t* batch = pn_proactor_get(proactor_);
  if (batch == nullptr && timeout.count() > 0) {
    pn_proactor_set_timeout(proactor_, static_cast<pn_millis_t>(timeout.count()));
    batch = pn_proactor_wait(proactor_);
    pn_proactor_cancel_timeout(proactor_);
  }
  while (batch != nullptr) {
    for (pn_event_t* e = pn_event_batch_next(batch); e != nullptr; e = pn_event_batch_next(batch)) Handle(e);
    pn_proactor_done(proactor_, batch);
    if (inactive_) break;
    batch = pn_proactor_get(proactor_);
  }
  if (inactive_ && !closing_) Fail("the connection was lost");
}

bool ManagementClient::RunUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (inactive_ || (!closing_ && !failure_.empty())) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    Run(left);
  }
  return true;
}

Status ManagementClient::Request(const ManagementRequest& request, ManagementResponse* out) {
  if (!failure_.empty()) return Status::IOError(failure_);
  MessagePtr owned(pn_message());
  pn_message_t* message = owned.get();
  pending_id_ = next_id_++;
  pn_msgid_t id;
  id.type = PN_ULONG;
  id.u.as_ulong = pending_id_;
  pn_message_set_id(message, id);
  pn_message_set_reply_to(message, reply_address_.c_str());
  pn_data_t* properties = pn_message_properties(message);
  pn_data_put_map(properties);
  pn_data_enter(properties);
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"operation", &request.operation},
                                   {"type", &request.type},
                                   {"name", &request.name}}) {
    PutText(properties, key);
    PutText(properties, *value);
  }
  pn_data_exit(properties);
  if (request.attributes) {
    pn_message_set_inferred(message, false);
    PutAttributes(pn_message_body(message), *request.attributes);
  }
  pn_rwbytes_t buffer{0, nullptr};
  const ssize_t size = pn_message_encode2(message, &buffer);
  owned.reset();
  if (size < 0) {
    std::free(buffer.start);
    pending_id_ = 0;
    return Status::IOError("cannot encode the request");
  }
  outgoing_.assign(buffer.start, static_cast<size_t>(size));
  std::free(buffer.start);
  response_.reset();
  decode_error_.clear();
  outcome_ = 0;
  outcome_condition_.clear();
  pn_connection_wake(connection_);

  const bool done = RunUntil(
      [this] {
        const bool refused = outcome_ != 0 && outcome_ != PN_ACCEPTED;
        return refused || !decode_error_.empty() || (response_ && outcome_ == PN_ACCEPTED);
      },
      kRequestTimeout);
  pending_id_ = 0;
  outgoing_.clear();  // not sent for want of credit: never to be
  if (outcome_ == PN_REJECTED) {
    return Status::IOError("the server rejected the request" +
                           (outcome_condition_.empty() ? "" : " (" + outcome_condition_ + ")"));
  }
  if (outcome_ == PN_RELEASED || outcome_ == PN_MODIFIED)
    return Status::IOError("the server did not take the request (released)");
  if (!decode_error_.empty()) return Status::IOError(decode_error_);
  if (!failure_.empty()) return Status::IOError(failure_);
  if (!done) {
    return Status::IOError(
        std::string(response_ ? "the server did not settle the request" : "no response from the server") + " within " +
        std::to_string(kRequestTimeout.count() / 1000) + " s");
  }
  *out = std::move(*response_);
  response_.reset();
  return Status::OK();
}

void ManagementClient::Close() {
  if (inactive_ || closing_) return;
  closing_ = true;
  pn_connection_wake(connection_);
  RunUntil([this] { return inactive_; }, std::chrono::milliseconds(2000));
}

}  // namespace sift::tools::amqp_client
