// Requests of the management node decoded and answered with Proton's message codec (see
// management_node.h; formats in docs/serve.md, "Management").
#include "tools/serve/management_node.h"

#include <proton/codec.h>
#include <proton/error.h>
#include <proton/message.h>

#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "amqp/validate.h"
#include "tools/compression_flag.h"
#include "tools/management_protocol.h"
#include "tools/proton_data.h"
#include "tools/proton_handles.h"
#include "tools/serve/printable_text.h"

namespace sift::tools {
namespace {

struct StreamAttributes {
  std::optional<uint64_t> max_bytes;
  std::optional<int64_t> max_age_ms;
  std::optional<ChunkCompression> compression;
};

// The body's attributes: nothing for an absent or null body, else an amqp-value map of known names.
bool ReadAttributes(pn_data_t* body, StreamAttributes* out, std::string* why) {
  pn_data_rewind(body);
  if (!pn_data_next(body) || pn_data_type(body) == PN_NULL) return true;
  if (pn_data_type(body) != PN_MAP) {
    *why = "the body must be an amqp-value map of attributes";
    return false;
  }
  const size_t count = pn_data_get_map(body);
  pn_data_enter(body);
  for (size_t i = 0; i + 1 < count; i += 2) {
    pn_data_next(body);
    std::optional<std::string> key = TextAt(body);
    pn_data_next(body);
    if (!key) {
      *why = "attribute names must be strings";
      return false;
    }
    const std::string name = PrintableText(*key);
    if (*key == attribute::kRetentionMaxBytes || *key == attribute::kRetentionMaxAgeMs) {
      const auto integer = IntegerAt(body);
      if (!integer) {
        *why = "attribute '" + name + "' must be an integer";
        return false;
      }
      const int64_t* signed_value = std::get_if<int64_t>(&*integer);
      if (signed_value != nullptr && *signed_value < 0) {
        *why = "attribute '" + name + "' must not be negative";
        return false;
      }
      const uint64_t value =
          signed_value != nullptr ? static_cast<uint64_t>(*signed_value) : std::get<uint64_t>(*integer);
      if (*key == attribute::kRetentionMaxBytes) {
        out->max_bytes = value;
      } else if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        *why = "attribute '" + name + "' is out of range";
        return false;
      } else {
        out->max_age_ms = static_cast<int64_t>(value);
      }
    } else if (*key == attribute::kCompression) {
      std::optional<std::string> text = TextAt(body);
      ChunkCompression c;
      std::string bad;
      if (!text) {
        *why = "attribute 'compression' must be a string";
        return false;
      }
      if (!ParseChunkCompression(*text, &c, &bad)) {
        *why = "attribute 'compression': " + PrintableText(bad);
        return false;
      }
      out->compression = c;
    } else {
      *why = "unknown attribute '" + name + "' (retention-max-bytes, retention-max-age-ms, compression)";
      return false;
    }
  }
  pn_data_exit(body);
  return true;
}

void PutAttributes(pn_data_t* d, const StreamInfo& info) {
  pn_data_put_map(d);
  pn_data_enter(d);
  auto ulong = [d](std::string_view key, uint64_t v) {
    PutText(d, key);
    pn_data_put_ulong(d, v);
  };
  auto slong = [d](std::string_view key, int64_t v) {
    PutText(d, key);
    pn_data_put_long(d, v);
  };
  PutText(d, attribute::kName);
  PutText(d, info.name);
  ulong(attribute::kMessages, info.message_count);
  ulong(attribute::kFirstOffset, info.first_offset);
  ulong(attribute::kNextOffset, info.next_offset);
  ulong(attribute::kChunks, info.chunk_count);
  ulong(attribute::kStoredBytes, info.bytes);
  ulong(attribute::kRawBytes, info.raw_bytes);
  slong(attribute::kFirstTimestampMs, info.first_timestamp_ms);
  slong(attribute::kLastTimestampMs, info.last_timestamp_ms);
  ulong(attribute::kRetentionMaxBytes, info.retention.max_bytes);
  slong(attribute::kRetentionMaxAgeMs, info.retention.max_age.count());
  PutText(d, attribute::kCompression);
  PutText(d, FormatCompression(info.compression));
  pn_data_exit(d);
}

// The status of a failed engine call: what the client did wrong, or what the store did.
int StatusOf(const Status& s) {
  if (s.IsNotFound()) return 404;
  if (s.IsInputError()) return 400;
  return 500;
}

std::string Describe(const Status& s, std::string_view stream) {
  // The status names the stream as given, and a missing one the store's folder: neither goes back to
  // a remote client, only the stream's printable name and the what and why of other errors.
  if (s.IsNotFound()) return "stream '" + PrintableText(stream) + "': no such stream";
  return "stream '" + PrintableText(stream) + "': " + std::string(s.what()) + ": " + std::string(s.why());
}

}  // namespace

