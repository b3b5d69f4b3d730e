// Compiling a fused kernel's source (fused_source.hpp) with NVRTC, with the
// flags nvcc compiles execute's kernels with (C++17, no FMA contraction),
// for a device's compute capability. Needs no GPU.
#pragma once

#include <string>
#include <vector>

namespace bp_cuda {

// What NVRTC made: machine code (CUBIN) for the device's own architecture
// when NVRTC knows it, else PTX for the newest architecture it knows below
// it, which the driver compiles when the kernel is loaded.
struct FusedImage {
  std::vector<char> code;  // PTX ends with its NUL
  bool cubin = false;
  std::string target;  // "sm_90", "compute_90"
};

// One compilation's outcome: `ok` with the image, or NVRTC's call, error
// string and program log.
struct FusedCompilation {
  bool ok = false;
  FusedImage image;
  std::string error;  // "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION"
  std::string log;
};

// The flags besides the target: what nvcc gets for execute's kernels
// (plugins/cuda/CMakeLists.txt), C++17 and no contraction into fused
// multiply-adds; NVRTC's defaults for the rest (IEEE division and square
// root, denormals kept) are nvcc's.
inline constexpr const char *kFusedFlags[] = {"-std=c++17", "--fmad=false"};

// The NVRTC target for compute capability major.minor, or "" when NVRTC
// knows no architecture at or below it.
std::string fused_target(int major, int minor);

// Compiles `source` for `target` (fused_target's answer). Throws nothing
// but std::bad_alloc.
FusedCompilation compile_fused_source(const std::string &source, const std::string &target);

// compile_fused_source, or BP_ERR_UNSUPPORTED naming `device` with the
// call, error and log when compilation fails: nothing has been written
// then, so the core runs the program op by op (and its trace shows why).
FusedImage compile_fused(const std::string &source, const std::string &target, const char *device);

}  // namespace bp_cuda
