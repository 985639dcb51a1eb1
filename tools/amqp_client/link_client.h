// One AMQP 1.0 link to a broker, driven on the caller's thread: a Qpid Proton proactor with one
// connection, one session and one link (a sender for --to, a receiver for --from).
//
// Nothing runs behind the caller's back: events are handled only inside Run(), on the calling
// thread, and passed to a Handler, which may send, settle and give credit there (Proton's rule: a
// connection is touched only while its event batch is held). Wake() asks for an OnWake() call from
// the next Run(), which is how a caller with something to send gets back into the connection.
//
// Errors are values: Open() reports an unreachable host, a refused login (SASL), a TLS failure or a
// refused attach (amqp:not-found for a missing address) as InvalidArgument naming the URL and the
// broker's condition; after that, error() holds what ended the connection or the link.
#ifndef SIFT_TOOLS_AMQP_CLIENT_LINK_CLIENT_H_
#define SIFT_TOOLS_AMQP_CLIENT_LINK_CLIENT_H_

#include <proton/event.h>
#include <proton/ssl.h>
#include <proton/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "sift/status.h"
#include "tools/amqp_client/broker_url.h"
#include "tools/amqp_client/client_options.h"

namespace sift::tools::amqp_client {

class LinkClient {
 public:
  enum class Role : uint8_t { kSender, kReceiver };

  // What the link's events mean to its user; called from Run() on the caller's thread.
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void OnFlow(pn_link_t* /*link*/) {}
    virtual void OnDelivery(pn_delivery_t* /*delivery*/) {}
    virtual void OnWake(pn_link_t* /*link*/) {}
  };

  struct LinkSettings {
    Role role = Role::kSender;
    std::string selector;  // receiver: a JMS selector for the broker's own filter ("" none)
    std::string what;      // the flag in error lines ("--to", "--from")
  };

  // Connects, opens the session and the link, and waits until the broker has attached it (or
  // refused). InvalidArgument naming the URL and why.
  static Status Open(const BrokerUrl& url, const ClientOptions& options, const LinkSettings& link,
                     std::unique_ptr<LinkClient>* out);
  ~LinkClient();
  LinkClient(const LinkClient&) = delete;
  LinkClient& operator=(const LinkClient&) = delete;

  // Handles the event batches that are ready, waiting up to `timeout` for the first (0: none waits;
  // negative: waits as long as it takes). Returns error() once the connection or link has failed.
  Status Run(Handler* handler, std::chrono::milliseconds timeout);
  // Asks for Handler::OnWake on the next Run(). Cheap; thread-safe.
  void Wake();
  // Closes the link and connection and waits (up to `timeout`) for the broker to confirm, so the
  // dispositions sent before are on the wire. Errors of the close itself are not reported.
  void Close(Handler* handler, std::chrono::milliseconds timeout = std::chrono::seconds(5));

  pn_link_t* link() const { return link_; }
  const Status& error() const { return error_; }
  bool failed() const { return !error_.ok(); }
  const BrokerUrl& url() const { return url_; }

 private:
  LinkClient() = default;
  // One event; false when it is the last of interest (the proactor went inactive).
  void Handle(pn_event_t* event, Handler* handler);
  void Fail(std::string why);

  BrokerUrl url_;
  std::string what_;
  pn_proactor_t* proactor_ = nullptr;
  pn_connection_t* connection_ = nullptr;
  pn_link_t* link_ = nullptr;
  pn_ssl_domain_t* ssl_ = nullptr;
  bool link_open_ = false;   // the broker attached the link
  bool closing_ = false;     // Close() was called: the end of the connection is expected
  bool link_ended_ = false;  // the broker detached the link (closed or not)
  bool inactive_ = false;    // the proactor has nothing left (the connection is gone)
  bool timed_out_ = false;   // the proactor timeout of the current Run() fired
  Status error_;
};

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_LINK_CLIENT_H_
