// What the fuzz targets share: the runtime they start and how they fail.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backplane/backplane.h"

namespace bp_fuzz {

// Longest error message a call may leave, whatever its input.
constexpr size_t kMaxMessage = 4096;

// Reports a finding and aborts, which libFuzzer records as a crash with the
// input that caused it.
[[noreturn]] inline void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::abort();
}

// What every fuzz runtime shares: the host backends only (cpu-openblas and
// reference), from the build tree, with the same backend options (a
// restarted runtime cannot change them: backplane/testing.h).
constexpr const char *kHostPlugins = R"(
[plugins]
disabled = ["opencl", "cuda"]
[backend.cpu-openblas]
threads = 1
)";

inline void start_runtime(const char *devices_table) {
  const std::string config = std::string(devices_table) + kHostPlugins;
  if (bp_init_from_string(config.c_str(), "fuzz-runtime.toml") != BP_OK)
    fail("the runtime did not start: %s", bp_last_error());
}

inline void start_host_runtime() { start_runtime("[devices]\nfallback = [\"cpu\", \"reference\"]\n"); }

// What a live tensor says of itself.
struct Metadata {
  int32_t dtype = 0, rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
  int64_t numel = 0;
};

// A finding naming `what` when the tensor will not say.
inline Metadata metadata_of(bp_tensor t, const char *what) {
  Metadata m;
  if (bp_tensor_dtype(t, &m.dtype) != BP_OK || bp_tensor_rank(t, &m.rank) != BP_OK ||
      bp_tensor_shape(t, m.shape) != BP_OK || bp_tensor_numel(t, &m.numel) != BP_OK)
    fail("metadata of %s: %s", what, bp_last_error());
  return m;
}

// run() on one input, whose tensors must all be released by its end.
template <class F>
void without_leaks(F &&run) {
  const int64_t live = bp_live_tensor_count();
  run();
  if (bp_live_tensor_count() != live)
    fail("%lld tensors outlive their release", (long long)(bp_live_tensor_count() - live));
}

}  // namespace bp_fuzz
