// Float MATMUL through cuBLAS (sgemm/dgemm, and gemmEx for float16 and
// bfloat16 with float32 compute; strided batched).
#pragma once

#include "device.hpp"
#include "view.hpp"

namespace bp_cuda {

// out = a x b for float views (validated; out.numel > 0, K > 0,
// out not overlapping a or b). Enqueued on the device's stream.
void matmul_cublas(Device &device, const Device::Lock &lock, const View &a, const View &b, const View &out,
                   bool allow_tf32);

}  // namespace bp_cuda
