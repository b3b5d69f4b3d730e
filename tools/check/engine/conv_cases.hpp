// The convolution family's cases (CONV, CONV_TRANSPOSE, CONV_WEIGHT_GRAD;
// plugin.h): fixed problems for L2 numerics (1-, 2- and 3-D, strides,
// dilations, asymmetric padding, groups and depthwise, with and without a
// bias, strided views, an empty batch, output padding), random ones for the
// conv group, and the scale of each output element's accumulation that the
// judge allows rounding against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "views.hpp"

namespace bpcheck {

struct Builder;

// One problem in CONV's terms: x [n, c_in, in...], weight [c_out, c_in /
// groups, kernel...], y [n, c_out, O...] with O the floor formula's. For
// CONV_TRANSPOSE and CONV_WEIGHT_GRAD, x's extents are instead the smallest
// that give O plus output_padding (taken modulo max(stride, dilation)).
struct ConvSpec {
  int rank = 2;
  int64_t n = 1, c_in = 1, c_out = 1;
  int32_t groups = 1;
  int64_t in[BP_WINDOW_MAX_RANK] = {1, 1, 1}, kernel[BP_WINDOW_MAX_RANK] = {1, 1, 1};
  int64_t stride[BP_WINDOW_MAX_RANK] = {1, 1, 1}, dilation[BP_WINDOW_MAX_RANK] = {1, 1, 1};
  int64_t pad_begin[BP_WINDOW_MAX_RANK] = {}, pad_end[BP_WINDOW_MAX_RANK] = {};
  int64_t output_padding[BP_WINDOW_MAX_RANK] = {};
  bool bias = true;
  LayoutSpec in0 = dense(), in1 = dense(), out = dense();  // layouts of input 0, input 1 and the output
};

// "x [2, 4, 7, 7], weight [6, 2, 3, 3], groups 2, stride [2, 1], ...".
std::string conv_spec_text(int32_t op, const ConvSpec &s);
// The case of one problem for b's operator and dtypes, labelled `what`.
void add_conv(Builder &b, const ConvSpec &s, const std::string &what);
// A 2-D problem of two batch items whose spatial extents are the shape's
// (at most 32): the threads and queues groups' cases.
ConvSpec conv_spec_for(const Shape &shape);
// The fixed cases of L2 numerics.
void conv_cases(Builder &b);
// `count` random problems (the conv group), reproducible from the seed.
std::vector<Case> random_conv_cases(int32_t op, int32_t dtype, uint64_t seed, int count);

// For each output element (C order): the sum of the magnitudes of the terms
// it adds (the bias's included) and their number.
void conv_scale(const Case &c, std::vector<double> &sum, std::vector<int64_t> &terms);

}  // namespace bpcheck
