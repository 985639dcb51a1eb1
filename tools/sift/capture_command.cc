// `sift capture [--store DIR] --stream NAME --from amqp[s]://HOST:PORT/ADDRESS [--selector EXPR]
//  [--count N] [--idle-exit DURATION] [--credit N] [--max-held SIZE] [--no-sync] [--compression CODEC]
//  [--stats]
//  [connection flags]`: a receiver on any AMQP 1.0 broker whose messages are appended to a stream, at
// least once.
//
// A message is accepted (settled with `accepted`, so the broker forgets it) only after the append that
// holds it is durable: whatever kills the process, every message the broker handed over is either in
// the stream or still the broker's to deliver again — a message stored but not yet accepted when the
// process dies is delivered again, and stored twice. Appends run on a writer thread while the link
// goes on receiving: the messages that arrive during one append are the next append's batch (group
// commit, its size set by the arrival rate), and the credit the broker gets back is what was settled,
// so at most --credit messages are held unsettled, and about --max-held bytes (the credit shrinks to
// what fits, by the sizes seen). A message that is not well-formed AMQP is rejected
// with its reason as it arrives, and one the store refuses (larger than it takes) once its batch is
// written; the run goes on. An append that fails (the disk) releases the batch to the broker and ends
// the run (exit 3).
//
// A lost connection is reopened with back-off (0.1 s doubling to 5 s) for as long as it takes; the
// first connection failing is an error (exit 2: an unreachable host, a refused login, a missing
// address). SIGINT or SIGTERM: no more credit, the batches received are stored and accepted, what
// arrives after is released, and the connection is closed. stdout gets `FIRST..LAST`, the offsets
// stored, at the end.
#include <CLI/CLI.hpp>
#include <proton/condition.h>
#include <proton/delivery.h>
#include <proton/disposition.h>
#include <proton/link.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "amqp/validate.h"
#include "base/bytes.h"
#include "sift/stream_engine.h"
#include "tools/amqp_client/link_client.h"
#include "tools/compression_flag.h"
#include "tools/sift/command.h"
#include "tools/sift/store_flags.h"
#include "tools/unit_flags.h"

namespace sift::tools {
namespace {

struct CaptureOptions {
  std::string store;
  std::string stream;
  std::string from;
  std::string selector;
  uint64_t count = 0;        // 0: no limit
  int64_t idle_exit_ms = 0;  // 0: never
  // Messages the broker may send ahead. Credit comes back as batches are settled, so the window must
  // cover what arrives during one durable append; `sift capture --credit N --stats` measures the rate
  // (bench/DECISIONS.md, "Capture window and credit top-ups").
  uint32_t credit = 10000;
  // Bytes held unsettled, at most about: AMQP credit counts messages, so the window in messages is
  // this over the size of the messages seen, and no credit goes out while this much is held.
  uint64_t max_held_bytes = uint64_t{64} << 20;
  bool stats = false;
  bool no_sync = false;
  std::optional<ChunkCompression> compression;
  amqp_client::ClientOptions client;
};

// Messages received and not yet settled, in arrival order, their bytes back to back. A settled batch
// is cleared and filled again (its capacity kept): with a buffer per message, page faults were the
// receiving thread's largest cost in a profile, the heap's top being returned to the kernel after each
// batch and faulted in again by the next.
struct Batch {
  std::vector<pn_delivery_t*> deliveries;
  std::string data;
  std::vector<size_t> ends;  // message i is data[ends[i - 1] .. ends[i])
  // Filled by the writer thread.
  std::vector<std::string_view> views;
  std::vector<AppendOutcome> outcomes;
  Status status;

