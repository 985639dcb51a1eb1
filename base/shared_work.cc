// SharedWork (see shared_work.h).
#include "base/shared_work.h"

namespace sift::base {

void SharedWork::Run(const std::function<void()>& take) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!over_) take_ = &take;
  }
  changed_.notify_all();
  // However `take` ends, even by an exception, no helper may be left in it once this returns: it may
  // hold references into the caller's frame.
  struct EndOnExit {
    SharedWork* work;
    ~EndOnExit() { work->EndRun(); }
  } end{this};
  take();
}

void SharedWork::EndRun() {
  std::unique_lock<std::mutex> lock(mu_);
  take_ = nullptr;
  over_ = true;
  changed_.wait(lock, [this] { return helpers_ == 0; });
  lock.unlock();
  changed_.notify_all();
}

void SharedWork::Help() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return take_ != nullptr || over_; });
  if (take_ == nullptr) return;
  const std::function<void()>* take = take_;
  ++helpers_;
  lock.unlock();
  struct LeaveOnExit {
    SharedWork* work;
    ~LeaveOnExit() {
      {
        std::lock_guard<std::mutex> lock(work->mu_);
        --work->helpers_;
      }
      work->changed_.notify_all();
    }
  } leave{this};
  (*take)();
}

void SharedWork::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    over_ = true;
  }
  changed_.notify_all();
}

}  // namespace sift::base
