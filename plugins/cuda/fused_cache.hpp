// Compiled fused kernels, one per (device, kernel source), made at a
// program's first run (from the disk cache, fused_disk_cache.hpp, or with
// NVRTC) and kept for the life of the process. The source is
// the key: it holds everything the code depends on and nothing that varies
// between runs of one program (scalars, shapes and strides are arguments).
// Thread safe; compilation runs outside the cache's lock.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace bp_cuda {

class Device;

// The kernel of `source` on `device`: loaded as a CUDA library the first
// time, from the memory cache afterwards. BP_ERR_UNSUPPORTED when NVRTC
// cannot target the device or compile the source (remembered: a refused
// source is not compiled again).
cudaKernel_t fused_kernel(Device &device, const std::string &source);

// How many sources NVRTC has compiled for the device with this index in
// this process (device_properties' "fused_kernels_compiled").
uint64_t fused_kernels_compiled(int32_t device);

}  // namespace bp_cuda
