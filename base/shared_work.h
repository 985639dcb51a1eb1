// Work that other threads may join: its owner runs it, and a thread that would otherwise wait for its
// result takes pieces of it meanwhile, so that the waiting thread's core works instead of idling.
//
// A bulk load writes one batch while threads of lower priority check and summarize the next; when the
// checking side is the longer one, the writer waits for it. Left to the scheduler, the checking threads
// could share one core for tens of milliseconds beside the idle core the writer left; the writer now
// joins the check instead (bench/DECISIONS.md, "Checking beside the write: priority and the writer's
// help").
#ifndef SIFT_BASE_SHARED_WORK_H_
#define SIFT_BASE_SHARED_WORK_H_

#include <condition_variable>
#include <functional>
#include <mutex>

namespace sift::base {

// One piece of work, run once. Thread-safe.
class SharedWork {
 public:
  SharedWork() = default;
  SharedWork(const SharedWork&) = delete;
  SharedWork& operator=(const SharedWork&) = delete;

  // Runs `take` on this thread, and on every thread in Help() meanwhile, and returns once all of them
  // have returned. `take` must be safe to run on several threads at once and must return once no piece
  // is left to take (a loop over a shared counter). The work is then over: Help() returns at once.
  void Run(const std::function<void()>& take);
  // Waits until Run() starts or the work is over (Run() returned, or Close()), then runs `take` beside
  // the owner if Run() is under way. Returns when this thread finds nothing left to take, which may be
  // before Run() returns.
  void Help();
  // Ends the work without running it, for an owner that will not call Run(): Help() stops waiting.
  // Harmless after Run().
  void Close();

 private:
  void EndRun();  // Run()'s end: no helper joins from now, and every one in `take_` has left

  std::mutex mu_;
  std::condition_variable changed_;
  const std::function<void()>* take_ = nullptr;  // while Run() is under way
  int helpers_ = 0;                              // threads in `take_` besides the owner
  bool over_ = false;
};

}  // namespace sift::base

#endif  // SIFT_BASE_SHARED_WORK_H_
