// libFuzzer target: any bytes as a device name for bp_device_get, under one
// of several device configurations (a hash of the input picks it; the
// runtime restarts through backplane/testing.h when it changes). A name
// either resolves to a device whose own name resolves back to it, or fails
// with a documented status and a bounded message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backplane/backplane.h"
#include "backplane/testing.h"
#include "fuzz_support.hpp"

namespace {

// What "auto", "default", "gpu" and "gpu:<i>" resolve to depends on these.
constexpr const char *kDeviceTables[] = {
    "[devices]\nfallback = [\"cpu\", \"reference\"]\n",
    "[devices]\ndefault = \"reference\"\nfallback = [\"reference\", \"cpu\"]\n",
    "[devices]\ndefault = \"cpu:0\"\naccelerator_kinds = [\"gpu\", \"accelerator\", \"cpu\"]\n",
    "[devices]\ndefault = \"gpu\"\nfallback = [\"reference\"]\naccelerator_kinds = [\"reference:cpu\"]\n",
};
constexpr size_t kTables = sizeof kDeviceTables / sizeof kDeviceTables[0];
size_t g_running = kTables;  // none yet

// FNV-1a: the same input always runs under the same configuration.
size_t table_for(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return size_t(h % kTables);
}

void run_under(size_t table) {
  if (table == g_running) return;
  if (g_running != kTables && bp_testing_restart() != BP_OK)
    bp_fuzz::fail("bp_testing_restart: %s", bp_last_error());
  bp_fuzz::start_runtime(kDeviceTables[table]);
  g_running = table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run_under(table_for(data, size));
  std::string name(reinterpret_cast<const char *>(data), size);  // NUL-terminated; may hold NULs
  bp_device d = -1;
  bp_status s = bp_device_get(name.c_str(), &d);
  if (s == BP_OK) {
    const char *canonical = bp_device_name(d);
    bp_device again = -1;
    if (!canonical || bp_device_get(canonical, &again) != BP_OK || again != d)
      bp_fuzz::fail("'%s' resolved to device %d, whose name does not resolve back", name.c_str(), d);
    return 0;
  }
  if (s != BP_ERR_UNKNOWN_DEVICE && s != BP_ERR_INVALID_ARGUMENT)
    bp_fuzz::fail("bp_device_get gave %s: %s", bp_status_name(s), bp_last_error());
  if (std::strlen(bp_last_error()) > bp_fuzz::kMaxMessage)
    bp_fuzz::fail("a %zu-byte message for a %zu-byte name", std::strlen(bp_last_error()), size);
  return 0;
}