bool ManagementNode::Handle(std::string_view message, std::string_view user, const MayManage& may_manage,
                            const CanReply& can_reply, ManagementAnswer* out, std::string* condition,
                            std::string* description) const {
  // Proton's decoder passes over bytes it cannot read; the store's own validator does not, so a
  // damaged request is refused as such rather than answered as one without properties.
  const amqp::DecodeError invalid = amqp::Validate({reinterpret_cast<const uint8_t*>(message.data()), message.size()});
  if (!invalid.ok()) {
    *condition = "amqp:decode-error";
    *description = "the request is not a well-formed AMQP message: " + invalid.Message();
    return false;
  }
  MessagePtr request(pn_message());
  if (pn_message_decode(request.get(), message.data(), message.size()) != 0) {
    *condition = "amqp:decode-error";
    *description = std::string("the request is not an AMQP message: ") + pn_error_text(pn_message_error(request.get()));
    return false;
  }
  const char* reply_to = pn_message_get_reply_to(request.get());
  if (reply_to == nullptr || *reply_to == '\0') {
    *condition = "amqp:invalid-field";
    *description = "the request has no reply-to";
    return false;
  }
  if (!can_reply(reply_to, condition, description)) return false;
  out->reply_to = reply_to;

  std::optional<std::string> operation, type, name;
  pn_data_t* props = pn_message_properties(request.get());
  pn_data_rewind(props);
  if (pn_data_next(props) && pn_data_type(props) == PN_MAP) {
    const size_t count = pn_data_get_map(props);
    pn_data_enter(props);
    for (size_t i = 0; i + 1 < count; i += 2) {
      pn_data_next(props);
      std::optional<std::string> key = TextAt(props);
      pn_data_next(props);
      if (!key) continue;
      if (*key == "operation") operation = TextAt(props);
      if (*key == "type") type = TextAt(props);
      if (*key == "name") name = TextAt(props);
    }
    pn_data_exit(props);
  }

  int status = 200;
  std::string why;
  std::optional<StreamInfo> attributes;
  auto refuse = [&](int code, std::string text) {
    status = code;
    why = std::move(text);
  };
  auto read_info = [&](const std::string& stream) {
    StreamInfo info;
    Status s = engine_->GetStreamInfo(stream, &info);
    if (!s.ok()) return refuse(StatusOf(s), Describe(s, stream));
    attributes = info;
  };
  auto may = [&](const std::string& stream) {
    if (may_manage(stream)) return true;
    refuse(403, "user '" + PrintableText(user) + "' may not manage stream '" + PrintableText(stream) +
                    "' (no 'manage' permission on it)");
    return false;
  };

  const std::string op = operation.value_or("");
  const std::string of = type.value_or("");
  out->request = PrintableText(op) + " " + PrintableText(of) + (name ? " '" + PrintableText(*name) + "'" : "");
  if (!operation || !type) {
    refuse(400, "a request needs the application properties 'operation' and 'type' (strings)");
  } else if (of == kStoreType) {
    if (op != "ENFORCE-RETENTION") {
      refuse(501, "operation '" + PrintableText(op) + "' is not known for type 'sift:store' (ENFORCE-RETENTION)");
    } else {
      std::vector<std::string> streams;
      Status s = engine_->ListStreams(&streams);
      bool allowed = s.ok();
      for (size_t i = 0; allowed && i < streams.size(); ++i) allowed = may(streams[i]);
      if (!s.ok()) {
        refuse(500, std::string(s.what()) + ": " + std::string(s.why()));
      } else if (allowed) {
        s = engine_->EnforceRetention();
        if (!s.ok()) refuse(StatusOf(s), std::string(s.what()) + ": " + std::string(s.why()));
      }
    }
  } else if (of != kStreamType) {
    refuse(501, "type '" + PrintableText(of) + "' is not known (sift:stream, sift:store)");
  } else if (op != "CREATE" && op != "READ" && op != "UPDATE" && op != "DELETE") {
    refuse(501,
           "operation '" + PrintableText(op) + "' is not known for type 'sift:stream' (CREATE, READ, UPDATE, DELETE)");
  } else if (!name || name->empty()) {
    refuse(400, "a request on a stream needs the application property 'name' (a string naming the stream)");
  } else if (Status bad_name = StreamEngine::CheckStreamName(*name); !bad_name.ok()) {
    refuse(400, "'name' is no stream name: " + std::string(bad_name.why()));
  } else if (*name == kManagementAddress || name->rfind(std::string(kManagementAddress) + "/", 0) == 0) {
    refuse(400, "'" + PrintableText(*name) + "' is the management node's address, not a stream's");
  } else if (may(*name)) {
    StreamAttributes given;
    std::string bad;
    StreamInfo existing;
    if ((op == "CREATE" || op == "UPDATE") && !ReadAttributes(pn_message_body(request.get()), &given, &bad)) {
      refuse(400, bad);
    } else if (op == "READ") {
      read_info(*name);
    } else if (op == "CREATE") {
      std::vector<std::string> streams;
      Status s = engine_->GetStreamInfo(*name, &existing);
      if (s.ok()) {
        refuse(409, "stream '" + PrintableText(*name) + "' exists (UPDATE changes it)");
      } else if (!s.IsNotFound()) {
        refuse(StatusOf(s), Describe(s, *name));
      } else if (settings_.max_streams > 0 && engine_->ListStreams(&streams).ok() &&
                 streams.size() >= settings_.max_streams) {
        refuse(403, "cannot create stream '" + PrintableText(*name) + "': the store holds " +
                        std::to_string(streams.size()) + " streams, the server's limit (--max-streams " +
                        std::to_string(settings_.max_streams) + ")");
      } else {
        RetentionPolicy retention = settings_.default_retention;
        if (given.max_bytes) retention.max_bytes = *given.max_bytes;
        if (given.max_age_ms) retention.max_age = std::chrono::milliseconds(*given.max_age_ms);
        s = engine_->CreateStream(*name, retention);
        if (s.ok() && given.compression) s = engine_->SetCompression(*name, *given.compression);
        if (!s.ok()) {
          refuse(StatusOf(s), Describe(s, *name));
        } else {
          status = 201;
          read_info(*name);
        }
      }
    } else if (op == "UPDATE") {
      Status s = engine_->GetStreamInfo(*name, &existing);
      if (s.ok() && (given.max_bytes || given.max_age_ms)) {
        RetentionPolicy retention = existing.retention;
        if (given.max_bytes) retention.max_bytes = *given.max_bytes;
        if (given.max_age_ms) retention.max_age = std::chrono::milliseconds(*given.max_age_ms);
        s = engine_->SetRetention(*name, retention);
      }
      if (s.ok() && given.compression) s = engine_->SetCompression(*name, *given.compression);
      if (!s.ok()) {
        refuse(StatusOf(s), Describe(s, *name));
      } else {
        read_info(*name);
      }
    } else {  // DELETE
      Status s = engine_->DeleteStream(*name);
      if (!s.ok()) {
        refuse(StatusOf(s), Describe(s, *name));
      } else {
        status = 204;
        out->deleted_stream = *name;
      }
    }
  }
  if (status >= 300) attributes.reset();
  out->changed = status < 300 && op != "READ";
  if (why.empty()) why = status == 201 ? "Created" : status == 204 ? "No Content" : "OK";

  MessagePtr response(pn_message());
  pn_message_set_address(response.get(), reply_to);
  // The correlation-id pattern where the request has one, else the message-id pattern (as Artemis and
  // Proton's own request/response helper do).
  pn_atom_t id = pn_message_get_correlation_id(request.get());
  if (id.type == PN_NULL) id = pn_message_get_id(request.get());
  pn_message_set_correlation_id(response.get(), id);
  pn_data_t* ap = pn_message_properties(response.get());
  pn_data_put_map(ap);
  pn_data_enter(ap);
  PutText(ap, "statusCode");
  pn_data_put_int(ap, status);
  PutText(ap, "statusDescription");
  PutText(ap, why);
  pn_data_exit(ap);
  pn_data_t* body = pn_message_body(response.get());
  if (attributes) {
    PutAttributes(body, *attributes);
  } else {
    pn_data_put_null(body);
  }
  std::string encoded(1024 + (attributes ? 512 : 0) + why.size(), '\0');
  for (;;) {
    size_t size = encoded.size();
    const int rc = pn_message_encode(response.get(), encoded.data(), &size);
    if (rc == 0) {
      encoded.resize(size);
      break;
    }
    if (rc != PN_OVERFLOW || encoded.size() > (1u << 24)) {
      *condition = "amqp:internal-error";
      *description = "the response cannot be encoded";
      return false;
    }
    encoded.resize(encoded.size() * 2);
  }
  out->response = std::move(encoded);
  out->status = status;
  out->description = why;
  return true;
}

}  // namespace sift::tools
