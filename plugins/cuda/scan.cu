// CUMSUM: one thread per line walks it front to back with the fold of
// backplane/kernels/scan.hpp (the CPU backends' code), so every output
// element is its own prefix sum whatever the launch shape. Lines are many
// in the common case; a single long line runs on one thread, correct but
// serial. The halves sum in float64 (rounded once per output), the small
// integers into int64 (reducers.cuh).
#include <string>

#include "backplane/kernels/scan.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "reducers.cuh"

namespace bp_cuda {

namespace {

template <class Scanner>
__global__ void __launch_bounds__(kThreads)
    scan_kernel(const __grid_constant__ ScanShape s, const typename Scanner::in_t *in,
                typename Scanner::out_t *out) {
  for (int64_t line = first_index(); line < s.lines.numel; line += grid_stride()) {
    int64_t offset[2];
    element_offsets(s.lines, line, offset);
    bp_kernels::inclusive_scan<Scanner>(in + offset[1], s.in_stride, out + offset[0], s.out_stride, s.length);
  }
}

}  // namespace

void launch_scan(const Launch &launch, int32_t op, int32_t dtype, const ScanShape &shape, void *out, const void *in) {
  if (op != BP_OP_CUMSUM) fail(BP_ERR_INTERNAL, "cuda: operator %d is not a scan", op);
  const std::string name = kernel_name(op, dtype);
  dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
    using Scanner = sum_like_t<bp_kernels::CumsumScanner, typename decltype(tag)::type>;
    scan_kernel<Scanner><<<grid_for(launch, shape.lines.numel), kThreads, 0, launch.stream>>>(
        shape, static_cast<const typename Scanner::in_t *>(in), static_cast<typename Scanner::out_t *>(out));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
