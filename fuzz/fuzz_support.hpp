// What the fuzz targets share: the runtime they start and how they fail.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

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

// The host backends only (cpu-openblas and reference), from the build tree.
inline void start_host_runtime() {
  const char *config = R"(
[devices]
fallback = ["cpu", "reference"]
[plugins]
disabled = ["opencl", "cuda"]
[backend.cpu-openblas]
threads = 1
)";
  if (bp_init_from_string(config, "fuzz-runtime.toml") != BP_OK)
    fail("the runtime did not start: %s", bp_last_error());
}

}  // namespace bp_fuzz
