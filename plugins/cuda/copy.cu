// COPY: every (input dtype, output dtype) pair, converting like a C cast
// with bool semantics, rounding once to the halves (Convert,
// narrow_types.hpp). Also serves the plugin itself for strided-to-dense
// copies (GEMM operands) and overlapping buffer copies.
#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace bp_cuda {

void launch_copy(const Launch &launch, int32_t in_dtype, int32_t out_dtype, const IterShape &it, void *out,
                 const void *in) {
  const std::string name = std::string(bp_plugin::op_name(BP_OP_COPY)) + " (" + dtype_name(in_dtype) + " -> " +
                           dtype_name(out_dtype) + ")";
  dispatch_set<BP_DTYPE_SET_ALL>(out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch_set<BP_DTYPE_SET_ALL>(in_dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      map<To>(launch, it, out, Convert<To>{}, operand<From>(in), name.c_str());
    });
  });
}

}  // namespace bp_cuda
