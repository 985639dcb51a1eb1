// Embedding sift in a broker, end to end: open a store, create a stream, append messages (one and a
// batch), see a malformed message and a bad filter refused, compile a filter-set, consume the matches
// in credit-limited batches, and fully decode one.
//
// It is built as any embedding program is: the headers of include/sift/ (the whole API) and the
// library sift_engine, plus Qpid Proton's C API, with which it encodes its messages as a broker's
// producers would. Usage: sift_embed_example STORE_DIR. Exits 0 when everything behaved as
// documented; CI runs it (`ctest -R embed_example`).
#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sift/filter_spec.h"
#include "sift/stream_engine.h"

namespace {

using sift::Status;

int Fail(const Status& s) {
  std::fprintf(stderr, "embed: %s\n", s.ToString().c_str());
  return 1;
}

int Fail(const char* what) {
  std::fprintf(stderr, "embed: %s\n", what);
  return 1;
}

// The orders of this example: every order's application properties are a function of its number.
struct Order {
  std::string region;
  int64_t amount = 0;
  std::string color;
};

Order MakeOrder(uint64_t i) {
  static const char* const kRegions[] = {"eu-west", "us-east", "ap-south"};
  static const char* const kColors[] = {"blue", "red", "black", "green", "white"};
  return {kRegions[i % 3], static_cast<int64_t>((i * 7919) % 1000), kColors[(i / 3) % 5]};
}

bool PutString(pn_data_t* data, std::string_view s) {
  return pn_data_put_string(data, pn_bytes(s.size(), s.data())) == 0;
}

// Order `i` as an encoded AMQP 1.0 message: subject "order-<i>", application properties region,
// amount and color, a string body. False when Proton fails at any step.
bool EncodeOrder(uint64_t i, std::string* out) {
  const Order order = MakeOrder(i);
  const std::string subject = "order-" + std::to_string(i);
  pn_message_t* message = pn_message();
  pn_data_t* properties = pn_message_properties(message);  // the application-properties section
  char buffer[1024];
  size_t size = sizeof(buffer);
  const bool ok = pn_message_set_subject(message, subject.c_str()) == 0 && pn_data_put_map(properties) == 0 &&
                  pn_data_enter(properties) && PutString(properties, "region") && PutString(properties, order.region) &&
                  PutString(properties, "amount") && pn_data_put_long(properties, order.amount) == 0 &&
                  PutString(properties, "color") && PutString(properties, order.color) && pn_data_exit(properties) &&
                  PutString(pn_message_body(message), "order " + std::to_string(i)) &&
                  pn_message_encode(message, buffer, &size) == 0;
  pn_message_free(message);
  if (ok) out->assign(buffer, size);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sift;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s STORE_DIR\n", argv[0]);
    return 2;
  }

  // 1. Open (or create) the store; appends are durable (fsync'd) when they return ok.
  std::unique_ptr<StreamEngine> engine;
  Status s = StreamEngine::Open(argv[1], EngineOptions{}, &engine);
  if (!s.ok()) return Fail(s);
  if (!(s = engine->CreateStream("orders")).ok()) return Fail(s);

  // 2. Append: any AMQP 1.0 encoded message, one at a time or in atomic batches.
  std::vector<std::string> messages(1000);
  for (uint64_t i = 0; i < messages.size(); ++i) {
    if (!EncodeOrder(i, &messages[i])) return Fail("proton could not encode an order");
  }
  uint64_t first = 0;
  if (!(s = engine->Append("orders", messages[0], &first)).ok()) return Fail(s);
  std::vector<std::string_view> rest(messages.begin() + 1, messages.end());
  if (!(s = engine->AppendBatch("orders", rest)).ok()) return Fail(s);
  // A malformed message is refused, with the byte and the reason.
  Status refused = engine->Append("orders", std::string_view("\x00\x53\x77\xa1\x05hi", 7));
  if (!refused.IsMalformed()) return Fail("a malformed message was not refused as malformed");
  std::printf("refused: %s\n", refused.ToString().c_str());

  // 3. A bad filter fails to compile, saying which filter, where (the byte) and why; a filter that did
  // not compile is refused by NewConsumer too, so it can never deliver every message by mistake.
  FilterSpec bad;
  bad.AddSql("amount > ");
  CompiledFilter bad_filter;
  FilterError error;
  Status bad_status = bad.Compile(&bad_filter, &error);
  if (!bad_status.IsInvalidArgument() || !error.has_position || bad_filter.ok())
    return Fail("a bad filter was not refused with its position");
  std::printf("bad filter: %s\n  %s\n  %*s^ (byte %zu)\n", bad_status.ToString().c_str(),
              bad.clauses()[error.clause].text.c_str(), static_cast<int>(error.position), "", error.position);
  ConsumerOptions refused_options;
  refused_options.stream = "orders";
  refused_options.filter = bad_filter;
  std::unique_ptr<Consumer> refused_consumer;
  if (!engine->NewConsumer(refused_options, &refused_consumer).IsInvalidArgument())
    return Fail("a consumer accepted a filter that did not compile");

  // 4. A consumer: SQL and an application-properties filter, ANDed; 50 deliveries per poll.
  FilterSpec filters;
  filters.AddSql("region = 'eu-west' AND amount > 500");
  filters.AddApplicationProperties(R"({"color": "&p:bl"})");
  ConsumerOptions options;
  options.stream = "orders";
  options.start = StartPosition::Offset(first);
  options.credit = 50;
  if (!(s = filters.Compile(&options.filter)).ok()) return Fail(s);
  std::unique_ptr<Consumer> consumer;
  if (!(s = engine->NewConsumer(options, &consumer)).ok()) return Fail(s);

  DeliveryBatch batch;
  uint64_t delivered = 0, expected = 0;
  pn_message_t* decoded = pn_message();
  while (!consumer->done()) {
    if (!(s = consumer->Poll(&batch)).ok()) break;
    for (const Delivery& d : batch) {
      ++delivered;
      // 5. Full decode only on request: into Proton (for a broker) or typed JSON (for people).
      if (delivered == 1) {
        if (!(s = d.ToProton(decoded)).ok()) break;
        std::string json;
        if (!(s = d.ToJson(&json)).ok()) break;
        const char* subject = pn_message_get_subject(decoded);
        std::printf("first match: offset %llu, subject %s\n%s\n", static_cast<unsigned long long>(d.offset()),
                    subject != nullptr ? subject : "-", json.c_str());
      }
    }
    if (!s.ok()) break;
  }
  pn_message_free(decoded);
  if (!s.ok()) return Fail(s);
  for (uint64_t i = 0; i < messages.size(); ++i) {
    const Order o = MakeOrder(i);
    if (o.region == "eu-west" && o.amount > 500 && o.color.starts_with("bl")) ++expected;
  }
  const ConsumerStats& stats = consumer->stats();
  // Chunks whose summary shows no message can match are skipped unread, so `scanned` may be short of
  // the stream's length; what is delivered is the same either way.
  std::printf("scanned %llu, matched %llu (expected %llu), %llu bytes, %llu chunks read, %llu skipped by summary\n",
              static_cast<unsigned long long>(stats.scanned), static_cast<unsigned long long>(stats.matched),
              static_cast<unsigned long long>(expected), static_cast<unsigned long long>(stats.bytes),
              static_cast<unsigned long long>(stats.chunks), static_cast<unsigned long long>(stats.chunks_pruned));
  if (expected == 0 || delivered != expected || stats.matched != expected || stats.scanned > messages.size())
    return Fail("the consumer did not deliver exactly the expected matches");
  return 0;
}