  size_t size() const { return ends.size(); }
  size_t MessageBytes(size_t i) const { return ends[i] - (i == 0 ? 0 : ends[i - 1]); }
  void Add(pn_delivery_t* d, std::string_view message) {
    deliveries.push_back(d);
    data.append(message);
    ends.push_back(data.size());
  }
  void Clear() {
    deliveries.clear();
    data.clear();
    ends.clear();
    views.clear();
    outcomes.clear();
    status = Status();
  }
};

// The counts of a run, over every connection.
struct CaptureCounts {
  uint64_t received = 0;
  uint64_t stored = 0;
  uint64_t rejected = 0;
  uint64_t released = 0;
  uint64_t bytes = 0;
  uint64_t reconnects = 0;
  uint64_t batches = 0;          // appends (group commits)
  uint64_t peak_held_bytes = 0;  // received and not settled, at most
  uint64_t first_offset = UINT64_MAX;
  uint64_t last_offset = 0;
};

// Appends batches on a thread of its own, one at a time; the link's thread hands one over and learns
// of its end through the connection's wake.
class BatchWriter {
 public:
  BatchWriter(StreamEngine* engine, std::string stream) : engine_(engine), stream_(std::move(stream)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~BatchWriter() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Whether a batch was handed over and not yet taken back. Asked after every delivery: an atomic,
  // not the mutex the writer holds while it hands a batch back.
  bool busy() const { return busy_.load(std::memory_order_acquire); }
  // Starts appending `batch`; `wake` is called (on the writer thread) when it is done. Only when !busy().
  void Submit(std::unique_ptr<Batch> batch, amqp_client::LinkClient* wake) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = std::move(batch);
      wake_ = wake;
      busy_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }
  // The finished batch, or null while it is being written (or none was submitted).
  std::unique_ptr<Batch> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_ != nullptr) busy_.store(false, std::memory_order_release);
    return std::move(done_);
  }
  // Waits for the batch in flight, if any, and returns it.
  std::unique_ptr<Batch> Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return job_ == nullptr; });
    busy_.store(false, std::memory_order_release);
    return std::move(done_);
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return quit_ || (job_ != nullptr && done_ == nullptr); });
      if (job_ == nullptr) return;
      Batch* batch = job_.get();
      lock.unlock();
      batch->views.clear();
      for (size_t i = 0, begin = 0; i < batch->size(); begin = batch->ends[i++]) {
        batch->views.emplace_back(batch->data.data() + begin, batch->ends[i] - begin);
      }
      batch->status = engine_->AppendEach(stream_, batch->views, &batch->outcomes);
      lock.lock();
      done_ = std::move(job_);
      if (wake_ != nullptr) wake_->Wake();
      cv_.notify_all();
    }
  }

  StreamEngine* engine_;
  std::string stream_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::unique_ptr<Batch> job_;
  std::unique_ptr<Batch> done_;
  amqp_client::LinkClient* wake_ = nullptr;
  bool quit_ = false;
  std::atomic<bool> busy_{false};  // job_ or done_ set: changed by the link's thread only
  std::thread thread_;
};

void SetCondition(pn_delivery_t* d, const char* name, const std::string& description) {
  pn_condition_t* c = pn_disposition_condition(pn_delivery_local(d));
  pn_condition_set_name(c, name);
  pn_condition_set_description(c, description.c_str());
}

// One connection's receiving: deliveries into batches, batches to the writer, outcomes back.
class Receiver : public amqp_client::LinkClient::Handler {
 public:
  Receiver(const CaptureOptions& options, BatchWriter* writer, CaptureCounts* counts, amqp_client::LinkClient* client,
           std::atomic<bool>* stop)
      : options_(options), writer_(writer), counts_(counts), client_(client), stop_(stop) {}

  void Start() { TopUpCredit(client_->link()); }

