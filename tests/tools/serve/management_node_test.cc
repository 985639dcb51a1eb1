// ManagementNode: requests encoded by Proton's message codec against a real store; statuses,
// attributes and their AMQP types, correlation, refusals, and requests that cannot be answered.
#include "tools/serve/management_node.h"

#include <gtest/gtest.h>
#include <proton/codec.h>
#include <proton/message.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sift/stream_engine.h"

namespace sift::tools {
namespace {

struct MessageFree {
  void operator()(pn_message_t* m) const { pn_message_free(m); }
};
using MessagePtr = std::unique_ptr<pn_message_t, MessageFree>;

std::string Encode(pn_message_t* m) {
  std::string out(4096, '\0');
  size_t size = out.size();
  EXPECT_EQ(pn_message_encode(m, out.data(), &size), 0);
  out.resize(size);
  return out;
}

// A value of the response's attribute map, as text and with its AMQP type.
struct Value {
  pn_type_t type;
  std::string text;
};

struct Response {
  int status = 0;
  std::string description;
  std::string correlation;  // as text (a string or ulong id)
  bool body_null = true;
  std::map<std::string, Value> attributes;
};

Response Decode(const std::string& bytes) {
  MessagePtr m(pn_message());
  EXPECT_EQ(pn_message_decode(m.get(), bytes.data(), bytes.size()), 0);
  Response r;
  pn_atom_t id = pn_message_get_correlation_id(m.get());
  if (id.type == PN_STRING) r.correlation = std::string(id.u.as_bytes.start, id.u.as_bytes.size);
  if (id.type == PN_ULONG) r.correlation = std::to_string(id.u.as_ulong);
  pn_data_t* ap = pn_message_properties(m.get());
  pn_data_rewind(ap);
  EXPECT_TRUE(pn_data_next(ap) && pn_data_type(ap) == PN_MAP);
  const size_t n = pn_data_get_map(ap);
  pn_data_enter(ap);
  for (size_t i = 0; i < n; i += 2) {
    pn_data_next(ap);
    pn_bytes_t key = pn_data_get_string(ap);
    pn_data_next(ap);
    const std::string k(key.start, key.size);
    if (k == "statusCode") {
      EXPECT_EQ(pn_data_type(ap), PN_INT);
      r.status = pn_data_get_int(ap);
    } else if (k == "statusDescription") {
      pn_bytes_t v = pn_data_get_string(ap);
      r.description.assign(v.start, v.size);
    }
  }
  pn_data_t* body = pn_message_body(m.get());
  pn_data_rewind(body);
  if (pn_data_next(body) && pn_data_type(body) == PN_MAP) {
    r.body_null = false;
    const size_t count = pn_data_get_map(body);
    pn_data_enter(body);
    for (size_t i = 0; i < count; i += 2) {
      pn_data_next(body);
      pn_bytes_t key = pn_data_get_string(body);
      pn_data_next(body);
      Value v{pn_data_type(body), ""};
      if (v.type == PN_ULONG) v.text = std::to_string(pn_data_get_ulong(body));
      if (v.type == PN_LONG) v.text = std::to_string(pn_data_get_long(body));
      if (v.type == PN_STRING) v.text = std::string(pn_data_get_string(body).start, pn_data_get_string(body).size);
      r.attributes[std::string(key.start, key.size)] = v;
    }
  }
  return r;
}

class ManagementNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/sift-management-node-test-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    folder_ = folder;
    ASSERT_TRUE(StreamEngine::Open(folder_ + "/store", EngineOptions(), &engine_).ok());
    node_ = std::make_unique<ManagementNode>(engine_.get(), ManagementSettings{{}, 3});
  }
  void TearDown() override {
    node_.reset();
    engine_.reset();
    std::filesystem::remove_all(folder_);
  }

  // A request; `attributes` (when given) is put as the body map with ulong values, `compression` as
  // a string attribute.
  static std::string Request(const char* operation, const char* type, std::optional<std::string> name,
                             const std::map<std::string, int64_t>& attributes = {},
                             std::optional<std::string> compression = std::nullopt, const char* reply_to = "r",
                             std::optional<uint64_t> message_id = 7) {
    MessagePtr m(pn_message());
    if (reply_to != nullptr) pn_message_set_reply_to(m.get(), reply_to);
    if (message_id) {
      pn_atom_t id;
      id.type = PN_ULONG;
      id.u.as_ulong = *message_id;
      pn_message_set_id(m.get(), id);
    }
    pn_data_t* ap = pn_message_properties(m.get());
    pn_data_put_map(ap);
    pn_data_enter(ap);
    auto put = [ap](const char* k, const std::string& v) {
      pn_data_put_string(ap, pn_bytes(strlen(k), k));
      pn_data_put_string(ap, pn_bytes(v.size(), v.data()));
    };
    if (operation != nullptr) put("operation", operation);
    if (type != nullptr) put("type", type);
    if (name) put("name", *name);
    pn_data_exit(ap);
    if (!attributes.empty() || compression) {
      pn_data_t* body = pn_message_body(m.get());
      pn_data_put_map(body);
      pn_data_enter(body);
      for (const auto& [k, v] : attributes) {
        pn_data_put_string(body, pn_bytes(k.size(), k.data()));
        pn_data_put_long(body, v);
      }
      if (compression) {
        pn_data_put_string(body, pn_bytes(11, "compression"));
        pn_data_put_string(body, pn_bytes(compression->size(), compression->data()));
      }
      pn_data_exit(body);
    }
    return Encode(m.get());
  }

