// The comparison client of bench/broker/run: what an application written with Qpid Proton's C++ API
// does to move the same messages to and from the same broker, timed beside `sift replay --to` and
// `sift capture --from`.
//
//   broker_proton_peer send URL ADDRESS FILE [USER PASSWORD]
//     decodes each message of the record file into a proton::message and sends it, at most CREDIT
//     unsettled (the broker's credit), waiting for every disposition; exit 1 unless all are accepted.
//   broker_proton_peer receive URL ADDRESS COUNT [USER PASSWORD]
//     receives COUNT messages with a credit window of 10000 (sift capture's default) and accepts each
//     once received (it stores nothing, where sift capture appends each batch durably first).
//
// Prints one line, `<mode> <messages> <seconds> <msgs/s>`, on stdout.
#include <proton/connection.hpp>
#include <proton/connection_options.hpp>
#include <proton/container.hpp>
#include <proton/delivery.hpp>
#include <proton/message.hpp>
#include <proton/messaging_handler.hpp>
#include <proton/receiver.hpp>
#include <proton/receiver_options.hpp>
#include <proton/sender.hpp>
#include <proton/tracker.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "amqp/record_file.h"

namespace {

// The record file's messages (read with the project's reader, which checks every length), or an
// exception naming the file, record and byte.
std::vector<std::vector<char>> ReadRecords(const std::string& path) {
  sift::amqp::RecordFileReader reader;
  if (!reader.Open(path)) throw std::runtime_error(reader.error());
  std::vector<std::vector<char>> out;
  std::span<const uint8_t> message;
  while (reader.Next(&message)) out.emplace_back(message.begin(), message.end());
  if (!reader.ok()) throw std::runtime_error(reader.error());
  return out;
}

proton::connection_options Options(const std::string& user, const std::string& password) {
  proton::connection_options options;
  if (!user.empty()) {
    options.user(user).password(password).sasl_allowed_mechs("PLAIN").sasl_allow_insecure_mechs(true);
  }
  return options;
}

class Sender : public proton::messaging_handler {
 public:
  Sender(std::string url, std::string address, std::vector<std::vector<char>> records, std::string user,
         std::string password)
      : url_(std::move(url)),
        address_(std::move(address)),
        records_(std::move(records)),
        user_(std::move(user)),
        password_(std::move(password)) {}

  void on_container_start(proton::container& c) override {
    start_ = std::chrono::steady_clock::now();
    c.open_sender(url_ + "/" + address_, Options(user_, password_));
  }
  void on_sendable(proton::sender& s) override {
    while (s.credit() > 0 && sent_ < records_.size()) {
      proton::message m;
      m.decode(records_[sent_]);
      s.send(m);
      ++sent_;
    }
  }
  void on_tracker_accept(proton::tracker& t) override { Settled(t); }
  void on_tracker_reject(proton::tracker& t) override {
    ++refused_;
    Settled(t);
  }
  void on_tracker_release(proton::tracker& t) override {
    ++refused_;
    Settled(t);
  }
  void Settled(proton::tracker& t) {
    if (++settled_ == records_.size()) {
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      t.connection().close();
    }
  }
  double seconds_ = 0;
  uint64_t refused_ = 0;
  size_t settled_ = 0;

 private:
  std::string url_, address_;
  std::vector<std::vector<char>> records_;
  std::string user_, password_;
  size_t sent_ = 0;
  std::chrono::steady_clock::time_point start_;
};

class Receiver : public proton::messaging_handler {
 public:
  Receiver(std::string url, std::string address, uint64_t count, std::string user, std::string password)
      : url_(std::move(url)),
        address_(std::move(address)),
        count_(count),
        user_(std::move(user)),
        password_(std::move(password)) {}

  void on_container_start(proton::container& c) override {
    start_ = std::chrono::steady_clock::now();
    c.open_receiver(url_ + "/" + address_, proton::receiver_options().credit_window(10000), Options(user_, password_));
  }
  void on_message(proton::delivery& d, proton::message&) override {
    if (++received_ == count_) {
      seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      d.accept();
      d.connection().close();
    }
  }
  double seconds_ = 0;
  uint64_t received_ = 0;

 private:
  std::string url_, address_;
  uint64_t count_;
  std::string user_, password_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s send|receive URL ADDRESS FILE|COUNT [USER PASSWORD]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1], url = argv[2], address = argv[3];
  const std::string user = argc > 6 ? argv[5] : "", password = argc > 6 ? argv[6] : "";
  try {
    if (mode == "send") {
      Sender sender(url, address, ReadRecords(argv[4]), user, password);
      proton::container(sender).run();
      std::printf("send %zu %.3f %.0f\n", sender.settled_, sender.seconds_,
                  sender.seconds_ > 0 ? static_cast<double>(sender.settled_) / sender.seconds_ : 0.0);
      return sender.refused_ == 0 ? 0 : 1;
    }
    if (mode == "receive") {
      Receiver receiver(url, address, std::stoull(argv[4]), user, password);
      proton::container(receiver).run();
      std::printf("receive %llu %.3f %.0f\n", static_cast<unsigned long long>(receiver.received_), receiver.seconds_,
                  receiver.seconds_ > 0 ? static_cast<double>(receiver.received_) / receiver.seconds_ : 0.0);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "broker_proton_peer: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "broker_proton_peer: unknown mode '%s'\n", mode.c_str());
  return 2;
}