  void OnDelivery(pn_delivery_t* d) override {
    pn_link_t* link = pn_delivery_link(d);
    if (!pn_delivery_readable(d) && !pn_delivery_aborted(d)) return;
    if (pn_delivery_aborted(d)) {  // an aborted transfer is discarded
      partial_.clear();
      pn_delivery_settle(d);
      return;
    }
    const size_t pending = pn_delivery_pending(d);
    const size_t at = partial_.size();
    partial_.resize(at + pending);
    const ssize_t n = pending > 0 ? pn_link_recv(link, partial_.data() + at, pending) : 0;
    partial_.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (pn_delivery_partial(d)) return;
    pn_link_advance(link);
    ++counts_->received;
    // A clock read per delivery was a visible share of the receiving thread: only --idle-exit needs it.
    if (options_.idle_exit_ms > 0) last_arrival_ = std::chrono::steady_clock::now();
    if (stop_->load() || limit_reached_) {
      // After a signal (or past --count): not stored, so given back for another consumer.
      pn_delivery_update(d, PN_RELEASED);
      pn_delivery_settle(d);
      ++counts_->released;
      partial_.clear();
      return;
    }
    // Validated as it arrives rather than in the store's append: a malformed message is rejected at
    // once, and the writing thread, whose appends hold up every acceptance, has less to do
    // (bench/DECISIONS.md, "Broker rates").
    if (const amqp::DecodeError error = amqp::Validate(base::AsBytes(partial_)); !error.ok()) {
      Reject(d, Status::Malformed("malformed message", "byte " + std::to_string(error.offset), error.Reason()));
      pn_delivery_settle(d);
      partial_.clear();
      return;
    }
    if (open_ == nullptr) open_ = spare_ != nullptr ? std::move(spare_) : std::make_unique<Batch>();
    open_->Add(d, partial_);
    NoteSize(partial_.size());
    partial_.clear();
    ++held_;
    if (options_.count != 0 && counts_->stored + held_ >= options_.count) limit_reached_ = true;
    HandOver();
    // The first message of the link tells the size to fit the window to; until then it is one message.
    if (!sized_) {
      sized_ = true;
      TopUpCredit(link);
    }
  }

  void OnWake(pn_link_t* link) override {
    if (std::unique_ptr<Batch> done = writer_->Take(); done != nullptr) Settle(std::move(done));
    HandOver();
    TopUpCredit(link);
  }

  void OnFlow(pn_link_t* /*link*/) override {}

  // Settles a written batch: accepted if stored, rejected if refused on its own, released otherwise.
  void Settle(std::unique_ptr<Batch> batch) {
    ++counts_->batches;
    for (size_t i = 0; i < batch->deliveries.size(); ++i) {
      pn_delivery_t* d = batch->deliveries[i];
      const AppendOutcome& outcome = batch->outcomes.size() > i ? batch->outcomes[i] : AppendOutcome{};
      if (batch->outcomes.size() > i && outcome.status.ok()) {
        pn_delivery_update(d, PN_ACCEPTED);
        ++counts_->stored;
        counts_->bytes += batch->MessageBytes(i);
        counts_->first_offset = std::min(counts_->first_offset, outcome.offset);
        counts_->last_offset = std::max(counts_->last_offset, outcome.offset);
      } else if (batch->status.ok() && batch->outcomes.size() > i) {
        Reject(d, outcome.status);
      } else {
        pn_delivery_update(d, PN_RELEASED);
        ++counts_->released;
      }
      pn_delivery_settle(d);
      --held_;
      held_bytes_ -= batch->MessageBytes(i);
    }
    if (!batch->status.ok() && write_error_.ok()) write_error_ = batch->status;
    batch->Clear();
    spare_ = std::move(batch);
  }

  // Rejects `d` (to be settled), with the reason it cannot be stored.
  void Reject(pn_delivery_t* d, const Status& why) {
    SetCondition(d, "amqp:decode-error", why.ToString());
    pn_delivery_update(d, PN_REJECTED);
    ++counts_->rejected;
    PrintError("warning", "capture", "rejected a message the store refuses: " + why.ToString());
  }

  bool idle() const { return open_ == nullptr && held_ == 0; }
  bool done() const { return options_.count != 0 && counts_->stored >= options_.count; }
  const Status& write_error() const { return write_error_; }
  std::chrono::steady_clock::time_point last_arrival() const { return last_arrival_; }
  // Messages received on this connection and not settled (the writer may hold some).
  uint64_t held() const { return held_; }
  std::unique_ptr<Batch> TakeOpen() { return std::move(open_); }

 private:
  void HandOver() {
    if (open_ == nullptr || writer_->busy() || !write_error_.ok()) return;
    writer_->Submit(std::move(open_), client_);
  }

