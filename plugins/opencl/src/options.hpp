// options.hpp — the [backend.opencl] table that init receives.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

namespace bp_ocl {

struct Options {
  // Only platforms whose name contains this text ("" = every platform).
  std::string platform;
  // Which devices of those platforms: "all", "gpu", "cpu" or "accelerator".
  std::string device_type = "all";
  cl_device_type device_type_mask = CL_DEVICE_TYPE_ALL;
  // "auto": float64 where the device has cl_khr_fp64; "off": never (what a
  // device without fp64 does, e.g. to avoid slow emulated doubles).
  std::string fp64 = "auto";
  // Where built fused kernels are kept across processes: a directory, ""
  // for nowhere (memory only). The option's "auto" (its default) resolves
  // to default_kernel_cache_dir() here.
  std::string kernel_cache;

  bool operator==(const Options &other) const {
    return platform == other.platform && device_type == other.device_type && fp64 == other.fp64 &&
           kernel_cache == other.kernel_cache;
  }
};

// Parses init's key/value strings; an unknown key or a bad value is a
// BP_ERR_CONFIG error naming it and the accepted values.
Options parse_options(const char *const *keys, const char *const *values, int32_t count);

}  // namespace bp_ocl
