// OrderedBatches: batches of work done on worker threads and handed back in the order they were
// submitted, so a command can spread per-record work over every core and still write its output in
// record order.
//
// One thread (the command's) submits batches and takes finished ones back; the workers only run the
// work function. At most max_pending() batches are in flight: Next(wait=false) hands back what is
// done at the head, and Next(wait=true) blocks for the head, which is how the submitter bounds memory.
// No exception leaves it: when no thread can be started, Start() says so and the caller does the work
// itself.
#ifndef SIFT_TOOLS_SIFT_ORDERED_BATCHES_H_
#define SIFT_TOOLS_SIFT_ORDERED_BATCHES_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace sift::tools {

template <typename Batch>
class OrderedBatches {
 public:
  // The work on one batch; `worker` (0..workers-1) tells which thread runs it, for per-thread state.
  using Work = std::function<void(Batch& batch, unsigned worker)>;

  OrderedBatches() = default;
  ~OrderedBatches() { Stop(); }
  OrderedBatches(const OrderedBatches&) = delete;
  OrderedBatches& operator=(const OrderedBatches&) = delete;

  // Starts `workers` threads; false (and none left running) when a thread cannot be started.
  bool Start(unsigned workers, Work work) {
    work_ = std::move(work);
    max_pending_ = 2 * static_cast<size_t>(workers) + 2;
    try {
      for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this, i] { Run(i); });
    } catch (const std::system_error&) {
      Stop();
      return false;
    }
    return true;
  }

  void Submit(std::unique_ptr<Batch> batch) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(Entry{std::move(batch), false});
    queue_.push_back(&pending_.back());
    work_cv_.notify_one();
  }

  // The oldest submitted batch once its work is done (waiting for it when `wait`), or nullptr when
  // nothing is pending or, without `wait`, the oldest is not done yet.
  std::unique_ptr<Batch> Next(bool wait) {
    std::unique_lock<std::mutex> lock(mu_);
    if (pending_.empty()) return nullptr;
    Entry& head = pending_.front();
    if (!head.done) {
      if (!wait) return nullptr;
      done_cv_.wait(lock, [&] { return head.done; });
    }
    std::unique_ptr<Batch> batch = std::move(head.batch);
    pending_.pop_front();
    return batch;
  }

  size_t pending() const {
    std::lock_guard<std::mutex> lock(mu_);
    return pending_.size();
  }
  // How many batches may be in flight before the submitter should wait (Next(true)).
  size_t max_pending() const { return max_pending_; }

 private:
  struct Entry {
    std::unique_ptr<Batch> batch;
    bool done;
  };

  void Run(unsigned worker) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      Entry* entry = queue_.front();
      queue_.pop_front();
      lock.unlock();
      work_(*entry->batch, worker);
      lock.lock();
      entry->done = true;
      done_cv_.notify_all();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      queue_.clear();  // batches not started are dropped; those running finish
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  Work work_;
  size_t max_pending_ = 4;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Entry> pending_;  // submitted, oldest first (a deque keeps the entries in place)
  std::deque<Entry*> queue_;   // submitted, not yet taken by a worker
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_ORDERED_BATCHES_H_
