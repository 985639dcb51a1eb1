// Publishing stored messages to a broker (see publisher.h).
#include "tools/amqp_client/publisher.h"

#include <proton/condition.h>
#include <proton/delivery.h>
#include <proton/disposition.h>
#include <proton/link.h>

#include <thread>

#include "base/byte_order.h"

namespace sift::tools::amqp_client {
namespace {

const char* OutcomeName(uint64_t state) {
  switch (state) {
    case PN_ACCEPTED: return "accepted";
    case PN_REJECTED: return "rejected";
    case PN_RELEASED: return "released";
    case PN_MODIFIED: return "modified";
    case PN_RECEIVED: return "received";
    default: return "settled with no outcome";
  }
}

}  // namespace

Status Publisher::Open(const BrokerUrl& url, const ClientOptions& client, const PublishOptions& options,
                       std::string what, std::unique_ptr<Publisher>* out) {
  std::unique_ptr<Publisher> publisher(new Publisher(options));
  LinkClient::LinkSettings settings;
  settings.role = LinkClient::Role::kSender;
  settings.what = std::move(what);
  Status status = LinkClient::Open(url, client, settings, &publisher->client_);
  if (!status.ok()) return status;
  publisher->start_ = std::chrono::steady_clock::now();
  *out = std::move(publisher);
  return Status::OK();
}

Publisher::~Publisher() = default;

void Publisher::SendQueued(pn_link_t* link) {
  if (!refusal_.ok()) return;
  while (!queue_.empty() && pn_link_credit(link) > 0) {
    Queued& q = queue_.front();
    uint8_t tag[8];
    base::StoreBE64(tag, q.offset);
    pn_delivery(link, pn_dtag(reinterpret_cast<const char*>(tag), sizeof tag));
    pn_link_send(link, q.bytes.data(), q.bytes.size());
    pn_link_advance(link);
    ++sent_;
    ++unsettled_;
    unanswered_.insert(q.offset);
    queue_bytes_ -= q.bytes.size();
    queue_.pop_front();
  }
}

void Publisher::OnDelivery(pn_delivery_t* d) {
  if (!pn_delivery_updated(d) && !pn_delivery_settled(d)) return;
  const uint64_t state = pn_delivery_remote_state(d);
  if (state == PN_RECEIVED && !pn_delivery_settled(d)) return;  // progress only: the outcome follows
  const pn_delivery_tag_t tag = pn_delivery_tag(d);
  const uint64_t offset = tag.size == 8 ? base::LoadBE64(reinterpret_cast<const uint8_t*>(tag.start)) : 0;
  if (state == PN_ACCEPTED) {
    ++accepted_;
    if (options_.on_accepted) options_.on_accepted(offset);
  } else {
    std::string why = OutcomeName(state);
    pn_condition_t* condition = pn_disposition_condition(pn_delivery_remote(d));
    if (condition != nullptr && pn_condition_is_set(condition)) {
      const char* name = pn_condition_get_name(condition);
      const char* description = pn_condition_get_description(condition);
      why += std::string(": ") + (name != nullptr ? name : "error");
      if (description != nullptr && *description != '\0') why += std::string(": ") + description;
    }
    ++refused_;
    if (options_.on_refused == RefusedPolicy::kSkip) {
      if (options_.on_refused_message) options_.on_refused_message(offset, why);
    } else if (refusal_.ok()) {
      refusal_ =
          Status::InvalidArgument("refused by " + client_->url().ToString(), "offset " + std::to_string(offset), why);
      // Nothing more goes out; what is in flight still gets its disposition.
      queue_.clear();
      queue_bytes_ = 0;
    }
  }
  pn_delivery_settle(d);
  --unsettled_;
  unanswered_.erase(offset);
}

Status Publisher::Failure() {
  if (!refusal_.ok()) return refusal_;
  const Status& error = client_->error();
  if (unsettled_ == 0 && queue_.empty()) return error;
  // A broker may end the connection instead of refusing a message (RabbitMQ 3.10 does, for a full
  // queue with overflow reject-publish): the first message without an answer is where it stopped.
  const uint64_t first = unanswered_.empty() ? queue_.front().offset : *unanswered_.begin();
  return Status::InvalidArgument(error.what(), error.where(),
                                 std::string(error.why()) + " (at offset " + std::to_string(first) + ": " +
                                     std::to_string(unsettled_) + " message(s) sent without an answer, " +
                                     std::to_string(queue_.size()) + " not sent, " + std::to_string(accepted_) +
                                     " accepted)");
}

Status Publisher::Push(bool all) {
  woken_ = false;
  client_->Wake();
  for (;;) {
    if (!refusal_.ok() && unsettled_ == 0) return refusal_;
    const bool full = queue_.size() >= kQueueMessages || queue_bytes_ >= kQueueBytes;
    const bool waiting = all && (!queue_.empty() || unsettled_ > 0);
    if (woken_ && !full && !waiting) return Status::OK();
    Status s = client_->Run(this, std::chrono::milliseconds(-1));
    if (!s.ok()) return Failure();
  }
}

Status Publisher::Send(uint64_t offset, std::string_view message) {
  if (!refusal_.ok()) return refusal_;
  if (client_->failed()) return Failure();
  if (options_.rate > 0) {
    // Paced: the n-th message goes no earlier than n / rate seconds after the start; the wait is spent
    // handling the broker's answers.
    const auto due = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(static_cast<double>(paced_) / options_.rate));
    for (auto now = std::chrono::steady_clock::now(); now < due; now = std::chrono::steady_clock::now()) {
      Status s = client_->Run(this, std::max(std::chrono::milliseconds(1),
                                             std::chrono::duration_cast<std::chrono::milliseconds>(due - now)));
      if (!s.ok()) return Failure();
      if (!refusal_.ok()) return refusal_;
    }
  }
  ++paced_;
  queue_.push_back({offset, std::string(message)});
  queue_bytes_ += message.size();
  if (options_.rate > 0 || queue_.size() >= 256 || queue_bytes_ >= (1u << 20)) return Push(false);
  return Status::OK();
}

Status Publisher::Finish() {
  Status status = client_->failed() ? Failure() : Push(true);
  client_->Close(this);
  return status;
}

}  // namespace sift::tools::amqp_client
