#include "conv_work.hpp"

namespace bptool::bench {

ConvOperands::ConvOperands(const ConvLayer &layer, int64_t batch, bp_dtype dtype, const bp::Device &device)
    : device_(device.id()) {
  options_.stride = {layer.stride};
  options_.padding = {layer.pad};
  const int64_t out = layer.out();
  x_ = bp::random_uniform({batch, layer.c_in, layer.size, layer.size}, -1, 1, 11, dtype, device);
  w_ = bp::random_uniform({layer.c_out, layer.c_in, layer.kernel, layer.kernel}, -0.1, 0.1, 12, dtype, device);
  y_ = bp::zeros({batch, layer.c_out, out, out}, dtype, device);
  dy_ = bp::random_uniform({batch, layer.c_out, out, out}, -1, 1, 13, dtype, device);
  x_leaf_ = x_.detach().requires_grad_();
  y_of_x_ = bp::conv(x_leaf_, w_, {}, options_);
  w_leaf_ = w_.detach().requires_grad_();
  y_of_w_ = bp::conv(x_, w_leaf_, {}, options_);
  bp::check(bp_synchronize(device_));
}

Work ConvOperands::pass(ConvPass p) const {
  if (p == ConvPass::forward)
    return [this](int64_t k) {
      const bp_conv_options o = bp::detail::conv_options(options_);
      for (int64_t i = 0; i < k; ++i) bp::check(bp_conv_out(x_.handle(), w_.handle(), 0, &o, y_.handle()));
      bp::check(bp_synchronize(device_));
    };
  const bp::Tensor &y = p == ConvPass::data ? y_of_x_ : y_of_w_;
  const bp::Tensor &leaf = p == ConvPass::data ? x_leaf_ : w_leaf_;
  return [this, &y, &leaf](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      leaf.clear_grad();
      y.backward(dy_, true);
    }
    bp::check(bp_synchronize(device_));
  };
}

}  // namespace bptool::bench
