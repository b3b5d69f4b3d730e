// SOFTMAX and LOG_SOFTMAX (plugin.h): rows along the last axis, one stable
// pass, PyTorch's values on the special rows, the halves rounded once.
// Expected values are worked out by hand (exp and log from libm in double,
// as the reference's float64 computation is).
#include <cmath>
#include <limits>

#include "reference_test.hpp"
#include "small_dtypes.hpp"

using namespace ref_test;

namespace {

// The output of a softmax has its input's shape.
template <class T>
std::vector<T> run(Reference &ref, int32_t op, const bp_plugin_tensor &in) {
  return op_values<T>(ref, op, in, Shape(in.shape, in.shape + in.rank));
}

}  // namespace

TEMPLATE_TEST_CASE("softmax and log_softmax of each row along the last axis", "[softmax]", float, double) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 2, 3, -1, 0, 1});
  // Both rows are x + c of one row: the same result (the maximum cancels).
  const double s = 1 + std::exp(-1.0) + std::exp(-2.0);
  const std::vector<double> p = {std::exp(-2.0) / s, std::exp(-1.0) / s, 1 / s};
  check_close(run<T>(ref, BP_OP_SOFTMAX, x), {p[0], p[1], p[2], p[0], p[1], p[2]}, libm_closeness<T>());
  const double ls = std::log(s);
  check_close(run<T>(ref, BP_OP_LOG_SOFTMAX, x), {-2 - ls, -1 - ls, -ls, -2 - ls, -1 - ls, -ls}, libm_closeness<T>());
  // One element: softmax 1, log_softmax 0, exactly.
  bp_plugin_tensor one = ref.tensor<T>({3, 1}, {-7, 0, 1e30});
  check_values(run<T>(ref, BP_OP_SOFTMAX, one), std::vector<T>{1, 1, 1});
  check_values(run<T>(ref, BP_OP_LOG_SOFTMAX, one), std::vector<T>{0, 0, 0});
}

TEMPLATE_TEST_CASE("softmax follows the views' strides: a column is a row", "[softmax]", float, double) {
  Reference ref;
  using T = TestType;
  // The buffer holds [[1, 10], [2, 20], [3, 30]]; the view reads its columns
  // as rows of three (the core's transposed axis), the output is dense.
  bp_plugin_tensor x = ref.tensor<T>({3, 2}, {1, 10, 2, 20, 3, 30});
  std::swap(x.shape[0], x.shape[1]);
  std::swap(x.strides[0], x.strides[1]);
  const double s = 1 + std::exp(-1.0) + std::exp(-2.0);
  const std::vector<double> small = {std::exp(-2.0) / s, std::exp(-1.0) / s, 1 / s};
  const double t = 1 + std::exp(-10.0) + std::exp(-20.0);
  check_close(run<T>(ref, BP_OP_SOFTMAX, x),
              {small[0], small[1], small[2], std::exp(-20.0) / t, std::exp(-10.0) / t, 1 / t}, libm_closeness<T>());
}

TEMPLATE_TEST_CASE("no overflow near the float maximum, no underflow of log_softmax", "[softmax]", float, double) {
  Reference ref;
  using T = TestType;
  const T big = std::numeric_limits<T>::max();
  // exp(big) is +inf in every float dtype; shifted by the maximum it is 1.
  bp_plugin_tensor x = ref.tensor<T>({2, 2}, {big, big, big, -big});
  check_values(run<T>(ref, BP_OP_SOFTMAX, x), std::vector<T>{T(0.5), T(0.5), 1, 0});
  // -big - big is below the lowest value: log_softmax -inf, as PyTorch's.
  const std::vector<T> l = run<T>(ref, BP_OP_LOG_SOFTMAX, x);
  check_close(std::vector<T>{l[0], l[1], l[2]}, {-std::log(2.0), -std::log(2.0), 0}, libm_closeness<T>());
  CHECK(l[3] == -std::numeric_limits<T>::infinity());
  // softmax rounds exp(-1000) to 0; log_softmax keeps -1000 exactly.
  bp_plugin_tensor wide = ref.tensor<T>({2}, {0, -1000});
  check_values(run<T>(ref, BP_OP_SOFTMAX, wide), std::vector<T>{1, 0});
  check_values(run<T>(ref, BP_OP_LOG_SOFTMAX, wide), std::vector<T>{0, -1000});
}

