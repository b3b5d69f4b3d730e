// options.cpp — parsing init's options. Unknown keys are errors, not silently
// ignored: a typo in the config file should say so.
#include "options.hpp"

#include "errors.hpp"
#include "fused_disk.hpp"

namespace bp_ocl {

namespace {

cl_device_type device_type_mask(const std::string &value) {
  if (value == "all") return CL_DEVICE_TYPE_ALL;
  if (value == "gpu") return CL_DEVICE_TYPE_GPU;
  if (value == "cpu") return CL_DEVICE_TYPE_CPU;
  if (value == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  fail(BP_ERR_CONFIG,
       "init: option device_type = '%s' is not one of \"all\", \"gpu\", \"cpu\", \"accelerator\"",
       value.c_str());
}

}  // namespace

Options parse_options(const char *const *keys, const char *const *values, int32_t count) {
  if (count < 0) fail(BP_ERR_INVALID_ARGUMENT, "init: option_count is negative");
  if (count > 0 && (keys == nullptr || values == nullptr))
    fail(BP_ERR_INVALID_ARGUMENT, "init: option_keys or option_values is NULL");
  Options options;
  options.kernel_cache = default_kernel_cache_dir();
  for (int32_t i = 0; i < count; ++i) {
    if (keys[i] == nullptr || values[i] == nullptr)
      fail(BP_ERR_INVALID_ARGUMENT, "init: option %d is NULL", static_cast<int>(i));
    const std::string key = keys[i], value = values[i];
    if (key == "platform") {
      options.platform = value;
    } else if (key == "device_type") {
      options.device_type_mask = device_type_mask(value);
      options.device_type = value;
    } else if (key == "fp64") {
      if (value != "auto" && value != "off")
        fail(BP_ERR_CONFIG, "init: option fp64 = '%s' is not \"auto\" or \"off\"", value.c_str());
      options.fp64 = value;
    } else if (key == "kernel_cache") {
      options.kernel_cache = value == "auto" ? default_kernel_cache_dir() : value;
    } else {
      fail(BP_ERR_CONFIG,
           "init: unknown option '%s' for the opencl backend (known: platform, device_type, fp64, kernel_cache)",
           key.c_str());
    }
  }
  return options;
}

}  // namespace bp_ocl