  // Held bytes, and the size the window is fitted to: a decaying maximum, up at once to a larger message
  // and down slowly (by 1/64 a message) after smaller ones, so that a mix of sizes fits the larger.
  void NoteSize(uint64_t bytes) {
    held_bytes_ += bytes;
    counts_->peak_held_bytes = std::max(counts_->peak_held_bytes, held_bytes_);
    size_estimate_ = std::max(bytes, size_estimate_ - size_estimate_ / 64);
  }

  // Credit back up to --credit messages held unsettled (within --count), and to what fits in --max-held
  // at the size estimate; none after a signal, and none while --max-held is held.
  void TopUpCredit(pn_link_t* link) {
    if (stop_->load() || !write_error_.ok()) return;
    if (held_bytes_ >= options_.max_held_bytes) return;  // the writer's wake tops up once it settles
    // In messages, what fits in --max-held at the size estimate: one until a message has arrived.
    const uint64_t fits = sized_ ? options_.max_held_bytes / std::max<uint64_t>(1, size_estimate_) : 1;
    uint64_t want = std::min<uint64_t>(options_.credit, std::max<uint64_t>(1, fits));
    if (options_.count != 0) {
      const uint64_t left = options_.count > counts_->stored + held_ ? options_.count - counts_->stored - held_ : 0;
      want = std::min<uint64_t>(want, left + held_);
    }
    // Topped up once half the window is used, not after every batch: RabbitMQ delivered at a lower rate
    // when it got a small top-up (a flow frame) every few milliseconds (bench/DECISIONS.md, "Capture
    // window and credit top-ups"). Never stalls: while more than half the window is outstanding, the
    // broker holds credit to send with, or this receiver holds messages whose settlement comes back
    // here.
    const uint64_t outstanding = held_ + static_cast<uint64_t>(std::max(0, pn_link_credit(link)));
    if (want > outstanding && outstanding <= want / 2) pn_link_flow(link, static_cast<int>(want - outstanding));
  }

  const CaptureOptions& options_;
  BatchWriter* writer_;
  CaptureCounts* counts_;
  amqp_client::LinkClient* client_;
  std::atomic<bool>* stop_;
  std::unique_ptr<Batch> open_;
  std::unique_ptr<Batch> spare_;  // a settled batch, to be filled again
  std::string partial_;
  uint64_t held_ = 0;
  uint64_t held_bytes_ = 0;
  uint64_t size_estimate_ = 0;
  bool sized_ = false;  // a message arrived on this link: size_estimate_ holds
  bool limit_reached_ = false;
  Status write_error_;
  std::chrono::steady_clock::time_point last_arrival_ = std::chrono::steady_clock::now();
};

// SIGINT and SIGTERM, taken by a thread of their own (blocked everywhere else), set *stop; the same
// thread wakes the link in use every 100 ms.
class SignalWatch {
 public:
  explicit SignalWatch(std::atomic<bool>* stop) : stop_(stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    thread_ = std::thread([this] {
      while (!quit_.load()) {
        timespec wait{0, 100 * 1000 * 1000};
        const int sig = sigtimedwait(&set_, nullptr, &wait);
        if (quit_.load()) break;  // the destructor's signal (or one at the very end: the run is over)
        if (sig == SIGINT || sig == SIGTERM) stop_->store(true);
        // Every tick wakes the link, so its thread looks at the writer, the clock (--idle-exit) and
        // the stop flag at least every 100 ms, whether or not the broker sends anything: a wake from
        // the writer that went unseen (a capture from sift serve with --credit 50000 once stalled
        // with its batch written, waiting in epoll with no timeout) costs 100 ms, not the run.
        std::lock_guard<std::mutex> lock(mutex_);
        if (client_ != nullptr) client_->Wake();
      }
    });
  }
  ~SignalWatch() {
    quit_.store(true);
    // Ends the thread's wait now rather than at its next tick: every run otherwise ended with up to
    // 100 ms spent here, a large share of a short capture's wall time (bench/DECISIONS.md, "Broker rates").
    pthread_kill(thread_.native_handle(), SIGTERM);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void Watch(amqp_client::LinkClient* client) {
    std::lock_guard<std::mutex> lock(mutex_);
    client_ = client;
  }

 private:
  std::atomic<bool>* stop_;
  sigset_t set_;
  sigset_t old_;
  std::atomic<bool> quit_{false};
  std::mutex mutex_;
  amqp_client::LinkClient* client_ = nullptr;
  std::thread thread_;
};

int RunCapture(const CaptureOptions& options) {
  amqp_client::BrokerUrl url;
  std::string why;
  if (!amqp_client::ParseBrokerUrl(options.from, &url, &why)) {
    PrintError("usage", "sift capture: --from " + options.from, why);
    return kExitUsage;
  }
  if (!options.selector.empty() && options.selector.find('\0') != std::string::npos) {
    PrintError("usage", "sift capture: --selector", "holds a NUL character");
    return kExitUsage;
  }
  std::atomic<bool> stop{false};
  SignalWatch signals(&stop);  // before any thread starts (RocksDB's), so they inherit the mask

  AppendSettings settings;
  settings.sync = !options.no_sync;
  settings.validate = false;  // Receiver::OnDelivery validates every message
  settings.compression = options.compression;
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kCreate, &engine, settings);
  if (!status.ok()) return ReportError(status);
  status = CreateStreamToAppend(*engine, options.stream, settings);
  if (!status.ok()) return ReportError(status);

