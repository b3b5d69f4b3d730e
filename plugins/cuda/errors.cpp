#include "errors.hpp"

#include <cstdarg>
#include <cstdio>

namespace bp_cuda {

std::string cuda_error_text(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

void fail_cuda(cudaError_t code, const char *call, const char *device) {
  // The runtime also keeps the code as this thread's "last error"; drop it,
  // or the next check_launch would report this failure as its own.
  (void)cudaGetLastError();
  fail(code == cudaErrorMemoryAllocation ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND, "cuda: %s failed on %s: %s", call,
       device, cuda_error_text(code).c_str());
}

void fail_cublas(cublasStatus_t status, const char *call, const char *device) {
  fail(status == CUBLAS_STATUS_ALLOC_FAILED ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND, "cuda: %s failed on %s: %s: %s",
       call, device, cublasGetStatusName(status), cublasGetStatusString(status));
}

void check_launch(const char *kernel, const char *device) {
  const cudaError_t code = cudaGetLastError();
  if (code != cudaSuccess) {
    char call[160];
    std::snprintf(call, sizeof call, "launch of %s", kernel);
    fail_cuda(code, call, device);
  }
}

}  // namespace bp_cuda
