// MAX_POOL, AVG_POOL and their gradients (families POOL and POOL_GRAD):
// the values plugin.h's rules give, worked out by hand (ties to the first
// tap, the first NaN, padding never chosen, the divisors of both count
// modes in ceil mode, a window over padding alone), and the calls the SDK
// refuses.
#include <cmath>
#include <cstring>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

const double kQuietNaN = std::numeric_limits<double>::quiet_NaN();

bp_plugin_tensor absent() {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  return t;
}

// One spatial axis per entry; pads before and after alike unless pad_end is given.
bp_window_params window(const std::vector<int64_t> &kernel, const std::vector<int64_t> &stride,
                        const std::vector<int64_t> &pad = {}, const std::vector<int64_t> &pad_end = {},
                        uint32_t flags = 0, const std::vector<int64_t> &dilation = {}) {
  bp_window_params w;
  std::memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.spatial_rank = int32_t(kernel.size());
  w.groups = 1;
  w.flags = flags;
  for (size_t d = 0; d < kernel.size(); ++d) {
    w.kernel[d] = kernel[d];
    w.stride[d] = stride[d];
    w.dilation[d] = dilation.empty() ? 1 : dilation[d];
    w.pad_begin[d] = pad.empty() ? 0 : pad[d];
    w.pad_end[d] = pad_end.empty() ? w.pad_begin[d] : pad_end[d];
  }
  return w;
}

bp_op_attrs with(const bp_window_params &w) {
  bp_op_attrs a = attrs();
  a.params = &w;
  return a;
}

bp_status pool(Reference &ref, int32_t op, const bp_window_params &w, const bp_plugin_tensor &x,
               const bp_plugin_tensor &y, const bp_plugin_tensor &indices) {
  const bp_op_attrs a = with(w);
  const bp_plugin_tensor outputs[2] = {y, indices};
  return ref.api().execute(0, op, &a, &x, 1, outputs);
}

bp_status grad(Reference &ref, int32_t op, const bp_window_params &w, const bp_plugin_tensor &dy,
               const bp_plugin_tensor &indices, const bp_plugin_tensor &dx) {
  const bp_op_attrs a = with(w);
  const bp_plugin_tensor inputs[2] = {dy, indices};
  return ref.api().execute(0, op, &a, inputs, 2, &dx);
}

}  // namespace

TEST_CASE("max_pool: ties go to the first tap in C order, indices are flat in the plane", "[pool]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<float>({1, 1, 3, 3}, {1, 3, 3, 2, 3, 0, 1, 1, 1});
  const bp_plugin_tensor y = ref.empty(BP_FLOAT32, {1, 1, 2, 2}), i = ref.empty(BP_INT64, {1, 1, 2, 2});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({2, 2}, {1, 1}), x, y, i) == BP_OK);
  check_values(ref.values<float>(y), std::vector<float>{3, 3, 3, 3});
  check_values(ref.values<int64_t>(i), std::vector<int64_t>{1, 1, 4, 4});
  // 3-d: the flat position is (p0 * S1 + p1) * S2 + p2.
  const bp_plugin_tensor x3 = ref.tensor<double>({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 7, 6});
  const bp_plugin_tensor y3 = ref.empty(BP_FLOAT64, {1, 1, 1, 1, 1}), i3 = ref.empty(BP_INT64, {1, 1, 1, 1, 1});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({2, 2, 2}, {2, 2, 2}), x3, y3, i3) == BP_OK);
  check_values(ref.values<double>(y3), std::vector<double>{7});
  check_values(ref.values<int64_t>(i3), std::vector<int64_t>{6});
}

