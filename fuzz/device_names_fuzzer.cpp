// libFuzzer target: any bytes as a device name for bp_device_get. A name
// either resolves to a device whose own name resolves back to it, or fails
// with a documented status and a bounded message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backplane/backplane.h"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  bp_fuzz::start_host_runtime();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