TEMPLATE_TEST_CASE("rows of NaN, +inf and -inf give PyTorch's values", "[softmax]", float, double) {
  Reference ref;
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  // Rows: a NaN; a +inf; two +inf; only -inf; -inf among numbers.
  bp_plugin_tensor x = ref.tensor<T>({5, 2}, {1, nan, 1, inf, inf, inf, -inf, -inf, -inf, 0});
  const std::vector<T> s = run<T>(ref, BP_OP_SOFTMAX, x), l = run<T>(ref, BP_OP_LOG_SOFTMAX, x);
  for (size_t i = 0; i < 8; ++i) {
    INFO("element " << i);
    CHECK(std::isnan(s[i]));
    CHECK(std::isnan(l[i]));
  }
  CHECK(s[8] == 0);
  CHECK(s[9] == 1);
  CHECK(l[8] == -inf);
  CHECK(l[9] == 0);
}

TEST_CASE("softmax of an empty last axis or of no rows writes nothing", "[softmax][zero-size]") {
  Reference ref;
  for (const Shape &shape : {Shape{3, 0}, Shape{0, 4}}) {
    bp_plugin_tensor none = dense_view(nullptr, BP_FLOAT32, shape);
    for (int32_t op : {BP_OP_SOFTMAX, BP_OP_LOG_SOFTMAX}) CHECK(ref.run(op, {none}, none) == BP_OK);
  }
}

TEST_CASE("softmax in place: the output is the input's very view", "[softmax]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<double>({1, 3}, {0, 0, std::log(2.0)});
  ref.exec(BP_OP_SOFTMAX, {x}, x);
  check_close(ref.values<double>(x), {0.25, 0.25, 0.5}, 1e-15);
}

TEST_CASE("float16 and bfloat16 softmax compute in float32 and round once", "[softmax][small-dtypes]") {
  Reference ref;
  // x = [0, log 3] in float16 is [0, 0x3c65 = 1.0986328125]; softmax is
  // [1, e^t] / (1 + e^t) with e^t = 3.0000384..., so [0.2499961...,
  // 0.7500038...], which round to 0x3400 (0.25) and 0x3a00 (0.75).
  const bp_plugin_tensor f16 = row<uint16_t>(ref, BP_FLOAT16, {0x0000, 0x3c65});
  check_bits(BP_FLOAT16, run_into<uint16_t>(ref, BP_OP_SOFTMAX, {f16}, BP_FLOAT16, {2}), {0x3400, 0x3a00});
  // bfloat16: [0, 1] (0x3f80); softmax [0.26894..., 0.73105...] rounds to
  // 0x3e8a (0.26953125) and 0x3f3b (0.73046875); log_softmax
  // [-1.31326..., -0.31326...] to 0xbfa8 (-1.3125) and 0xbea0 (-0.3125).
  const bp_plugin_tensor bf16 = row<uint16_t>(ref, BP_BFLOAT16, {0x0000, 0x3f80});
  check_bits(BP_BFLOAT16, run_into<uint16_t>(ref, BP_OP_SOFTMAX, {bf16}, BP_BFLOAT16, {2}), {0x3e8a, 0x3f3b});
  check_bits(BP_BFLOAT16, run_into<uint16_t>(ref, BP_OP_LOG_SOFTMAX, {bf16}, BP_BFLOAT16, {2}), {0xbfa8, 0xbea0});
}

TEST_CASE("softmax: shapes, dtypes and ranks plugin.h does not define are refused", "[softmax][errors]") {
  Reference ref;
  bp_plugin_tensor i = ref.tensor<int32_t>({2}, {1, 2});
  check_error(ref, ref.run(BP_OP_SOFTMAX, {i}, ref.empty(BP_INT32, {2})), BP_ERR_UNSUPPORTED, {"softmax", "int32"});
  bp_plugin_tensor f = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  check_error(ref, ref.run(BP_OP_LOG_SOFTMAX, {f}, ref.empty(BP_FLOAT32, {3, 2})), BP_ERR_SHAPE,
              {"log_softmax", "[2, 3]", "[3, 2]"});
  check_error(ref, ref.run(BP_OP_SOFTMAX, {f}, ref.empty(BP_FLOAT64, {2, 3})), BP_ERR_UNSUPPORTED,
              {"softmax", "float32 -> float64"});
  bp_plugin_tensor scalar = ref.tensor<float>({}, {1});
  check_error(ref, ref.run(BP_OP_SOFTMAX, {scalar}, ref.empty(BP_FLOAT32, {})), BP_ERR_SHAPE, {"softmax", "rank >= 1"});
}