  Response Ask(const std::string& request, const std::string& may = "*") {
    ManagementAnswer answer;
    std::string condition, description;
    const bool ok = node_->Handle(
        request, "alice", [&](std::string_view stream) { return may == "*" || stream == may; },
        [](std::string_view, std::string*, std::string*) { return true; }, &answer, &condition, &description);
    EXPECT_TRUE(ok) << condition << ": " << description;
    last_ = answer;
    Response r = Decode(answer.response);
    EXPECT_EQ(r.status, answer.status);
    return r;
  }

  std::string folder_;
  std::unique_ptr<StreamEngine> engine_;
  std::unique_ptr<ManagementNode> node_;
  ManagementAnswer last_;
};

TEST_F(ManagementNodeTest, CreateReadUpdateDelete) {
  Response r = Ask(Request("CREATE", "sift:stream", "orders", {{"retention-max-bytes", 1 << 20}}, "zstd:3"));
  EXPECT_EQ(r.status, 201) << r.description;
  EXPECT_EQ(r.correlation, "7");
  EXPECT_EQ(r.attributes["name"].text, "orders");
  EXPECT_EQ(r.attributes["retention-max-bytes"].type, PN_ULONG);
  EXPECT_EQ(r.attributes["retention-max-bytes"].text, "1048576");
  EXPECT_EQ(r.attributes["retention-max-age-ms"].type, PN_LONG);
  EXPECT_EQ(r.attributes["compression"].text, "zstd:3");
  EXPECT_EQ(r.attributes["messages"].type, PN_ULONG);
  EXPECT_EQ(r.attributes["first-timestamp-ms"].type, PN_LONG);
  EXPECT_EQ(r.attributes.size(), 12u);
  EXPECT_TRUE(last_.changed);

  EXPECT_EQ(Ask(Request("CREATE", "sift:stream", "orders")).status, 409);
  ASSERT_TRUE(engine_->Append("orders", std::string("\x00\x53\x77\xa1\x02hi", 7)).ok());
  r = Ask(Request("READ", "sift:stream", "orders"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.attributes["messages"].text, "1");
  EXPECT_FALSE(last_.changed);

  r = Ask(Request("UPDATE", "sift:stream", "orders", {{"retention-max-age-ms", 60000}}, "none"));
  EXPECT_EQ(r.status, 200) << r.description;
  EXPECT_EQ(r.attributes["retention-max-age-ms"].text, "60000");
  EXPECT_EQ(r.attributes["retention-max-bytes"].text, "1048576");  // kept
  EXPECT_EQ(r.attributes["compression"].text, "none");

  r = Ask(Request("DELETE", "sift:stream", "orders"));
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body_null);
  EXPECT_EQ(last_.deleted_stream, "orders");
  EXPECT_EQ(Ask(Request("READ", "sift:stream", "orders")).status, 404);
  EXPECT_EQ(Ask(Request("DELETE", "sift:stream", "orders")).status, 404);
  EXPECT_EQ(Ask(Request("UPDATE", "sift:stream", "orders", {{"retention-max-bytes", 1}})).status, 404);
}

