// Errors inside the plugin are C++ exceptions carrying a bp_status; the ABI
// entry points (plugin_api.cpp) catch them and keep the message for
// last_error() of the calling thread. Every CUDA and cuBLAS return code goes
// through check_cuda/check_cublas, whose message names the call, the code and
// the device.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "backplane/types.h"
#include "backplane/plugin_sdk.hpp"

namespace bp_cuda {

using bp_plugin::Error;
using bp_plugin::fail;
using bp_plugin::last_error_message;
using bp_plugin::set_last_error_message;

// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA
// runtime version": the code's name and the runtime's description of it.
std::string cuda_error_text(cudaError_t code);

// Throws for a failed runtime call: BP_ERR_OUT_OF_MEMORY for
// cudaErrorMemoryAllocation, else BP_ERR_BACKEND, with the message
// "cuda: <call> failed on <device>: <name>: <description>".
[[noreturn]] void fail_cuda(cudaError_t code, const char *call, const char *device);
inline void check_cuda(cudaError_t code, const char *call, const char *device) {
  if (code != cudaSuccess) fail_cuda(code, call, device);
}

// The same for cuBLAS: BP_ERR_OUT_OF_MEMORY for CUBLAS_STATUS_ALLOC_FAILED.
[[noreturn]] void fail_cublas(cublasStatus_t status, const char *call, const char *device);
inline void check_cublas(cublasStatus_t status, const char *call, const char *device) {
  if (status != CUBLAS_STATUS_SUCCESS) fail_cublas(status, call, device);
}

// After a kernel launch: a bad configuration or a missing kernel image
// (a GPU older than the architectures built) shows up here, not at the call.
void check_launch(const char *kernel, const char *device);

}  // namespace bp_cuda