TEST_CASE("max_pool: a NaN wins and the first one is chosen, padding never wins", "[pool]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<double>({1, 1, 4}, {1, kQuietNaN, 5, kQuietNaN});
  const bp_plugin_tensor y = ref.empty(BP_FLOAT64, {1, 1, 2}), i = ref.empty(BP_INT64, {1, 1, 2});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({2}, {2}), x, y, i) == BP_OK);
  const std::vector<double> v = ref.values<double>(y);
  CHECK(std::isnan(v[0]));
  CHECK(std::isnan(v[1]));
  check_values(ref.values<int64_t>(i), std::vector<int64_t>{1, 3});
  const bp_plugin_tensor whole = ref.empty(BP_FLOAT64, {1, 1, 1}), at = ref.empty(BP_INT64, {1, 1, 1});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({4}, {4}), x, whole, at) == BP_OK);
  check_values(ref.values<int64_t>(at), std::vector<int64_t>{1});
  // All -inf: each window's first tap inside the input, never the padding.
  const bp_plugin_tensor low = ref.tensor<float>({1, 1, 3}, {-INFINITY, -INFINITY, -INFINITY});
  const bp_plugin_tensor ly = ref.empty(BP_FLOAT32, {1, 1, 3}), li = ref.empty(BP_INT64, {1, 1, 3});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({3}, {1}, {1}), low, ly, li) == BP_OK);
  check_values(ref.values<float>(ly), std::vector<float>{-INFINITY, -INFINITY, -INFINITY});
  check_values(ref.values<int64_t>(li), std::vector<int64_t>{0, 0, 1});
}

TEST_CASE("max_pool keeps the integer dtypes extremes and its indices may be absent", "[pool]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<int64_t>({1, 1, 3}, {INT64_MIN, INT64_MAX, INT64_MIN});
  const bp_plugin_tensor y = ref.empty(BP_INT64, {1, 1, 2});
  REQUIRE(pool(ref, BP_OP_MAX_POOL, window({2}, {1}), x, y, absent()) == BP_OK);
  check_values(ref.values<int64_t>(y), std::vector<int64_t>{INT64_MAX, INT64_MAX});
}

TEST_CASE("avg_pool counts the padding within pad_end with the flag, never past it", "[pool]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<double>({1, 1, 5}, {0, 1, 2, 3, 4});
  // Kernel 3, stride 2, padding 1, ceil mode: windows [-1, 2), [1, 4), [3, 6).
  const bp_plugin_tensor y = ref.empty(BP_FLOAT64, {1, 1, 3});
  REQUIRE(pool(ref, BP_OP_AVG_POOL, window({3}, {2}, {1}), x, y, absent()) == BP_OK);
  check_values(ref.values<double>(y), std::vector<double>{0.5, 2, 3.5});
  REQUIRE(pool(ref, BP_OP_AVG_POOL, window({3}, {2}, {1}, {}, BP_WINDOW_COUNT_INCLUDE_PAD), x, y, absent()) == BP_OK);
  check_values(ref.values<double>(y), std::vector<double>{1.0 / 3, 2, 7.0 / 3});
  // Kernel 2, stride 2, ceil mode: the last window [4, 6) reaches past the
  // input with no padding to count, in either mode (PyTorch's 4).
  const bp_plugin_tensor z = ref.empty(BP_FLOAT64, {1, 1, 3});
  REQUIRE(pool(ref, BP_OP_AVG_POOL, window({2}, {2}, {}, {}, BP_WINDOW_COUNT_INCLUDE_PAD), x, z, absent()) == BP_OK);
  check_values(ref.values<double>(z), std::vector<double>{0.5, 2.5, 4});
}

TEST_CASE("avg_pool gives 0 for a window over padding alone, as PyTorch does", "[pool]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<float>({1, 1, 1}, {7});
  const bp_plugin_tensor y = ref.empty(BP_FLOAT32, {1, 1, 3});
  for (uint32_t flags : {0u, BP_WINDOW_COUNT_INCLUDE_PAD}) {
    REQUIRE(pool(ref, BP_OP_AVG_POOL, window({1}, {1}, {0}, {2}, flags), x, y, absent()) == BP_OK);
    check_values(ref.values<float>(y), std::vector<float>{7, 0, 0});
  }
}