TEST_F(ManagementNodeTest, BadRequestsGetTheirStatus) {
  Response r = Ask(Request("CREATE", "sift:stream", "s", {{"bogus", 1}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.description.find("unknown attribute 'bogus'"), std::string::npos) << r.description;
  r = Ask(Request("CREATE", "sift:stream", "s", {{"retention-max-age-ms", -5}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.description.find("must not be negative"), std::string::npos) << r.description;
  r = Ask(Request("CREATE", "sift:stream", "s", {}, "lz4"));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.description.find("'lz4' is not none, zstd or zstd:LEVEL"), std::string::npos) << r.description;
  EXPECT_EQ(Ask(Request("READ", "sift:stream", std::nullopt)).status, 400);
  EXPECT_EQ(Ask(Request("READ", "sift:stream", "")).status, 400);
  EXPECT_EQ(Ask(Request(nullptr, "sift:stream", "s")).status, 400);
  EXPECT_EQ(Ask(Request("QUERY", "sift:stream", "s")).status, 501);
  EXPECT_EQ(Ask(Request("READ", "sift:queue", "s")).status, 501);
  EXPECT_EQ(Ask(Request("DELETE", "sift:store", "")).status, 501);
  r = Ask(Request("CREATE", "sift:stream", std::string("tab\tname")));
  EXPECT_EQ(r.status, 400) << r.description;
  r = Ask(Request("READ", "sift:stream", std::string(256, 'x')));
  EXPECT_EQ(r.status, 400) << r.description;
  EXPECT_NE(r.description.find("must be 1..255 bytes"), std::string::npos) << r.description;
  r = Ask(Request("CREATE", "sift:stream", std::string("$management")));
  EXPECT_EQ(r.status, 400) << r.description;
  EXPECT_EQ(Ask(Request("CREATE", "sift:stream", std::string("$management/replies/1"))).status, 400);
  std::vector<std::string> names;
  ASSERT_TRUE(engine_->ListStreams(&names).ok());
  EXPECT_TRUE(names.empty()) << "a refused request created a stream";
}

TEST_F(ManagementNodeTest, PermissionAndLimits) {
  Response r = Ask(Request("CREATE", "sift:stream", "other"), "mine");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.description, "user 'alice' may not manage stream 'other' (no 'manage' permission on it)");
  EXPECT_EQ(Ask(Request("CREATE", "sift:stream", "mine"), "mine").status, 201);
  EXPECT_EQ(Ask(Request("CREATE", "sift:stream", "other")).status, 201);
  // ENFORCE-RETENTION touches every stream: refused unless the user may manage each.
  EXPECT_EQ(Ask(Request("ENFORCE-RETENTION", "sift:store", std::nullopt), "mine").status, 403);
  r = Ask(Request("ENFORCE-RETENTION", "sift:store", std::nullopt));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body_null);
  // The node was made with --max-streams 3.
  EXPECT_EQ(Ask(Request("CREATE", "sift:stream", "third")).status, 201);
  r = Ask(Request("CREATE", "sift:stream", "fourth"));
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.description.find("--max-streams 3"), std::string::npos) << r.description;
}

TEST_F(ManagementNodeTest, CorrelationIdWinsOverMessageId) {
  MessagePtr m(pn_message());
  pn_message_set_reply_to(m.get(), "r");
  pn_atom_t id;
  id.type = PN_ULONG;
  id.u.as_ulong = 1;
  pn_message_set_id(m.get(), id);
  pn_atom_t corr;
  corr.type = PN_STRING;
  corr.u.as_bytes = pn_bytes(3, "abc");
  pn_message_set_correlation_id(m.get(), corr);
  pn_data_t* ap = pn_message_properties(m.get());
  pn_data_put_map(ap);
  pn_data_enter(ap);
  pn_data_put_string(ap, pn_bytes(9, "operation"));
  pn_data_put_string(ap, pn_bytes(4, "READ"));
  pn_data_put_string(ap, pn_bytes(4, "type"));
  pn_data_put_string(ap, pn_bytes(11, "sift:stream"));
  pn_data_put_string(ap, pn_bytes(4, "name"));
  pn_data_put_string(ap, pn_bytes(1, "x"));
  pn_data_exit(ap);
  Response r = Ask(Encode(m.get()));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.correlation, "abc");
}

TEST_F(ManagementNodeTest, UnanswerableRequestsAreRefusedAndChangeNothing) {
  ManagementAnswer answer;
  std::string condition, description;
  auto always = [](std::string_view) { return true; };
  auto reply_ok = [](std::string_view, std::string*, std::string*) { return true; };
  EXPECT_FALSE(node_->Handle(std::string("\x00\x53\x73\xc0\x10\x05", 6), "alice", always, reply_ok, &answer, &condition,
                             &description));
  EXPECT_EQ(condition, "amqp:decode-error");
  EXPECT_FALSE(node_->Handle(Request("CREATE", "sift:stream", "s", {}, std::nullopt, nullptr), "alice", always,
                             reply_ok, &answer, &condition, &description));
  EXPECT_EQ(condition, "amqp:invalid-field");
  EXPECT_EQ(description, "the request has no reply-to");
  auto no_link = [](std::string_view, std::string* c, std::string* d) {
    *c = "amqp:not-found";
    *d = "no such reply link";
    return false;
  };
  EXPECT_FALSE(node_->Handle(Request("CREATE", "sift:stream", "s"), "alice", always, no_link, &answer, &condition,
                             &description));
  EXPECT_EQ(condition, "amqp:not-found");
  std::vector<std::string> names;
  ASSERT_TRUE(engine_->ListStreams(&names).ok());
  EXPECT_TRUE(names.empty()) << "a request without a reply link was carried out";
}

}  // namespace
}  // namespace sift::tools