  amqp_client::LinkClient::LinkSettings link;
  link.role = amqp_client::LinkClient::Role::kReceiver;
  link.selector = options.selector;
  link.what = "capture --from";
  CaptureCounts counts;
  BatchWriter writer(engine.get(), options.stream);
  const auto start = std::chrono::steady_clock::now();
  auto last_progress = start;
  const bool terminal = isatty(fileno(stderr)) == 1;
  Status write_error;
  bool connected_once = false;
  auto backoff = std::chrono::milliseconds(100);
  auto last_activity = start;
  bool finished = false;
  while (!finished && !stop.load()) {
    std::unique_ptr<amqp_client::LinkClient> client;
    status = amqp_client::LinkClient::Open(url, options.client, link, &client);
    if (!status.ok()) {
      if (!connected_once) return ReportError(status);
      PrintError("capture", url.ToString(),
                 "cannot reconnect (" + std::string(status.why()) + "); retrying in " +
                     std::to_string(backoff.count()) + " ms");
      const auto until = std::chrono::steady_clock::now() + backoff;
      while (!stop.load() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
      continue;
    }
    if (connected_once) ++counts.reconnects;
    connected_once = true;
    backoff = std::chrono::milliseconds(100);
    signals.Watch(client.get());
    Receiver receiver(options, &writer, &counts, client.get(), &stop);
    client->Wake();  // the first credit goes out from the wake
    receiver.Start();
    bool lost = false;
    while (!stop.load()) {
      status = client->Run(&receiver, std::chrono::milliseconds(100));
      if (!receiver.write_error().ok()) break;
      if (!status.ok()) {
        lost = true;
        break;
      }
      if (receiver.done()) {
        finished = true;
        break;
      }
      const auto now = std::chrono::steady_clock::now();
      last_activity = std::max(last_activity, receiver.last_arrival());
      if (options.idle_exit_ms > 0 && receiver.idle() &&
          now - last_activity >= std::chrono::milliseconds(options.idle_exit_ms)) {
        finished = true;
        break;
      }
      if (terminal && now - last_progress >= std::chrono::milliseconds(200) && now - start >= std::chrono::seconds(1)) {
        last_progress = now;
        std::fprintf(stderr, "\rsift: capture: stored %llu, %.0f msgs/s ",
                     static_cast<unsigned long long>(counts.stored),
                     static_cast<double>(counts.stored) / std::chrono::duration<double>(now - start).count());
      }
    }
    // The end of this connection: the batch being written is stored, and settled while the connection
    // lives; what was received and not handed over is stored too (it arrived before the stop).
    if (!lost) {
      for (int round = 0; round < 2; ++round) {
        if (std::unique_ptr<Batch> done = writer.Wait(); done != nullptr) receiver.Settle(std::move(done));
        if (std::unique_ptr<Batch> rest = receiver.TakeOpen(); rest != nullptr && receiver.write_error().ok()) {
          writer.Submit(std::move(rest), nullptr);
        }
      }
      // Settlements go out with the next batch of the connection: wake it, then close.
      client->Wake();
      (void)client->Run(&receiver, std::chrono::milliseconds(0));
    } else {
      // Stored, never accepted: the broker delivers it again (counted as stored: it is in the stream).
      if (std::unique_ptr<Batch> done = writer.Wait(); done != nullptr) {
        for (const AppendOutcome& outcome : done->outcomes) {
          if (!outcome.status.ok()) continue;
          ++counts.stored;
          counts.first_offset = std::min(counts.first_offset, outcome.offset);
          counts.last_offset = std::max(counts.last_offset, outcome.offset);
        }
      }
      PrintError("capture", url.ToString(),
                 std::string(status.why()) + "; reconnecting (" + std::to_string(receiver.held()) +
                     " message(s) received and not accepted will be delivered again)");
    }
    write_error = receiver.write_error();
    signals.Watch(nullptr);
    client->Close(&receiver);
    if (!write_error.ok()) break;
  }
  if (terminal && std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) std::fprintf(stderr, "\r\033[K");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.stats) {
    std::fprintf(
        stderr,
        "sift: stats: received %llu, stored %llu, rejected %llu, released %llu, reconnects %llu, appends %llu, "
        "held at most %llu bytes, %.0f msgs/s, %.1f MB/s, elapsed %.3f s\n",
        static_cast<unsigned long long>(counts.received), static_cast<unsigned long long>(counts.stored),
        static_cast<unsigned long long>(counts.rejected), static_cast<unsigned long long>(counts.released),
        static_cast<unsigned long long>(counts.reconnects), static_cast<unsigned long long>(counts.batches),
        static_cast<unsigned long long>(counts.peak_held_bytes),
        elapsed > 0 ? static_cast<double>(counts.stored) / elapsed : 0.0,
        elapsed > 0 ? static_cast<double>(counts.bytes) / elapsed / 1e6 : 0.0, elapsed);
  }
  if (counts.stored > 0) {
    std::printf("%llu..%llu\n", static_cast<unsigned long long>(counts.first_offset),
                static_cast<unsigned long long>(counts.last_offset));
  }
  std::fflush(stdout);
  if (!write_error.ok()) return ReportError(write_error);
  return kExitMatched;
}

}  // namespace

