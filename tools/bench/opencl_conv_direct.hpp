// opencl_conv_direct.hpp — the `conv` figure's OpenCL baseline in
// bp-bench-direct: the classic im2col + GEMM convolution written here, one
// image at a time, with CLBlastSgemm, on the very OpenCL device a Backplane
// opencl:i device uses (OpenclDirect's context and queue). Forward: im2col
// then W col; data: W^T dy then col2im; weight: im2col then dy col^T
// added over the batch.
#pragma once

#include <cstdint>
#include <memory>

#include "conv_shapes.hpp"
#include "opencl_direct.hpp"

namespace bptool::bench {

class OpenclConvDirect {
 public:
  // Throws std::runtime_error when it cannot (no CLBlast, a build error).
  OpenclConvDirect(OpenclDirect &direct, const ConvLayer &layer, int64_t batch);
  ~OpenclConvDirect();
  OpenclConvDirect(const OpenclConvDirect &) = delete;
  OpenclConvDirect &operator=(const OpenclConvDirect &) = delete;
  // k calls of the pass, finished.
  void run(ConvPass pass, int64_t k);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bptool::bench
