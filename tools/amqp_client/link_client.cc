// The proactor-driven link (see link_client.h).
#include "tools/amqp_client/link_client.h"
#include "tools/amqp_client/client_connection.h"

#include <proton/codec.h>
#include <proton/condition.h>
#include <proton/connection.h>
#include <proton/delivery.h>
#include <proton/event.h>
#include <proton/link.h>
#include <proton/proactor.h>
#include <proton/sasl.h>
#include <proton/session.h>
#include <proton/ssl.h>
#include <proton/terminus.h>
#include <proton/transport.h>
#include <unistd.h>

#include <fstream>

namespace sift::tools::amqp_client {
namespace {

// The selector as the broker's filter: {jms-selector: apache.org:selector-filter:string("...")}.
void PutSelector(pn_terminus_t* source, const std::string& selector) {
  pn_data_t* filter = pn_terminus_filter(source);
  pn_data_put_map(filter);
  pn_data_enter(filter);
  pn_data_put_symbol(filter, pn_bytes(12, "jms-selector"));
  pn_data_put_described(filter);
  pn_data_enter(filter);
  pn_data_put_symbol(filter, pn_bytes(32, "apache.org:selector-filter:string"));
  pn_data_put_string(filter, pn_bytes(selector.size(), selector.data()));
  pn_data_exit(filter);
  pn_data_exit(filter);
}

}  // namespace

Status LinkClient::Open(const BrokerUrl& url, const ClientOptions& options, const LinkSettings& settings,
                        std::unique_ptr<LinkClient>* out) {
  std::string password;
  Status status = ResolveClientOptions(options, url, &password);
  if (!status.ok()) return status;
  std::unique_ptr<LinkClient> client(new LinkClient());
  client->url_ = url;
  client->what_ = settings.what;
  client->proactor_ = pn_proactor();
  client->connection_ = pn_connection();
  pn_connection_t* c = client->connection_;
  pn_transport_t* t = nullptr;
  Status prepared = PrepareClientConnection(url, options, password, settings.what, c, &client->ssl_, &t);
  if (!prepared.ok()) return prepared;
  pn_session_t* session = pn_session(c);
  pn_session_open(session);
  const std::string name =
      std::string(settings.role == Role::kSender ? "sift-sender-" : "sift-receiver-") + std::to_string(getpid());
  if (settings.role == Role::kSender) {
    client->link_ = pn_sender(session, name.c_str());
    pn_terminus_set_address(pn_link_target(client->link_), url.address.c_str());
    pn_link_set_snd_settle_mode(client->link_, PN_SND_UNSETTLED);
  } else {
    client->link_ = pn_receiver(session, name.c_str());
    pn_terminus_set_address(pn_link_source(client->link_), url.address.c_str());
    if (!settings.selector.empty()) PutSelector(pn_link_source(client->link_), settings.selector);
    pn_link_set_snd_settle_mode(client->link_, PN_SND_UNSETTLED);
    pn_link_set_rcv_settle_mode(client->link_, PN_RCV_FIRST);
  }
  pn_link_open(client->link_);
  pn_connection_open(c);
  const std::string address = url.HostPort();
  pn_proactor_connect2(client->proactor_, c, t, address.c_str());

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.connect_timeout_ms);
  Handler idle;
  while (!client->link_open_ && client->error_.ok()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      client->Fail("no answer from the broker within " + std::to_string(options.connect_timeout_ms / 1000) + " s");
      break;
    }
    (void)client->Run(&idle, left);
  }
  // A refused attach arrives as an attach with no terminus, then a detach with the condition: the
  // rest of the batch says which.
  if (client->error_.ok()) (void)client->Run(&idle, std::chrono::milliseconds(0));
  if (client->error_.ok() && settings.role == Role::kSender && pn_link_remote_target(client->link_) != nullptr &&
      pn_terminus_get_type(pn_link_remote_target(client->link_)) == PN_UNSPECIFIED) {
    // Attached with a null target: the detach that says why is on its way.
    (void)client->Run(&idle, std::chrono::milliseconds(2000));
    if (client->error_.ok()) client->Fail("the broker attached the link without a target");
  }
  if (!client->error_.ok()) return client->error_;
  *out = std::move(client);
  return Status::OK();
}

LinkClient::~LinkClient() {
  if (proactor_ != nullptr) pn_proactor_free(proactor_);  // frees the connection and everything in it
  if (ssl_ != nullptr) pn_ssl_domain_free(ssl_);
}

void LinkClient::Fail(std::string why) {
  if (error_.ok()) error_ = Status::InvalidArgument(what_, url_.ToString(), why);
}

