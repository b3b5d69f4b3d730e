// conv_shapes.hpp — the problems of the `conv` figure (fig_conv.cpp and
// conv_direct.cpp in bp and bp-bench-direct, the conv measurement of
// bp-bench-torch): ResNet-18's convolution layers at one batch, and the
// three passes a training step runs of each. Depends on nothing of
// Backplane, so that bp-bench-torch can share it.
#pragma once

#include <cstdint>
#include <string>

namespace bptool::bench {

// A square 2-D convolution: c_in -> c_out channels on size x size inputs,
// a kernel x kernel window at `stride`, `pad` zeros on every side.
struct ConvLayer {
  const char *name;
  int64_t c_in, c_out, size, kernel, stride, pad;
  int64_t out() const { return (size + 2 * pad - kernel) / stride + 1; }
};

// ResNet-18's: the 7x7 stride-2 stem on 224x224x3 images, the 3x3 layers
// of its four stages, and the 1x1 stride-2 shortcuts between them.
inline constexpr ConvLayer kResNet18Layers[] = {
    {"stem 7x7/2 3->64 at 224", 3, 64, 224, 7, 2, 3},
    {"3x3 64->64 at 56", 64, 64, 56, 3, 1, 1},
    {"3x3 128->128 at 28", 128, 128, 28, 3, 1, 1},
    {"3x3 256->256 at 14", 256, 256, 14, 3, 1, 1},
    {"3x3 512->512 at 7", 512, 512, 7, 3, 1, 1},
    {"1x1/2 64->128 at 56", 64, 128, 56, 1, 2, 0},
    {"1x1/2 128->256 at 28", 128, 256, 28, 1, 2, 0},
    {"1x1/2 256->512 at 14", 256, 512, 14, 1, 2, 0},
};
inline constexpr int kResNet18LayerCount = int(sizeof kResNet18Layers / sizeof kResNet18Layers[0]);

// What is computed: y from x and w (forward), dx from dy and w (the data
// gradient, CONV_TRANSPOSE), dw from x and dy (CONV_WEIGHT_GRAD).
enum class ConvPass { forward = 0, data = 1, weight = 2 };
inline constexpr ConvPass kConvPasses[] = {ConvPass::forward, ConvPass::data, ConvPass::weight};

inline const char *conv_pass_name(ConvPass p) {
  return p == ConvPass::forward ? "forward" : p == ConvPass::data ? "backward data" : "backward weight";
}

// Multiply-adds times two, the same for the three passes.
inline double conv_flops(const ConvLayer &l, int64_t batch) {
  const double out = double(l.out());
  return 2.0 * double(batch) * double(l.c_out) * out * out * double(l.c_in) * double(l.kernel * l.kernel);
}

// "float32 batch 32, 3x3 64->64 at 56, forward".
inline std::string conv_params(const ConvLayer &l, int64_t batch, const char *dtype, ConvPass p) {
  return std::string(dtype) + " batch " + std::to_string(batch) + ", " + l.name + ", " + conv_pass_name(p);
}

}  // namespace bptool::bench
