// ManagementNode: the answers of `sift serve`'s management node `$management` (docs/serve.md,
// "Management"): a request message in, the response message out.
//
// It knows the request and response formats of the AMQP Management convention (operation, type and
// name in application-properties; statusCode and statusDescription back; attributes as an amqp-value
// map) and the stream operations (CREATE, READ, UPDATE, DELETE on `sift:stream`, ENFORCE-RETENTION on
// `sift:store`). It knows nothing of links or connections: the server finds the reply link by the
// answer's reply_to and detaches the links of a deleted stream. Runs on the event thread.
#ifndef SIFT_TOOLS_SERVE_MANAGEMENT_NODE_H_
#define SIFT_TOOLS_SERVE_MANAGEMENT_NODE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sift/stream_engine.h"
#include "tools/management_protocol.h"

namespace sift::tools {

struct ManagementSettings {
  // Retention of the streams CREATE makes without retention attributes (as a link's auto-create).
  RetentionPolicy default_retention;
  // Streams the store may hold (0: no limit): CREATE beyond it is refused.
  uint64_t max_streams = 0;
};

// What a request got.
struct ManagementAnswer {
  std::string reply_to;  // the request's reply-to: where the response goes
  std::string response;  // the encoded response message
  int status = 0;        // its statusCode
  std::string description;
  std::string deleted_stream;  // set when a DELETE removed this stream
  std::string request;         // "DELETE sift:stream 'orders'", printable, for the log
  bool changed = false;        // the store was changed (a successful CREATE, UPDATE, DELETE, ENFORCE-RETENTION)
};

class ManagementNode {
 public:
  // Whether the requesting user may manage `stream`.
  using MayManage = std::function<bool(std::string_view stream)>;
  // Whether a response can go to `reply_to`; false with *condition and *description when not (then
  // nothing is done: an operation is carried out only when its answer can be delivered).
  using CanReply = std::function<bool(std::string_view reply_to, std::string* condition, std::string* description)>;

  ManagementNode(StreamEngine* engine, ManagementSettings settings) : engine_(engine), settings_(std::move(settings)) {}

  // Answers one request (`message`: a whole encoded message). False, with *condition and
  // *description, when it cannot be answered at all (not a message, no reply-to, or `can_reply`
  // refuses it): the request is then rejected. Otherwise true with *out, whatever the response's
  // status. `user` names the requester in refusals.
  bool Handle(std::string_view message, std::string_view user, const MayManage& may_manage, const CanReply& can_reply,
              ManagementAnswer* out, std::string* condition, std::string* description) const;

 private:
  StreamEngine* engine_;
  ManagementSettings settings_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_MANAGEMENT_NODE_H_
