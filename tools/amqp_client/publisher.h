// Sends stored messages to an AMQP 1.0 broker as they are (`--to` of `sift replay` and `sift filter`).
//
// Each message's bytes are the transfer's payload as stored: no decode, no re-encode. A message is
// sent only while the broker gives credit; each delivery is unsettled until the broker's disposition
// comes back, and its tag carries the offset, so every outcome is matched to its message:
// `accepted` goes on (and only then is the message reported, through `on_accepted`); `rejected`,
// `released` and `modified` are refusals. With RefusedPolicy::kStop the first refusal stops the
// run: nothing more is sent, the messages already in flight get their dispositions, and Send() or
// Finish() returns InvalidArgument naming the offset and the broker's condition. With kSkip a
// refusal is passed to `on_refused` and the run goes on.
//
// Messages wait in a small queue (up to kQueueMessages or kQueueBytes) while the broker gives no
// credit, which bounds memory and makes a slow broker slow the scan down. Not thread-safe: one
// thread calls it, and the link's events are handled inside its calls.
#ifndef SIFT_TOOLS_AMQP_CLIENT_PUBLISHER_H_
#define SIFT_TOOLS_AMQP_CLIENT_PUBLISHER_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "sift/status.h"
#include "tools/amqp_client/link_client.h"

namespace sift::tools::amqp_client {

enum class RefusedPolicy : uint8_t { kStop, kSkip };

struct PublishOptions {
  RefusedPolicy on_refused = RefusedPolicy::kStop;
  double rate = 0;  // messages per second at most (0: as fast as the broker takes them)
  // Called, in the order the dispositions arrive, for each message the broker accepted.
  std::function<void(uint64_t offset)> on_accepted;
  // With kSkip: each refused message, and the refusal ("rejected: amqp:...: ...").
  std::function<void(uint64_t offset, const std::string& why)> on_refused_message;
};

class Publisher : private LinkClient::Handler {
 public:
  // Connects and attaches a sender to the URL's address. The errors of LinkClient::Open.
  static Status Open(const BrokerUrl& url, const ClientOptions& client, const PublishOptions& options, std::string what,
                     std::unique_ptr<Publisher>* out);
  ~Publisher() override;

  // Queues one message (copied) and sends what the broker has credit for. Returns the first refusal
  // (kStop) or connection failure, once met.
  Status Send(uint64_t offset, std::string_view message);
  // Sends everything queued, waits for every disposition, closes the connection. The first refusal
  // (kStop), or the failure that lost messages: then the messages sent but not confirmed are named.
  Status Finish();

  uint64_t sent() const { return sent_; }
  uint64_t accepted() const { return accepted_; }
  uint64_t refused() const { return refused_; }

  static constexpr size_t kQueueMessages = 1024;
  static constexpr size_t kQueueBytes = 8u << 20;

 private:
  explicit Publisher(PublishOptions options) : options_(std::move(options)) {}
  void OnFlow(pn_link_t* link) override { SendQueued(link); }
  void OnWake(pn_link_t* link) override {
    woken_ = true;
    SendQueued(link);
  }
  void OnDelivery(pn_delivery_t* delivery) override;
  void SendQueued(pn_link_t* link);
  // Gets the queued messages sent: returns once the queue is below its bounds (all: empty, and every
  // sent message settled).
  Status Push(bool all);
  Status Failure();

  struct Queued {
    uint64_t offset;
    std::string bytes;
  };

  PublishOptions options_;
  std::unique_ptr<LinkClient> client_;
  std::deque<Queued> queue_;
  size_t queue_bytes_ = 0;
  uint64_t sent_ = 0;
  uint64_t accepted_ = 0;
  uint64_t refused_ = 0;
  uint64_t unsettled_ = 0;
  std::set<uint64_t> unanswered_;  // offsets sent and not yet settled, for naming the first lost one
  bool woken_ = false;
  Status refusal_;  // kStop: the first refusal
  std::chrono::steady_clock::time_point start_;
  uint64_t paced_ = 0;  // messages given to Send (for --rate)
};

}  // namespace sift::tools::amqp_client

#endif  // SIFT_TOOLS_AMQP_CLIENT_PUBLISHER_H_
