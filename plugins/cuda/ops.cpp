#include "ops.hpp"

#include "dtype.hpp"

namespace bp_cuda {

// The kernels cover the whole vocabulary: each family's launcher is
// templated over every dtype its operators are defined for. The
// convolutions are cuDNN's, in a build that found it.
#ifdef BP_CUDA_CUDNN
const bp_plugin::Capabilities kCapabilities = bp_plugin::Capabilities::everything_except();
#else
const bp_plugin::Capabilities kCapabilities =
    bp_plugin::Capabilities::everything_except({BP_OP_CONV, BP_OP_CONV_TRANSPOSE, BP_OP_CONV_WEIGHT_GRAD});
#endif

std::string kernel_name(int32_t op, int32_t dtype) {
  return std::string(bp_plugin::op_name(op)) + " (" + dtype_name(dtype) + ")";
}

}  // namespace bp_cuda
