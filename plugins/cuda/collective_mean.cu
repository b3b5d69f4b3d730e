// MEAN of integers in a collective: NCCL sums (its average of integers is
// not specified to truncate), then each participant's result is divided
// here on its stream, truncating toward zero as C divides (plugin.h), in
// int64 so that no divisor wraps in a narrow type.
#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace bp_cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) divide_kernel(T *data, int64_t numel, int64_t divisor) {
  for (int64_t i = first_index(); i < numel; i += grid_stride())
    data[i] = static_cast<T>(static_cast<int64_t>(data[i]) / divisor);
}

}  // namespace

void launch_divide(const Launch &launch, int32_t dtype, void *data, int64_t numel, int64_t divisor) {
  dispatch<int32_t, int64_t, int8_t, uint8_t>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    divide_kernel<T><<<grid_for(launch, numel), kThreads, 0, launch.stream>>>(static_cast<T *>(data), numel, divisor);
    check_launch("collective mean (integer division)", launch.device);
  });
}

}  // namespace bp_cuda