Command AddCaptureCommand(CLI::App& app) {
  auto options = std::make_shared<CaptureOptions>();
  CLI::App* sub = app.add_subcommand("capture", "Append the messages of a queue on an AMQP 1.0 broker to a stream");
  AddStoreFlag(sub, &options->store);
  sub->add_option("--stream", options->stream, "Stream name (created when missing)")->required();
  sub->add_option("--from", options->from, "The broker's address, amqp[s]://HOST:PORT/ADDRESS (RabbitMQ: /queue/NAME)")
      ->required();
  sub->add_option("--selector", options->selector,
                  "A JMS selector the broker applies (its apache.org:selector-filter:string filter)");
  sub->add_option("-c,--count", options->count, "Stop after storing this many messages (0: no limit)");
  AddDurationOption(sub, "--idle-exit", &options->idle_exit_ms, 0, int64_t{1} << 40,
                    "Stop when nothing has arrived for this long (0: never)");
  sub->add_option("--credit", options->credit, "Messages the broker may send ahead, unsettled")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  AddByteSizeOption(sub, "--max-held", &options->max_held_bytes, uint64_t{1} << 10, uint64_t{1} << 40,
                    "Bytes of messages held unsettled, at most about (credit fits it by the sizes seen; "
                    "default 64MiB)");
  sub->add_flag("--no-sync", options->no_sync,
                "Accept once the append is written, before it is synced (a machine crash may lose what was accepted)");
  AddCompressionFlag(sub, &options->compression,
                     "this run and the stream's later appends (kept as the stream's setting; default: the stream's)");
  sub->add_flag("--stats", options->stats, "Print a summary line on stderr at the end");
  amqp_client::AddClientFlags(sub, &options->client);
  return {sub, [options] { return RunCapture(*options); }};
}

}  // namespace sift::tools