TEST_CASE("max_pool_grad adds dy at its indices and avg_pool_grad spreads dy / n over each window", "[pool]") {
  Reference ref;
  const bp_plugin_tensor dy = ref.tensor<float>({1, 1, 2}, {1, 2});
  const bp_plugin_tensor at = ref.tensor<int64_t>({1, 1, 2}, {1, 1});
  const bp_plugin_tensor dx = ref.empty(BP_FLOAT32, {1, 1, 3});
  REQUIRE(grad(ref, BP_OP_MAX_POOL_GRAD, window({2}, {1}), dy, at, dx) == BP_OK);
  check_values(ref.values<float>(dx), std::vector<float>{0, 3, 0});
  // The forward of the avg_pool test above: divisors 2, 3, 2 (3, 3, 3 with the flag).
  const bp_plugin_tensor g = ref.tensor<double>({1, 1, 3}, {2, 3, 4});
  const bp_plugin_tensor d5 = ref.empty(BP_FLOAT64, {1, 1, 5});
  REQUIRE(grad(ref, BP_OP_AVG_POOL_GRAD, window({3}, {2}, {1}), g, absent(), d5) == BP_OK);
  check_values(ref.values<double>(d5), std::vector<double>{1, 2, 1, 3, 2});
  REQUIRE(grad(ref, BP_OP_AVG_POOL_GRAD, window({3}, {2}, {1}, {}, BP_WINDOW_COUNT_INCLUDE_PAD), g, absent(), d5) ==
          BP_OK);
  const std::vector<double> v = ref.values<double>(d5);
  const std::vector<double> want = {2.0 / 3, 2.0 / 3 + 1, 1, 1 + 4.0 / 3, 4.0 / 3};
  for (size_t k = 0; k < want.size(); ++k) CHECK(std::fabs(v[k] - want[k]) < 1e-15);
}

TEST_CASE("pooling calls that break plugin.h's rules are refused", "[pool][errors]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<float>({1, 1, 4}, {1, 2, 3, 4});
  const bp_plugin_tensor y = ref.empty(BP_FLOAT32, {1, 1, 2}), i = ref.empty(BP_INT64, {1, 1, 2});
  // No window, or one of stride 0.
  bp_op_attrs a = attrs();
  const bp_plugin_tensor outputs[2] = {y, i};
  check_error(ref, ref.api().execute(0, BP_OP_MAX_POOL, &a, &x, 1, outputs), BP_ERR_INVALID_ARGUMENT, {"params"});
  check_error(ref, pool(ref, BP_OP_MAX_POOL, window({2}, {0}), x, y, i), BP_ERR_INVALID_ARGUMENT, {"stride"});
  // Extents the window does not give (kernel 2, stride 2 gives 2, not 3).
  const bp_plugin_tensor y3 = ref.empty(BP_FLOAT32, {1, 1, 3});
  check_error(ref, pool(ref, BP_OP_AVG_POOL, window({2}, {2}), x, y3, absent()), BP_ERR_SHAPE, {"give 2 outputs"});
  // A window larger than the padded input.
  check_error(ref, pool(ref, BP_OP_AVG_POOL, window({6}, {1}), x, y, absent()), BP_ERR_SHAPE, {"larger"});
  // A dilated MAX_POOL window whose taps all fall in the padding.
  const bp_plugin_tensor x2 = ref.tensor<float>({1, 1, 2}, {1, 2});
  const bp_plugin_tensor y1 = ref.empty(BP_FLOAT32, {1, 1, 1}), i1 = ref.empty(BP_INT64, {1, 1, 1});
  check_error(ref, pool(ref, BP_OP_MAX_POOL, window({2}, {1}, {1}, {1}, 0, {3}), x2, y1, i1), BP_ERR_SHAPE,
              {"only padding"});
  // AVG_POOL writes no indices; MAX_POOL's are int64; MAX_POOL_GRAD needs them.
  check_error(ref, pool(ref, BP_OP_AVG_POOL, window({2}, {2}), x, y, i), BP_ERR_INVALID_ARGUMENT, {"absent"});
  const bp_plugin_tensor i32 = ref.empty(BP_INT32, {1, 1, 2});
  check_error(ref, pool(ref, BP_OP_MAX_POOL, window({2}, {2}), x, y, i32), BP_ERR_DTYPE, {"int64"});
  const bp_plugin_tensor dx = ref.empty(BP_FLOAT32, {1, 1, 4});
  check_error(ref, grad(ref, BP_OP_MAX_POOL_GRAD, window({2}, {2}), y, absent(), dx), BP_ERR_INVALID_ARGUMENT,
              {"indices"});
  // An index outside the plane, before anything is written.
  const bp_plugin_tensor bad = ref.tensor<int64_t>({1, 1, 2}, {0, 4});
  check_error(ref, grad(ref, BP_OP_MAX_POOL_GRAD, window({2}, {2}), y, bad, dx), BP_ERR_INDEX, {"outside"});
  check_values(ref.values<float>(dx), std::vector<float>{0, 0, 0, 0});
}
