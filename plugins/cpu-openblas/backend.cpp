#include "backend.hpp"

#include <sched.h>

#include <cblas.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "errors.hpp"

namespace cpu_backend {

Backend g_backend;

void fail_not_started() { fail(BP_ERR_STATE, "cpu-openblas: init has not been called (or failed)"); }

int available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

namespace {

int parse_threads(const char *text) {
  char *end = nullptr;
  errno = 0;
  const long n = std::strtol(text, &end, 10);
  if (errno || end == text || *end != '\0' || n < 0 || n > 4096)
    fail(BP_ERR_CONFIG, "cpu-openblas: option threads = \"%s\": expected a whole number 0..4096 (0 = all cores)",
         text);
  return static_cast<int>(n);
}

}  // namespace

void start_backend(const char *const *keys, const char *const *values, int32_t count) {
  if (count < 0 || (count > 0 && (!keys || !values)))
    fail(BP_ERR_INVALID_ARGUMENT, "cpu-openblas: init: bad option list (count %d)", count);
  int threads = 0;
  bool threads_given = false;
  for (int32_t i = 0; i < count; ++i) {
    if (!keys[i] || !values[i]) fail(BP_ERR_INVALID_ARGUMENT, "cpu-openblas: init: option %d is NULL", i);
    if (std::strcmp(keys[i], "threads") != 0)
      fail(BP_ERR_CONFIG, "cpu-openblas: unknown option \"%s\" (known: threads)", keys[i]);
    threads = parse_threads(values[i]);
    threads_given = true;
  }
  if (threads == 0) threads = available_cores();
  g_backend.started.store(false, std::memory_order_release);
  g_backend.pool.reset();  // joins the old workers before the new ones start
  g_backend.pool = std::make_unique<ThreadPool>(threads);
  if (threads_given) openblas_set_num_threads(threads);
  g_backend.started.store(true, std::memory_order_release);
}

}  // namespace cpu_backend
