// FILL, ARANGE, RANDOM_UNIFORM, RANDOM_NORMAL: element i (its C-order
// position) is computed from i alone, by the functions of
// backplane/kernels/creation.hpp that every backend shares.
//
// Random numbers come from the counter-based stream plugin.h specifies
// (splitmix64 of seed and position, backplane/kernels/random.h), not from
// cuRAND: Philox or XORWOW would draw a different stream, and one seed must
// give the same tensor on every device. Being counter-based, it needs no
// generator state and parallelises trivially. The halves draw the float32
// value and round it once (plugin.h); ARANGE and FILL convert the float64
// value as COPY does (Convert, narrow_types.hpp).
#include <string>
#include <type_traits>

#include "backplane/kernels/creation.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

template <class T>
struct FillValue {
  T value;
  __device__ T operator()(int64_t) const { return value; }
};
// The float64 value, converted once.
template <class T>
struct ArangeValue {
  double start, step;
  __device__ T operator()(int64_t i) const {
    return Convert<T>()(bp_kernels::arange_value<double>(start, step, i));
  }
};
// The draws of a half are float32's, rounded.
template <class T>
using draw_t = std::conditional_t<is_half<T>, float, T>;
// RANDOM_NORMAL's value when `normal`, else RANDOM_UNIFORM's: (a, b) is
// (mean, stddev) or (low, high).
template <class T, bool normal>
struct RandomValue {
  double a, b;
  uint64_t seed;
  __device__ T operator()(int64_t i) const {
    if constexpr (normal) return Convert<T>()(bp_kernels::random_normal_value<draw_t<T>>(a, b, seed, i));
    else return Convert<T>()(bp_kernels::random_uniform_value<draw_t<T>>(a, b, seed, i));
  }
};

// The linear index i is the C-order position even after coalescing (merging
// axes keeps the C order), so the strided path needs only the output offset.
template <class T, class G>
__global__ void __launch_bounds__(kThreads) create_kernel(const __grid_constant__ IterShape it, T *out, G value) {
  if (it.contiguous) {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) out[i] = value(i);
  } else {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) {
      int64_t offset[1];
      element_offsets(it, i, offset);
      out[offset[0]] = value(i);
    }
  }
}

template <class T, class G>
void create(const Launch &launch, int32_t op, const IterShape &it, void *out, G value) {
  create_kernel<<<grid_for(launch, it.numel), kThreads, 0, launch.stream>>>(it, static_cast<T *>(out), value);
  check_launch(kernel_name(op, dtype_of<T>::value).c_str(), launch.device);
}

}  // namespace

void launch_create(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, double scalar,
                   double scalar2, uint64_t seed) {
  switch (op) {
    case BP_OP_FILL:
      // Converted once on the host, exactly as COPY from float64 would.
      return dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        create<T>(launch, op, it, out, FillValue<T>{Convert<T>()(scalar)});
      });
    case BP_OP_ARANGE:
      return dispatch_set<BP_DTYPE_SET_NUMERIC>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        create<T>(launch, op, it, out, ArangeValue<T>{scalar, scalar2});
      });
    case BP_OP_RANDOM_UNIFORM:
    case BP_OP_RANDOM_NORMAL:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (op == BP_OP_RANDOM_NORMAL) create<T>(launch, op, it, out, RandomValue<T, true>{scalar, scalar2, seed});
        else create<T>(launch, op, it, out, RandomValue<T, false>{scalar, scalar2, seed});
      });
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a creation operator", op);
  }
}

}  // namespace bp_cuda
