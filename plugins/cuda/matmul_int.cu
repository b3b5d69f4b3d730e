// Integer MATMUL: cuBLAS has no wrapping integer GEMM, so a plain kernel:
// one thread per output element, any strides, products and sums in uint64
// (two's complement wrap-around; an int32, int16 or 8-bit result is the low
// bits of the int64 one, as plugin.h's wrapping asks).
#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads)
    matmul_int_kernel(const __grid_constant__ MatmulShape s, T *out, const T *a, const T *b) {
  for (int64_t i = first_index(); i < s.numel; i += grid_stride()) {
    int64_t a_offset, b_offset, out_offset;
    matmul_offsets(s, i, a_offset, b_offset, out_offset);
    uint64_t sum = 0;
    for (int64_t k = 0; k < s.k; ++k)
      sum += static_cast<uint64_t>(static_cast<int64_t>(a[a_offset + k * s.a_k_stride])) *
             static_cast<uint64_t>(static_cast<int64_t>(b[b_offset + k * s.b_k_stride]));
    out[out_offset] = static_cast<T>(static_cast<int64_t>(sum));
  }
}

}  // namespace

void launch_matmul_int(const Launch &launch, int32_t dtype, const MatmulShape &shape, void *out, const void *a,
                       const void *b) {
  const std::string name = kernel_name(BP_OP_MATMUL, dtype);
  dispatch<int32_t, int64_t, BP_SMALL_INT_TYPES>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    matmul_int_kernel<<<grid_for(launch, shape.numel), kThreads, 0, launch.stream>>>(
        shape, static_cast<T *>(out), static_cast<const T *>(a), static_cast<const T *>(b));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
