// FILL, ARANGE and RANDOM_*: the value of each element depends only on its
// C-order position (backplane_kernels/creation.hpp), so any split over
// threads writes the same numbers.
#include "backplane_kernels/creation.hpp"

#include "dtype.hpp"
#include "kernels.hpp"
#include "map.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

void create_kernel(ThreadPool &pool, int32_t op, double scalar, double scalar2, uint64_t seed, const View &out) {
  if (out.numel == 0) return;
  switch (op) {
    case BP_OP_FILL:
      return dispatch<BP_ALL_TYPES>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T value = bk::Cast<T>()(scalar);
        generate<T>(pool, kCheap, [value](int64_t) { return value; }, out);
      });
    case BP_OP_ARANGE:
      return dispatch<BP_NUMERIC_TYPES>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kCheap, [=](int64_t i) { return bk::arange_value<T>(scalar, scalar2, i); }, out);
      });
    case BP_OP_RANDOM_UNIFORM:
      return dispatch<BP_FLOAT_TYPES>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kCheap, [=](int64_t i) { return bk::random_uniform_value<T>(scalar, scalar2, seed, i); },
                    out);
      });
    case BP_OP_RANDOM_NORMAL:
      return dispatch<BP_FLOAT_TYPES>(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        generate<T>(pool, kTranscendental,
                    [=](int64_t i) { return bk::random_normal_value<T>(scalar, scalar2, seed, i); }, out);
      });
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: create_kernel got op %d", op);
  }
}

}  // namespace cpu_backend
