// The backend's worker threads. A job is `count` numbered tasks; the caller
// runs tasks too, so a pool of N threads has N - 1 workers. The interface is
// a function pointer and a context pointer (no std::function, nothing
// allocated per job); parallel.hpp wraps it for lambdas.
//
// Thread safety: any number of threads may call run(). One job owns the
// workers at a time; a caller that finds them busy runs its whole job
// itself, which is as fast as waiting (every core is already working) and
// can never deadlock.
//
// Waiting spins briefly before it sleeps, on both sides: a training step
// posts thousands of jobs a few microseconds apart, and on a busy machine
// every sleep and wake-up can cost a scheduler slice (a millisecond), which
// made two threads 20 times slower than one under load.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace cpu_backend {

class ThreadPool {
 public:
  using Task = void (*)(void *context, int64_t task);

  explicit ThreadPool(int threads);  // threads >= 1, the caller included
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool();

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(context, i) for every i in [0, count) and returns when all
  // have finished. Tasks must not throw.
  void run(int64_t count, Task task, void *context);

 private:
  void worker_loop();
  void run_tasks();  // takes tasks of the current job until none is left

  std::vector<std::thread> workers_;
  std::mutex owner_;  // held by the caller whose job the workers serve

  std::mutex mutex_;  // guards everything below except next_
  std::condition_variable wake_;  // a job was posted, or stop
  std::condition_variable idle_;  // busy_ dropped to 0
  // Bumped per job (under mutex_), so a worker takes each job once; read
  // without the mutex while spinning.
  std::atomic<uint64_t> generation_{0};
  bool job_open_ = false;         // workers may still join the current job
  bool stop_ = false;
  std::atomic<int> busy_{0};      // workers inside the current job; changed under mutex_
  Task task_ = nullptr;
  void *context_ = nullptr;
  int64_t count_ = 0;
  std::atomic<int64_t> next_{0};  // next task number to hand out
};

}  // namespace cpu_backend
