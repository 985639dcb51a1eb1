// serve_throughput: publishes N messages to a `sift serve` stream from one producer connection while
// one filtered consumer (attached first, start "next") receives the matches; prints msgs/s published
// (counted when the server's `accepted` arrives, i.e. durable) and delivered.
//
// Messages look like `sift gen` orders: application properties region (one of 4, cycling), amount,
// price, vip, subject; a ~120-byte JSON-ish string body. The default filter `region = 'eu-west' AND
// amount >= 500` matches exactly N/8 of them (amount cycles 0..999 in steps that make half of each
// region >= 500), so the consumer knows when it is done.
//
// Then (unless --replay 0) a second consumer with the same filter attaches at "first" and reads the
// stored stream back: msgs/s delivered and scanned from storage over AMQP.
//
// Usage: serve_throughput [--url HOST:PORT] [--stream NAME] [--count N] [--filter SQL] [--replay 0|1]
#include <proton/connection.hpp>
#include <proton/container.hpp>
#include <proton/delivery.hpp>
#include <proton/message.hpp>
#include <proton/messaging_handler.hpp>
#include <proton/receiver.hpp>
#include <proton/receiver_options.hpp>
#include <proton/sender.hpp>
#include <proton/sender_options.hpp>
#include <proton/value.hpp>
#include <proton/source.hpp>
#include <proton/source_options.hpp>
#include <proton/codec/encoder.hpp>
#include <proton/tracker.hpp>
#include <proton/types.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

const char* const kRegions[] = {"eu-west", "us-east", "ap-south", "eu-central"};

bool Matches(uint64_t i) { return i % 4 == 0 && (i / 4) % 2 == 0; }

proton::message MakeMessage(uint64_t i) {
  proton::message m;
  m.id(std::string("order-") + std::to_string(i));
  m.subject(i % 3 == 0 ? "created" : "updated");
  auto& props = m.properties();
  props.put("region", std::string(kRegions[i % 4]));
  // amount >= 500 exactly when (i / 4) is even.
  props.put("amount", static_cast<int64_t>(((i / 4) % 2 == 0 ? 500 : 0) + (i * 7) % 500));
  props.put("price", 10.0 + static_cast<double>(i % 1000) / 100.0);
  props.put("vip", i % 10 == 0);
  m.body(std::string("{\"id\":") + std::to_string(i) + ",\"customer\":\"customer-" + std::to_string(i % 9973) +
         "\",\"items\":[\"widget\",\"gadget\"],\"note\":\"loopback throughput\"}");
  return m;
}

proton::source::filter_map Filters(const std::string& sql, const char* start) {
  proton::source::filter_map filters;
  proton::value value;
  proton::codec::encoder enc(value);
  enc << proton::codec::start::described() << proton::symbol("amqp:sql-filter") << sql << proton::codec::finish();
  filters.put(proton::symbol("sql-filter"), value);
  filters.put(proton::symbol("rabbitmq:stream-offset-spec"), proton::symbol(start));
  return filters;
}

struct Run {
  std::string url = "127.0.0.1:5672";
  std::string stream = "bench";
  uint64_t count = 200000;
  std::string filter = "region = 'eu-west' AND amount >= 500";
  uint64_t expected = 0;

  Clock::time_point start;
  Clock::time_point published_at;
  Clock::time_point delivered_at;
  uint64_t sent = 0, accepted = 0, rejected = 0, delivered = 0, out_of_order = 0;
  uint64_t last_offset = 0;
  bool producer_done = false, consumer_done = false;
  // Replay: after both are done, a second filtered consumer reads the stream from the start.
  bool replay = true;
  Clock::time_point replay_start, replay_done;
  uint64_t replayed = 0;
};

// The second phase: the same filter from offset 0, all stored, as fast as the server can scan.
class Replayer : public proton::messaging_handler {
 public:
  explicit Replayer(Run* run) : run_(run) {}
  void Start(proton::container& c) {
    run_->replay_start = Clock::now();
    proton::receiver_options ro;
    ro.handler(*this).credit_window(2000).source(proton::source_options().filters(Filters(run_->filter, "first")));
    c.open_receiver(run_->url + "/" + run_->stream, ro);
  }
  void on_message(proton::delivery& d, proton::message&) override {
    if (++run_->replayed == run_->expected) {
      run_->replay_done = Clock::now();
      d.connection().close();
    }
  }

 private:
  Run* run_;
};

