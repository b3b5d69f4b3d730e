// FILL, ARANGE and RANDOM_*: the value of each element depends only on its
// C-order position (backplane/kernels/creation.hpp), so any split over
// threads writes the same numbers. The 1.4 dtypes take the value as COPY
// would from float64 (FILL, ARANGE), or round the float32 draw once
// (RANDOM_*), as plugin.h says.
#include "backplane/kernels/creation.hpp"

#include "dtype.hpp"
#include "kernels.hpp"
#include "map.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// The precision a random draw is made in: float32 for the 16-bit floats.
template <class T>
using draw_t = std::conditional_t<is_half<T>, float, T>;

}  // namespace

void create_kernel(ThreadPool &pool, int32_t op, double scalar, double scalar2, uint64_t seed, const View &out) {
  if (out.numel == 0) return;
  switch (op) {
    case BP_OP_FILL:
      return dispatch_set<BP_DTYPE_SET_ALL>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T value = from_double<T>(scalar);
        generate<T>(pool, kCheap, [value](int64_t) { return value; }, out);
      });
    case BP_OP_ARANGE:
      return dispatch_set<BP_DTYPE_SET_NUMERIC>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kCheap, [=](int64_t i) { return from_double<T>(bk::arange_value<double>(scalar, scalar2, i)); },
                    out);
      });
    case BP_OP_RANDOM_UNIFORM:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kCheap,
                    [=](int64_t i) {
                      return narrow<T>(bk::random_uniform_value<draw_t<T>>(scalar, scalar2, seed, i));
                    },
                    out);
      });
    case BP_OP_RANDOM_NORMAL:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kTranscendental,
                    [=](int64_t i) { return narrow<T>(bk::random_normal_value<draw_t<T>>(scalar, scalar2, seed, i)); },
                    out);
      });
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: create_kernel got op %d", op);
  }
}

}  // namespace cpu_backend
