// FlowControl: the server-wide memory budget and disk-free threshold of `sift serve`, and the alarm
// states they raise (the model is RabbitMQ's memory and disk alarms).
//
// Memory counts what clients made the server hold: bytes of transfers received but not yet appended,
// bytes read or queued for consumers but not yet written to their sockets (or not yet settled), and
// the consumer links themselves at a fixed estimate each. When the count reaches the
// budget, the memory alarm is raised and producers get no more credit (no top-ups, and new producer
// links start with none) until the count falls below the low-water mark (90% of the budget). The
// disk alarm is raised while the store's file system has less than the threshold free and withholds
// producer credit the same way, and so does a store that takes no appends (a write failed: the disk
// filled up under it, whatever the threshold said) until it has recovered. Consumers are never held
// back by an alarm: what they read drains the memory.
//
// Thread safety: the byte counters are updated from any thread; Evaluate and SetDiskFree run on one
// thread (the event loop); FlowState is a snapshot that anyone may take (a metrics exporter, logs).
#ifndef SIFT_TOOLS_SERVE_FLOW_CONTROL_H_
#define SIFT_TOOLS_SERVE_FLOW_CONTROL_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace sift::tools {

// What the alarms look like at one moment.
struct FlowState {
  bool memory_alarm = false;
  bool disk_alarm = false;
  bool store_unwritable = false;  // the store refuses appends until it recovers from a failed write
  uint64_t inbound_bytes = 0;     // received transfers not yet appended
  uint64_t outbound_bytes = 0;    // deliveries queued for consumers, not yet written
  uint64_t link_bytes = 0;        // consumer links open, at a fixed estimate each
  uint64_t memory_budget = 0;     // 0: no budget
  uint64_t disk_free = 0;         // free bytes of the store's file system at the last check
  uint64_t min_disk_free = 0;     // 0: no threshold

  // Producers may be granted credit.
  bool producers_may_send() const { return !memory_alarm && !disk_alarm && !store_unwritable; }
};

class FlowControl {
 public:
  // `memory_budget` and `min_disk_free` in bytes; 0 disables that alarm.
  FlowControl(uint64_t memory_budget, uint64_t min_disk_free);

  // Counter updates (signed deltas), from any thread.
  void AddInbound(int64_t delta) { inbound_.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed); }
  void AddOutbound(int64_t delta) { outbound_.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed); }
  // What open consumer links cost, a fixed estimate each (their consumer, filter and Proton state).
  void AddLinks(int64_t delta) { links_.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed); }
  uint64_t links() const { return NonNegative(links_); }

  // Records the free bytes of the store's file system.
  void SetDiskFree(uint64_t bytes) { disk_free_.store(bytes, std::memory_order_relaxed); }

  // Records whether the store takes appends (its own log line says when this changes).
  void SetStoreWritable(bool writable) { store_unwritable_.store(!writable, std::memory_order_relaxed); }

  // Raises or clears the alarms from the counters (hysteresis for memory). Returns true when either
  // alarm changed; *change then says how, for the log ("memory alarm raised: 64.0MiB in use, budget
  // 64.0MiB"), else it is left alone.
  bool Evaluate(std::string* change);

  // Whether producers may be granted credit now (no alarm raised).
  bool producers_may_send() const {
    return !memory_alarm_.load(std::memory_order_relaxed) && !disk_alarm_.load(std::memory_order_relaxed) &&
           !store_unwritable_.load(std::memory_order_relaxed);
  }

  FlowState state() const;

  // Bytes queued for consumers now (as state().outbound_bytes), and the budget (0: none).
  uint64_t outbound() const { return NonNegative(outbound_); }
  uint64_t memory_budget() const { return memory_budget_; }

 private:
  // The counters are sums of signed deltas from several threads: a momentary wrap below zero reads as 0.
  static uint64_t NonNegative(const std::atomic<uint64_t>& counter) {
    const uint64_t v = counter.load(std::memory_order_relaxed);
    return static_cast<int64_t>(v) < 0 ? 0 : v;
  }

  const uint64_t memory_budget_;
  const uint64_t low_water_;
  const uint64_t min_disk_free_;
  std::atomic<uint64_t> inbound_{0};
  std::atomic<uint64_t> outbound_{0};
  std::atomic<uint64_t> links_{0};
  std::atomic<uint64_t> disk_free_{UINT64_MAX};
  std::atomic<bool> memory_alarm_{false};
  std::atomic<bool> disk_alarm_{false};
  std::atomic<bool> store_unwritable_{false};
};

// The free bytes (for an unprivileged user) of the file system holding `path`; false with *error set
// when it cannot be read.
bool FileSystemFreeBytes(const std::string& path, uint64_t* free_bytes, std::string* error);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_FLOW_CONTROL_H_
