// A lock for critical sections of a few dozen instructions on every tensor's
// path (the handle table's lists): one atomic exchange to take it and a
// plain store to give it back, where a mutex costs an atomic operation on
// each side. A waiter spins briefly, then yields, so a holder that was
// preempted is not starved of its core.
#pragma once

#include <atomic>
#include <thread>

namespace bp::core {

class SpinLock {
 public:
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire)) wait();
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  void wait() noexcept {
    for (int spins = 0; held_.load(std::memory_order_relaxed); ++spins) {
      if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        std::this_thread::yield();
      }
    }
  }

  std::atomic<bool> held_{false};
};

}  // namespace bp::core
