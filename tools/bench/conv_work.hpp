// conv_work.hpp — Backplane's side of the `conv` figure: one layer's
// operands on a device and each pass as a timed Work, as training runs
// them (bp_conv_out for the forward pass; the data and weight gradients
// from a backward pass through a recorded convolution, retained, with only
// x or only w requiring a gradient).
#pragma once

#include "backplane.hpp"
#include "conv_shapes.hpp"
#include "timing.hpp"

namespace bptool::bench {

class ConvOperands {
 public:
  ConvOperands(const ConvLayer &layer, int64_t batch, bp_dtype dtype, const bp::Device &device);
  // k repetitions of the pass, then a synchronize of the device. Holds this.
  Work pass(ConvPass p) const;

 private:
  bp::ConvOptions options_;
  bp::Tensor x_, w_, y_, dy_;
  bp::Tensor x_leaf_, y_of_x_;  // y = conv(x_leaf, w): backward gives dx
  bp::Tensor w_leaf_, y_of_w_;  // y = conv(x, w_leaf): backward gives dw
  bp_device device_;
};

}  // namespace bptool::bench
