// libFuzzer target: random convolution problems (bp_conv, bp_conv_transpose
// and, through a backward pass, the family's gradients CONV_TRANSPOSE and
// CONV_WEIGHT_GRAD) on cpu:0 and on reference:0 (the oracle). Both must
// give the same status and, on success, results of one dtype and shape
// whose values agree within the accumulation bound plugin.h allows (the
// fuzz_sum entry of the kit's tolerance table: sums in any order). The
// input decodes into: the form (forward or transposed, with or without the
// backward pass), a dtype (the float ones mostly, an integer now and then:
// it computes in float64), the spatial rank (1 to 3, sometimes 0 or 4),
// batch, groups and channels, every axis's input extent, kernel, stride,
// dilation, padding before and after and output padding (zeros and
// mismatches included, so the errors are compared too), whether there is
// a bias (of the right length or one off), then the elements.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backplane/backplane.h"
#include "fuzz_support.hpp"
#include "tolerances.hpp"
#include "two_sides.hpp"

namespace {

using bp_fuzz::kSides;
bp_device (&g_devices)[kSides] = bp_fuzz::g_sides;

class Reader {
 public:
  Reader(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
  uint8_t byte() { return p_ == end_ ? 0 : *p_++; }
  int64_t below(int64_t n) { return int64_t(byte() % uint8_t(n)); }
  // A value of the elements: eighths in [-8, 8), exact in every float dtype.
  double element() { return double(int8_t(byte())) / 16; }

 private:
  const uint8_t *p_, *end_;
};

struct Tensors {
  bp_tensor t[kSides] = {0, 0};
  Tensors() = default;
  Tensors(const Tensors &) = delete;
  Tensors &operator=(const Tensors &) = delete;
  ~Tensors() {
    for (bp_tensor h : t)
      if (h) bp_tensor_release(h);
  }
};

// The same values on both sides, as float64 converted to dtype.
void make(Tensors &out, Reader &in, int32_t dtype, const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  std::vector<double> v(size_t(std::max<int64_t>(n, 1)));  // a valid pointer even for no elements
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = in.element();
  for (int s = 0; s < kSides; ++s) {
    bp_tensor f64 = 0;
    if (bp_from_host(g_devices[s], BP_FLOAT64, int32_t(shape.size()), shape.data(), v.data(), &f64) !=
            BP_OK ||
        bp_cast(f64, dtype, &out.t[s]) != BP_OK)
      bp_fuzz::fail("making an operand: %s", bp_last_error());
    bp_tensor_release(f64);
  }
}

struct Snapshot : bp_fuzz::Metadata {
  std::vector<double> values;
};

Snapshot snapshot(bp_tensor t) {
  Snapshot s;
  static_cast<bp_fuzz::Metadata &>(s) = bp_fuzz::metadata_of(t, "a result");
  bp_tensor f64 = 0;
  if (bp_cast(t, BP_FLOAT64, &f64) != BP_OK) bp_fuzz::fail("bp_cast of a result: %s", bp_last_error());
  s.values.resize(size_t(s.numel));
  if (bp_to_host(f64, s.values.data(), s.values.size() * 8) != BP_OK)
    bp_fuzz::fail("bp_to_host of a result: %s", bp_last_error());
  bp_tensor_release(f64);
  return s;
}

// k terms of magnitude up to `term`, summed in any order (plugin.h), then
// rounded once to the dtype: the fuzzer's rows of the one table.
void compare(const char *what, bp_tensor a, bp_tensor b, double k, double term) {
  const Snapshot got = snapshot(a), want = snapshot(b);
  if (got.dtype != want.dtype || got.rank != want.rank || !std::equal(got.shape, got.shape + BP_MAX_RANK, want.shape))
    bp_fuzz::fail("%s: the results' dtypes or shapes differ (%s rank %d vs %s rank %d)", what,
                  bp_dtype_name(got.dtype), got.rank, bp_dtype_name(want.dtype), want.rank);
  const bpcheck::Bound sum = bpcheck::test_bound(bpcheck::TestBound::fuzz_sum, BP_FLOAT32, k * k * term);
  const bpcheck::Bound half = bpcheck::test_bound(bpcheck::TestBound::fuzz_half, want.dtype);
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double g = got.values[i], w = want.values[i];
    const double bound = sum.atol + half.atol + half.rtol * std::fabs(w);
    if (!(std::fabs(g - w) <= bound))
      bp_fuzz::fail("%s (%s): element %zu is %.17g on cpu:0 and %.17g on reference:0 (bound %.3g)", what,
                    bp_dtype_name(want.dtype), i, g, w, bound);
  }
}

void run(Reader &in) {
  const int64_t form = in.below(4);  // bit 0: transposed, bit 1: backward pass too
  const bool transposed = form & 1, backward = form & 2;
  static const int32_t kDtypes[] = {BP_FLOAT32, BP_FLOAT32, BP_FLOAT64, BP_FLOAT16, BP_BFLOAT16, BP_INT32};
  const int32_t dtype = kDtypes[in.below(6)];
  const int64_t rank_pick = in.below(16);
  const int rank = rank_pick == 0 ? 0 : rank_pick == 1 ? 4 : int(1 + rank_pick % 3);
  const int64_t n = in.below(3), groups = 1 + in.below(3);
  const int64_t in_group = in.below(8) == 0 ? 0 : 1 + in.below(3), out_group = 1 + in.below(3);
  // Channels that do not divide by the groups, now and then.
  const int64_t c_in = groups * in_group + (in.below(16) == 0 ? 1 : 0), c_out = groups * out_group;
  bp_conv_options o = BP_CONV_OPTIONS_INIT;
  o.groups = int32_t(in.below(32) == 0 ? 0 : groups);
  std::vector<int64_t> x_shape{n, transposed ? c_out : c_in}, w_shape{c_out, in_group};
  int64_t taps = 1, window = 1;
  for (int i = 0; i < std::min(rank, 3); ++i) {
    const int64_t k = 1 + in.below(3);
    o.stride[i] = in.below(24) == 0 ? 0 : 1 + in.below(3);
    o.dilation[i] = 1 + in.below(3);
    o.padding_begin[i] = in.below(3);
    o.padding_end[i] = in.below(3);
    o.output_padding[i] = transposed ? in.below(3) : 0;
    x_shape.push_back(1 + in.below(6));
    w_shape.push_back(k);
    taps *= k;
    window *= x_shape.back();
  }
  for (int i = 3; i < rank; ++i) x_shape.push_back(2), w_shape.push_back(1);
  const int64_t bias_pick = in.below(4);
  const int64_t bias_length = (transposed ? c_in : c_out) + (bias_pick == 3 ? 1 : 0);

  Tensors x, w, bias, y;
  make(x, in, dtype, x_shape);
  make(w, in, dtype, w_shape);
  if (bias_pick >= 2) make(bias, in, dtype, {bias_length});
  const bool grads = backward && bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT;
  for (int s = 0; s < kSides && grads; ++s)
    for (bp_tensor t : {x.t[s], w.t[s], bias.t[s]})
      if (t) bp_tensor_set_requires_grad(t, 1);
  bp_status status[kSides];
  for (int s = 0; s < kSides; ++s)
    status[s] = transposed ? bp_conv_transpose(x.t[s], w.t[s], bias.t[s], &o, &y.t[s])
                           : bp_conv(x.t[s], w.t[s], bias.t[s], &o, &y.t[s]);
  const char *what = transposed ? "conv_transpose" : "conv";
  if (status[0] != status[1])
    bp_fuzz::fail("%s: cpu:0 gives %s, reference:0 gives %s (%s)", what, bp_status_name(status[0]),
                  bp_status_name(status[1]), bp_last_error());
  if (status[0] != BP_OK) {
    if (std::strlen(bp_last_error()) >= bp_fuzz::kMaxMessage) bp_fuzz::fail("%s: an error message too long", what);
    return;
  }
  // Terms per element: a window's taps over a group's channels (and the
  // bias); elements of at most 8 in magnitude.
  const double terms = double(taps * (1 + std::max(in_group, out_group)) + 1);
  compare(what, y.t[0], y.t[1], terms, 64);
  if (!grads) return;
  // The gradients with one output gradient g on both sides: the input's
  // sums run over a transposed window, the weight's over every position of
  // the batch.
  int32_t y_rank = 0;
  int64_t y_shape[BP_MAX_RANK] = {};
  bp_tensor_rank(y.t[1], &y_rank);
  bp_tensor_shape(y.t[1], y_shape);
  Tensors g;
  make(g, in, dtype, std::vector<int64_t>(y_shape, y_shape + y_rank));
  for (int s = 0; s < kSides; ++s)
    if (bp_backward(y.t[s], g.t[s], 0) != BP_OK) bp_fuzz::fail("%s: backward failed: %s", what, bp_last_error());
  int64_t y_numel = 1;
  for (int d = 0; d < y_rank; ++d) y_numel *= y_shape[d];
  const double grad_terms = double(std::max<int64_t>(y_numel, window) * taps + 1);
  const char *names[3] = {"the input's gradient", "the weight's gradient", "the bias's gradient"};
  const bp_tensor *leaves[3] = {x.t, w.t, bias.t};
  for (int k = 0; k < 3; ++k) {
    if (!leaves[k][0]) continue;
    Tensors grad;
    for (int s = 0; s < kSides; ++s)
      if (bp_tensor_grad(leaves[k][s], &grad.t[s]) != BP_OK) bp_fuzz::fail("%s: %s", names[k], bp_last_error());
    if (!grad.t[0] || !grad.t[1]) bp_fuzz::fail("%s of %s: missing on one side", names[k], what);
    compare(names[k], grad.t[0], grad.t[1], grad_terms, 64);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bp_fuzz::without_leaks([&] {
    Reader in(data, size);
    run(in);
  });
  return 0;
}
