// matmul.cpp — MATMUL dispatch: floats to CLBlast (halves through float32),
// integers to our kernel (BLAS libraries have no integer GEMM).
#include "dtype.hpp"
#include "ops.hpp"

namespace bp_ocl {

void run_matmul(Device &device, const Device::Lock &lock, const View &a, const View &b,
                const View &out) {
  if (out.numel == 0) return;
  if (dtype_is_half(out.dtype)) {
    run_gemm_halves(device, lock, a, b, out);
    return;
  }
  if (dtype_is_float(out.dtype)) {
    run_gemm_clblast(device, lock, a, b, out);
    return;
  }
  const int r = out.rank;
  ClMatmulLayout L{};
  L.batch_rank = r - 2;
  for (int d = 0; d < r - 2; ++d) {
    L.batch_shape[d] = out.shape[d];
    L.batch_stride[0][d] = out.strides[d];
    L.batch_stride[1][d] = a.strides[d];
    L.batch_stride[2][d] = b.strides[d];
  }
  L.M = out.shape[r - 2];
  L.N = out.shape[r - 1];
  L.K = a.shape[r - 1];
  L.a_row = a.strides[r - 2];
  L.a_col = a.strides[r - 1];
  L.b_row = b.strides[r - 2];
  L.b_col = b.strides[r - 1];
  L.o_row = out.strides[r - 2];
  L.o_col = out.strides[r - 1];
  L.offset[0] = out.offset;
  L.offset[1] = a.offset;
  L.offset[2] = b.offset;
  const cl_long n = out.numel;
  const Kernel &k = device.kernel(lock, Family::Matmul, out.dtype, kernel_stem(BP_OP_MATMUL));
  device.launch_elements(lock, k, n, {out.mem, a.mem, b.mem, L, n});
}

}  // namespace bp_ocl
