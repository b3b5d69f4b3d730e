#include "thread_pool.hpp"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cpu_backend {

namespace {

// How long a thread spins for its condition before it sleeps: longer than
// the gap between two jobs of a training step and than a task's tail, far
// shorter than a scheduler slice.
constexpr std::chrono::microseconds kSpin{50};

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until ready() or kSpin has passed; the clock is read every 64
// rounds, as reading it costs more than a round.
template <class Ready>
void spin_until(Ready &&ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  for (int round = 1; !ready(); ++round) {
    relax();
    if (round % 64 == 0 && std::chrono::steady_clock::now() >= end) return;
  }
}

}  // namespace

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
    generation_.fetch_add(1, std::memory_order_relaxed);
  }
  wake_.notify_all();
  run_tasks();
  // Every task has been handed out; wait for the workers still running one,
  // then close the job so that a late waker does not join it. The spin only
  // saves the sleep: the mutex, taken after it either way, publishes the
  // workers' writes to this thread.
  spin_until([this] { return busy_.load(std::memory_order_relaxed) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return busy_.load(std::memory_order_relaxed) == 0; });
  job_open_ = false;
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return generation_.load(std::memory_order_relaxed) != seen; });
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
    if (stop_) return;
    seen = generation_.load(std::memory_order_relaxed);
    if (!job_open_) continue;
    busy_.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    run_tasks();
    lock.lock();
    if (busy_.fetch_sub(1, std::memory_order_relaxed) == 1) idle_.notify_one();
  }
}

}  // namespace cpu_backend