class Producer : public proton::messaging_handler {
 public:
  explicit Producer(Run* run) : run_(run) {}
  void Start(proton::container& c) {
    run_->start = Clock::now();
    c.open_sender(run_->url + "/" + run_->stream, proton::sender_options().handler(*this));
  }
  void on_sendable(proton::sender& s) override {
    while (s.credit() > 0 && run_->sent < run_->count) {
      s.send(MakeMessage(run_->sent));
      ++run_->sent;
    }
  }
  void on_tracker_accept(proton::tracker& t) override { Settled(t); }
  void on_tracker_reject(proton::tracker& t) override {
    ++run_->rejected;
    Settled(t);
  }
  void on_error(const proton::error_condition& e) override {
    fprintf(stderr, "producer: %s\n", e.what().c_str());
    exit(1);
  }

 private:
  void Settled(proton::tracker& t) {
    if (++run_->accepted == run_->count) {
      run_->published_at = Clock::now();
      run_->producer_done = true;
      t.connection().close();
    }
  }
  Run* run_;
};

class Consumer : public proton::messaging_handler {
 public:
  Consumer(Run* run, Producer* producer, Replayer* replayer) : run_(run), producer_(producer), replayer_(replayer) {}
  void on_container_start(proton::container& c) override {
    proton::receiver_options ro;
    ro.credit_window(2000).source(proton::source_options().filters(Filters(run_->filter, "next")));
    c.open_receiver(run_->url + "/" + run_->stream, ro);
  }
  void on_receiver_open(proton::receiver& r) override {
    if (r.source().filters().empty()) {
      fprintf(stderr, "consumer: the server did not echo the filter\n");
      exit(1);
    }
    producer_->Start(r.container());
  }
  void on_message(proton::delivery& d, proton::message& m) override {
    uint64_t offset = proton::coerce<uint64_t>(m.message_annotations().get(proton::symbol("x-stream-offset")));
    if (run_->delivered > 0 && offset <= run_->last_offset) ++run_->out_of_order;
    run_->last_offset = offset;
    if (++run_->delivered == run_->expected) {
      run_->delivered_at = Clock::now();
      run_->consumer_done = true;
      d.connection().close();
      if (run_->replay) replayer_->Start(d.container());
    }
  }
  void on_error(const proton::error_condition& e) override {
    fprintf(stderr, "consumer: %s\n", e.what().c_str());
    exit(1);
  }

 private:
  Run* run_;
  Producer* producer_;
  Replayer* replayer_;
};

}  // namespace

int main(int argc, char** argv) {
  Run run;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--url")
      run.url = argv[i + 1];
    else if (flag == "--stream")
      run.stream = argv[i + 1];
    else if (flag == "--count")
      run.count = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--filter")
      run.filter = argv[i + 1];
    else if (flag == "--replay")
      run.replay = std::string(argv[i + 1]) != "0";
    else {
      fprintf(stderr,
              "usage: serve_throughput [--url HOST:PORT] [--stream NAME] [--count N] [--filter SQL] [--replay 0|1]\n");
      return 2;
    }
  }
  for (uint64_t i = 0; i < run.count; ++i) run.expected += Matches(i) ? 1 : 0;
  if (run.filter != "region = 'eu-west' AND amount >= 500") {
    fprintf(stderr, "a custom --filter: the consumer waits for N/8 matches, as for the default filter\n");
  }
  Producer producer(&run);
  Replayer replayer(&run);
  Consumer consumer(&run, &producer, &replayer);
  proton::container container(consumer, "serve-throughput");
  container.run();
  const double publish_s = std::chrono::duration<double>(run.published_at - run.start).count();
  const double deliver_s = std::chrono::duration<double>(run.delivered_at - run.start).count();
  printf("messages published: %llu (accepted %llu, rejected %llu) in %.3f s: %.0f msgs/s\n",
         static_cast<unsigned long long>(run.sent), static_cast<unsigned long long>(run.accepted - run.rejected),
         static_cast<unsigned long long>(run.rejected), publish_s, run.count / publish_s);
  printf(
      "messages delivered: %llu of %llu expected (filter: %s) in %.3f s: %.0f msgs/s delivered, "
      "%.0f msgs/s scanned\n",
      static_cast<unsigned long long>(run.delivered), static_cast<unsigned long long>(run.expected), run.filter.c_str(),
      deliver_s, run.delivered / deliver_s, run.count / deliver_s);
  if (run.replay) {
    const double replay_s = std::chrono::duration<double>(run.replay_done - run.replay_start).count();
    printf("replay from first: %llu delivered in %.3f s: %.0f msgs/s delivered, %.0f msgs/s scanned\n",
           static_cast<unsigned long long>(run.replayed), replay_s, run.replayed / replay_s, run.count / replay_s);
  }
  if (run.replay && run.replayed != run.expected) return 1;
  if (run.out_of_order != 0 || run.delivered != run.expected || run.rejected != 0) {
    fprintf(stderr, "FAILED: %llu out of order deliveries\n", static_cast<unsigned long long>(run.out_of_order));
    return 1;
  }
  return 0;
}
