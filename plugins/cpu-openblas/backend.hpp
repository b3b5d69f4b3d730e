// The backend's process-wide state: started by init, read by every call.
#pragma once

#include <atomic>
#include <memory>

#include "memory_pool.hpp"
#include "thread_pool.hpp"

namespace cpu_backend {

struct Backend {
  MemoryPool memory;
  std::unique_ptr<ThreadPool> pool;   // sized by the "threads" option
  std::atomic<bool> started{false};
};

extern Backend g_backend;

// init: parses the options ("threads": 0 or absent = every core this process
// may run on) and (re)creates the thread pool. OpenBLAS's own thread count
// changes only when "threads" is given, so OPENBLAS_NUM_THREADS keeps
// working otherwise. A second init (a host loading the plugin twice) applies
// the new options; like the first, it must not overlap any other call.
void start_backend(const char *const *keys, const char *const *values, int32_t count);

// BP_ERR_STATE unless init has succeeded (inline: execute checks it).
[[noreturn]] void fail_not_started();
inline void require_started() {
  if (!g_backend.started.load(std::memory_order_acquire)) fail_not_started();
}

// Cores this process may run on (its CPU affinity mask).
int available_cores();

}  // namespace cpu_backend
