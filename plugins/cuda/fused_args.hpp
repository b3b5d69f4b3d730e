// The arguments of a fused kernel (fused_source.hpp's parameter list), laid
// out for cudaLaunchKernel: the index space, the views' device addresses
// and the scalars, each converted on the host to its instruction's dtype
// exactly as execute's launchers convert attrs.scalar (elementwise.cuh's
// operand(), Convert) and widened to the dtype's compute type, so the kernel
// needs no conversion code and its source does not depend on the scalar
// values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backplane/plugin.h"
#include "fused_source.hpp"

namespace bp_cuda {

class FusedArgs {
 public:
  // `addresses`: the inputs' device addresses, then the outputs'.
  FusedArgs(const bp_fused_program &program, const FusedLayout &layout, std::vector<void *> addresses);
  FusedArgs(const FusedArgs &) = delete;
  FusedArgs &operator=(const FusedArgs &) = delete;

  // One pointer per kernel parameter, to its value (cudaLaunchKernel's `args`).
  void **args() { return args_.data(); }
  // The size in bytes of each parameter, in order.
  const std::vector<size_t> &sizes() const { return sizes_; }
  // The bytes of parameter i.
  const void *value(size_t i) const { return args_[i]; }

 private:
  struct Scalar {
    alignas(8) unsigned char bytes[8];
  };
  std::vector<int64_t> shape_;  // struct FusedShape as int64 words
  std::vector<void *> addresses_;
  std::vector<Scalar> scalars_;
  std::vector<void *> args_;
  std::vector<size_t> sizes_;
};

}  // namespace bp_cuda
