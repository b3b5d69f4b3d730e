// The binary operators of backplane/kernels/op_table.h: one kernel per operator and dtype of its
// vocabulary dtype set, the math from its functor in the dtype's compute type (narrow_types.hpp: the
// halves in float, the small integers in int32, each result narrowed once).
#include "binary_map.cuh"
#include "kernels.hpp"

namespace bp_cuda {

void launch_binary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                   InputArg b) {
  switch (op) {
#define BP_CUDA_BINARY_(id, functor, ...) \
  case BP_OP_##id: return map_binary<BP_OP_##id, bp_kernels::functor, false>(launch, dtype, it, out, a, b);
    BP_KERNEL_BINARY_OPS(BP_CUDA_BINARY_)
#undef BP_CUDA_BINARY_
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a binary operator", op);
  }
}

}  // namespace bp_cuda
