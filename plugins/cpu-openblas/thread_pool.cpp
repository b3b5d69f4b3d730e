#include "thread_pool.hpp"

namespace cpu_backend {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread &w : workers_) w.join();
}

void ThreadPool::run_tasks() {
  for (int64_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
       i = next_.fetch_add(1, std::memory_order_relaxed))
    task_(context_, i);
}

void ThreadPool::run(int64_t count, Task task, void *context) {
  std::unique_lock<std::mutex> owner(owner_, std::try_to_lock);
  if (!owner.owns_lock() || workers_.empty() || count == 1) {
    for (int64_t i = 0; i < count; ++i) task(context, i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = task;
    context_ = context;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    job_open_ = true;
    ++generation_;
  }
  wake_.notify_all();
  run_tasks();
  // Every task has been handed out; wait for the workers still running one,
  // then close the job so that a late waker does not join it. The mutex
  // also publishes the workers' writes to this thread.
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return busy_ == 0; });
  job_open_ = false;
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (!job_open_) continue;
    ++busy_;
    lock.unlock();
    run_tasks();
    lock.lock();
    if (--busy_ == 0) idle_.notify_one();
  }
}

}  // namespace cpu_backend
