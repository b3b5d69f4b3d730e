// conv_onednn_direct.hpp — the `conv` figure's oneDNN baseline in
// bp-bench-direct: oneDNN's convolution primitives called directly, as
// oneDNN's own examples do: the operands in the plain NCHW layout the user
// holds, primitives on format_tag::any built once, each call reordering its
// inputs into the primitive's blocked layouts and the result back, on
// oneDNN's OpenMP threads (as many as the cpu backend's). Built where
// oneDNN is found (BP_BENCH_HAVE_ONEDNN).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "conv_shapes.hpp"

namespace bptool::bench {

class OnednnConvDirect {
 public:
  // One layer at one batch, float32, on `threads` OpenMP threads; throws
  // std::runtime_error when oneDNN refuses it or is not built in.
  OnednnConvDirect(const ConvLayer &layer, int64_t batch, int threads);
  ~OnednnConvDirect();
  OnednnConvDirect(const OnednnConvDirect &) = delete;
  OnednnConvDirect &operator=(const OnednnConvDirect &) = delete;

  // k calls of the pass, waited for.
  void run(ConvPass pass, int64_t k);
  // oneDNN's implementation of the pass ("jit:avx2").
  std::string implementation(ConvPass pass) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Why there is no oneDNN baseline here, or "" when there is one.
std::string onednn_direct_missing();

}  // namespace bptool::bench
