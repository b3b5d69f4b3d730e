// Compiled fused kernels, one per (device, kernel source), made at a
// program's first run and kept for the life of the process. The source is
// the key: it holds everything the code depends on and nothing that varies
// between runs of one program (scalars, shapes and strides are arguments).
// Thread safe; compilation runs outside the cache's lock.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace bp_cuda {

class Device;

// The kernel of `source` on `device`: compiled with NVRTC (fused_nvrtc.hpp)
// and loaded as a CUDA library the first time, from the cache afterwards.
cudaKernel_t fused_kernel(Device &device, const std::string &source);

// How many sources have been compiled for the device with this index so
// far (device_properties' "fused_kernels_compiled").
uint64_t fused_kernels_compiled(int32_t device);

}  // namespace bp_cuda