void LinkClient::Wake() {
  if (connection_ != nullptr && !inactive_) pn_connection_wake(connection_);
}

void LinkClient::Handle(pn_event_t* event, Handler* handler) {
  switch (pn_event_type(event)) {
    case PN_CONNECTION_WAKE:
      if (!closing_ && link_open_) handler->OnWake(link_);
      break;
    case PN_LINK_REMOTE_OPEN:
      if (pn_event_link(event) == link_) link_open_ = true;
      break;
    case PN_LINK_FLOW:
      if (pn_event_link(event) == link_ && !closing_) handler->OnFlow(link_);
      break;
    case PN_DELIVERY: handler->OnDelivery(pn_event_delivery(event)); break;
    case PN_LINK_REMOTE_CLOSE:
    case PN_LINK_REMOTE_DETACH: {
      pn_link_t* link = pn_event_link(event);
      if (link == link_) link_ended_ = true;
      if (!closing_) {
        std::string why = ConditionText(pn_link_remote_condition(link));
        Fail(why.empty() ? "the broker closed the link" : "the broker closed the link: " + why);
      }
      if (!(pn_link_state(link) & PN_LOCAL_CLOSED)) pn_link_close(link);
      break;
    }
    case PN_SESSION_REMOTE_CLOSE:
      if (!closing_) {
        std::string why = ConditionText(pn_session_remote_condition(pn_event_session(event)));
        Fail(why.empty() ? "the broker closed the session" : "the broker closed the session: " + why);
      }
      break;
    case PN_CONNECTION_REMOTE_CLOSE:
      if (!closing_) {
        std::string why = ConditionText(pn_connection_remote_condition(pn_event_connection(event)));
        Fail(why.empty() ? "the broker closed the connection" : "the broker closed the connection: " + why);
      }
      if (!(pn_connection_state(pn_event_connection(event)) & PN_LOCAL_CLOSED))
        pn_connection_close(pn_event_connection(event));
      break;
    case PN_TRANSPORT_CLOSED:
      if (!closing_) {
        pn_transport_t* t = pn_event_transport(event);
        std::string why = ConditionText(pn_transport_condition(t));
        if (why.find("unauthorized-access") != std::string::npos ||
            why.find("Authentication failed") != std::string::npos)
          why = "the broker refused the login (" + why + ")";
        Fail(why.empty() ? "the connection was lost" : why);
      }
      break;
    case PN_PROACTOR_TIMEOUT: timed_out_ = true; break;
    case PN_PROACTOR_INACTIVE: inactive_ = true; break;
    default: break;
  }
}

Status LinkClient::Run(Handler* handler, std::chrono::milliseconds timeout) {
  if (inactive_) {
    if (error_.ok()) Fail("the connection was lost");
    return error_;
  }
  pn_event_batch_t* batch = pn_proactor_get(proactor_);
  if (batch == nullptr && timeout.count() != 0) {
    timed_out_ = false;
    if (timeout.count() > 0) pn_proactor_set_timeout(proactor_, static_cast<pn_millis_t>(timeout.count()));
    batch = pn_proactor_wait(proactor_);
    if (timeout.count() > 0) pn_proactor_cancel_timeout(proactor_);
  }
  while (batch != nullptr) {
    for (pn_event_t* e = pn_event_batch_next(batch); e != nullptr; e = pn_event_batch_next(batch)) {
      Handle(e, handler);
    }
    pn_proactor_done(proactor_, batch);
    if (inactive_) break;
    batch = pn_proactor_get(proactor_);
  }
  if (inactive_ && error_.ok() && !closing_) Fail("the connection was lost");
  return error_;
}

void LinkClient::Close(Handler* handler, std::chrono::milliseconds timeout) {
  if (inactive_) return;
  closing_ = true;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto run_until = [&](const std::function<bool()>& done) {
    while (!inactive_ && !done()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      (void)Run(handler, left);
    }
  };
  // The link first, and its detach awaited: a broker that applies dispositions behind the session
  // (RabbitMQ's AMQP 1.0 plugin) has then applied the last ones before the connection goes, which would
  // otherwise return messages accepted just before the close to the queue.
  if (link_ != nullptr && !(pn_link_state(link_) & PN_LOCAL_CLOSED)) pn_link_close(link_);
  pn_connection_wake(connection_);
  run_until([this] { return link_ == nullptr || link_ended_; });
  deadline = std::chrono::steady_clock::now() + timeout;
  if (!inactive_ && !(pn_connection_state(connection_) & PN_LOCAL_CLOSED)) pn_connection_close(connection_);
  if (!inactive_) pn_connection_wake(connection_);
  run_until([] { return false; });
}

}  // namespace sift::tools::amqp_client
