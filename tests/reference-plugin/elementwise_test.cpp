// Elementwise operators: binary arithmetic, comparisons, WHERE, unary ops and
// COPY, for every dtype they allow, on dense, strided and broadcast views.
// Expected values are worked out by hand.
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

bp_op_attrs scalar_attrs(bp_scalar_mode mode, double scalar) {
  bp_op_attrs attrs = default_attrs();
  attrs.scalar_mode = mode;
  attrs.scalar = scalar;
  return attrs;
}

// EQ, NE, LT, LE, GT and GE of a with b, each checked against its row of
// `expected` (in that order).
template <class T>
void check_comparisons(Reference &ref, const std::vector<T> &a, const std::vector<T> &b,
                       const std::vector<uint8_t> (&expected)[6]) {
  const int32_t ops[6] = {BP_OP_EQ, BP_OP_NE, BP_OP_LT, BP_OP_LE, BP_OP_GT, BP_OP_GE};
  for (size_t i = 0; i < 6; ++i) {
    INFO("op " << ops[i]);
    check_values(ref.apply<uint8_t, T>(ops[i], {a, b}), expected[i]);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("add, sub, mul, maximum, minimum", "[elementwise]", float, double, int32_t,
                   int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> a = {1, -2, 3, 4, 0};
  const std::vector<T> b = {2, 5, -3, 4, 7};
  check_values(ref.apply<T, T>(BP_OP_ADD, {a, b}), std::vector<T>{3, 3, 0, 8, 7});
  check_values(ref.apply<T, T>(BP_OP_SUB, {a, b}), std::vector<T>{-1, -7, 6, 0, -7});
  check_values(ref.apply<T, T>(BP_OP_MUL, {a, b}), std::vector<T>{2, -10, -9, 16, 0});
  check_values(ref.apply<T, T>(BP_OP_MAXIMUM, {a, b}), std::vector<T>{2, 5, 3, 4, 7});
  check_values(ref.apply<T, T>(BP_OP_MINIMUM, {a, b}), std::vector<T>{1, -2, -3, 4, 0});
}

TEMPLATE_TEST_CASE("pow", "[elementwise]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> base = {2, -2, 3, 0, 5, 1, -1, -1, 2, 7};
  const std::vector<T> exponent = {3, 3, 0, 0, 1, -4, -3, -2, -1, 2};
  std::vector<T> expected = {8, -8, 1, 1, 5, 1, -1, 1, 0, 49};
  // 2^-1: integers give 0 (plugin.h), floats one half.
  if (std::is_floating_point<T>::value) expected[8] = T(0.5);
  check_values(ref.apply<T, T>(BP_OP_POW, {base, exponent}), expected);
}

TEMPLATE_TEST_CASE("div of floats, with IEEE infinities and NaN", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const std::vector<T> a = {1, -3, 1, -1, 0, 1};
  const std::vector<T> b = {4, 2, 0, 0, 0, 3};
  check_values(ref.apply<T, T>(BP_OP_DIV, {a, b}),
               std::vector<T>{T(0.25), T(-1.5), T(kInf), T(-kInf), T(kNaN), T(1) / T(3)});
}

TEMPLATE_TEST_CASE("maximum and minimum propagate NaN", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> a = {nan, 1, nan, 2};
  const std::vector<T> b = {1, nan, nan, -3};
  check_values(ref.apply<T, T>(BP_OP_MAXIMUM, {a, b}), std::vector<T>{nan, nan, nan, 2});
  check_values(ref.apply<T, T>(BP_OP_MINIMUM, {a, b}), std::vector<T>{nan, nan, nan, -3});
}

TEST_CASE("int32 arithmetic wraps around", "[elementwise]") {
  Reference ref;
  const int32_t max = INT32_MAX, min = INT32_MIN;
  check_values(ref.apply<int32_t, int32_t>(BP_OP_ADD, {{max, min}, {1, -1}}),
               std::vector<int32_t>{min, max});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_SUB, {{min, max}, {1, -1}}),
               std::vector<int32_t>{max, min});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_MUL, {{65536, 65537, max}, {65536, 65537, 2}}),
               std::vector<int32_t>{0, 131073, -2});
  // 2^31 wraps to INT32_MIN; 2^32 to 0; 3^21 = 10460353203 = 2 * 2^32 + 1870418611.
  check_values(ref.apply<int32_t, int32_t>(BP_OP_POW, {{2, 2, 3}, {31, 32, 21}}),
               std::vector<int32_t>{min, 0, 1870418611});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_NEG, {{min, max, 0}}),
               std::vector<int32_t>{min, -max, 0});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_ABS, {{min, -max}}),
               std::vector<int32_t>{min, max});
}

TEST_CASE("int64 arithmetic wraps around", "[elementwise]") {
  Reference ref;
  const int64_t max = INT64_MAX, min = INT64_MIN;
  check_values(ref.apply<int64_t, int64_t>(BP_OP_ADD, {{max, min}, {1, -1}}),
               std::vector<int64_t>{min, max});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_MUL, {{int64_t(1) << 32, max}, {int64_t(1) << 32, 2}}),
               std::vector<int64_t>{0, -2});
  // 3^41 = 36472996377170786403 = 2^64 + 18026252303461234787, which is
  // -420491770248316829 in two's complement.
  check_values(ref.apply<int64_t, int64_t>(BP_OP_POW, {{2, 2, 3}, {63, 64, 41}}),
               std::vector<int64_t>{min, 0, -420491770248316829});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_NEG, {{min, 5}}), std::vector<int64_t>{min, -5});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_ABS, {{min, -5}}), std::vector<int64_t>{min, 5});
}

TEMPLATE_TEST_CASE("comparisons write bool", "[elementwise]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> a = {1, 2, 3};
  const std::vector<T> b = {2, 2, 2};
  check_comparisons(ref, a, b, {{0, 1, 0}, {1, 0, 1}, {1, 0, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}});
}

TEST_CASE("comparisons of bool", "[elementwise]") {
  Reference ref;
  using B = uint8_t;
  const std::vector<B> a = {0, 1, 1, 0};
  const std::vector<B> b = {0, 0, 1, 1};
  check_comparisons(ref, a, b,
                    {{1, 0, 1, 0}, {0, 1, 0, 1}, {0, 0, 0, 1}, {1, 0, 1, 1}, {0, 1, 0, 0}, {1, 1, 1, 0}});
}

TEMPLATE_TEST_CASE("comparisons with NaN follow IEEE", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> a = {nan, nan, 1};
  const std::vector<T> b = {nan, 1, nan};
  check_comparisons(ref, a, b, {{0, 0, 0}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}});
}

TEMPLATE_TEST_CASE("where selects by a bool condition", "[elementwise]", float, double, int32_t,
                   int64_t, uint8_t) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor cond = ref.tensor<uint8_t>({4}, {1, 0, 1, 0});
  bp_plugin_tensor a = ref.tensor<T>({4}, {1, 1, 0, 1});
  bp_plugin_tensor b = ref.tensor<T>({4}, {0, 0, 1, 0});
  bp_plugin_tensor out = ref.empty(dtype_of<T>::value, {4});
  ref.exec(BP_OP_WHERE, {cond, a, b}, out);
  check_values(ref.values<T>(out), std::vector<T>{1, 0, 0, 0});
}

TEST_CASE("where with a broadcast condition and values", "[elementwise]") {
  Reference ref;
  // cond is one row [1, 0, 1] repeated (stride 0 on axis 0); b is one scalar.
  bp_plugin_tensor cond = ref.view<uint8_t>({1, 0, 1}, {2, 3}, {0, 1});
  bp_plugin_tensor a = ref.tensor<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor b = ref.view<double>({-1}, {2, 3}, {0, 0});
  bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 3});
  ref.exec(BP_OP_WHERE, {cond, a, b}, out);
  check_values(ref.values<double>(out), std::vector<double>{1, -1, 3, 4, -1, 6});
}

TEMPLATE_TEST_CASE("neg, abs, relu", "[elementwise]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> x = {-2, 0, 3, -7};
  check_values(ref.apply<T, T>(BP_OP_NEG, {x}), std::vector<T>{2, 0, -3, 7});
  check_values(ref.apply<T, T>(BP_OP_ABS, {x}), std::vector<T>{2, 0, 3, 7});
  check_values(ref.apply<T, T>(BP_OP_RELU, {x}), std::vector<T>{0, 0, 3, 0});
}

TEMPLATE_TEST_CASE("relu of NaN is 0, as x > 0 ? x : 0 says", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> out = ref.apply<T, T>(BP_OP_RELU, {{nan, T(-0.0), T(kInf)}});
  CHECK(out[0] == 0);
  CHECK(!std::signbit(out[1]));
  CHECK(out[2] == T(kInf));
}

TEMPLATE_TEST_CASE("exp, log, sqrt, tanh, sigmoid", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const double tolerance = table_tolerance(TestBound::libm, dtype_of<T>::value).rtol;
  check_close(ref.apply<T, T>(BP_OP_EXP, {{0, 1, -1, T(-kInf)}}),
              {1, 2.718281828459045, 0.36787944117144233, 0}, tolerance);
  check_close(ref.apply<T, T>(BP_OP_LOG, {{1, T(2.718281828459045), 0, -1}}),
              {0, 1, -kInf, kNaN}, tolerance);
  check_close(ref.apply<T, T>(BP_OP_SQRT, {{4, 2, 0, -1}}), {2, 1.4142135623730951, 0, kNaN},
              tolerance);
  check_close(ref.apply<T, T>(BP_OP_TANH, {{0, 1, -1, 30}}),
              {0, 0.7615941559557649, -0.7615941559557649, 1}, tolerance);
  check_close(ref.apply<T, T>(BP_OP_SIGMOID, {{0, 2, -2, -20}}),
              {0.5, 0.8807970779778823, 0.11920292202211755, 2.061153618190204e-09}, tolerance);
}

TEST_CASE("scalar operands on either side", "[elementwise]") {
  Reference ref;
  check_values(ref.apply<int32_t, int32_t>(BP_OP_SUB, {{5, 1}}, scalar_attrs(BP_SCALAR_RHS, 2)),
               std::vector<int32_t>{3, -1});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_SUB, {{5, 1}}, scalar_attrs(BP_SCALAR_LHS, 2)),
               std::vector<int32_t>{-3, 1});
  check_values(ref.apply<double, double>(BP_OP_DIV, {{3, 1}}, scalar_attrs(BP_SCALAR_LHS, 1.5)),
               std::vector<double>{0.5, 1.5});
  check_values(ref.apply<float, float>(BP_OP_POW, {{3, -2}}, scalar_attrs(BP_SCALAR_RHS, 2)),
               std::vector<float>{9, 4});
  // The scalar converts to the tensor's dtype: 0.1 becomes the float 0.1f.
  check_values(ref.apply<float, float>(BP_OP_ADD, {{0.2f}}, scalar_attrs(BP_SCALAR_RHS, 0.1)),
               std::vector<float>{0.2f + 0.1f});
  check_values(ref.apply<uint8_t, int64_t>(BP_OP_LT, {{1, 2, 3}}, scalar_attrs(BP_SCALAR_RHS, 2)),
               std::vector<uint8_t>{1, 0, 0});
  check_values(ref.apply<uint8_t, int64_t>(BP_OP_LT, {{1, 2, 3}}, scalar_attrs(BP_SCALAR_LHS, 2)),
               std::vector<uint8_t>{0, 0, 1});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_MAXIMUM, {{-4, 9}}, scalar_attrs(BP_SCALAR_RHS, 0)),
               std::vector<int64_t>{0, 9});
}

TEST_CASE("broadcast inputs have stride 0", "[elementwise][strided]") {
  Reference ref;
  bp_plugin_tensor a = ref.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor row = ref.view<int32_t>({10, 20, 30}, {2, 3}, {0, 1});
  bp_plugin_tensor column = ref.view<int32_t>({100, 200}, {2, 3}, {1, 0});
  bp_plugin_tensor out = ref.empty(BP_INT32, {2, 3});
  ref.exec(BP_OP_ADD, {a, row}, out);
  check_values(ref.values<int32_t>(out), std::vector<int32_t>{11, 22, 33, 14, 25, 36});
  ref.exec(BP_OP_MUL, {column, row}, out);
  check_values(ref.values<int32_t>(out), std::vector<int32_t>{1000, 2000, 3000, 2000, 4000, 6000});
}

TEST_CASE("transposed inputs and strided outputs", "[elementwise][strided]") {
  Reference ref;
  // Storage [[1,2],[3,4],[5,6]] (3x2) read as its 2x3 transpose.
  bp_plugin_tensor t = ref.view<float>({1, 2, 3, 4, 5, 6}, {2, 3}, {1, 2});
  bp_plugin_tensor ones = ref.view<float>({1}, {2, 3}, {0, 0});
  // Output: every other element of a 14-float buffer, starting at element 1;
  // the gaps hold -9 and must stay untouched.
  bp_plugin_tensor out = ref.view<float>(std::vector<float>(14, -9), {2, 3}, {6, 2}, 1);
  ref.exec(BP_OP_SUB, {t, ones}, out);
  check_values(ref.values<float>(out), std::vector<float>{0, 2, 4, 1, 3, 5});
  check_values(ref.contents<float>(out.buffer, 14),
               std::vector<float>{-9, 0, -9, 2, -9, 4, -9, 1, -9, 3, -9, 5, -9, -9});
}

TEST_CASE("unary ops on a strided view", "[elementwise][strided]") {
  Reference ref;
  // Elements 0, 3, 6 of the storage.
  bp_plugin_tensor x = ref.view<int64_t>({-1, 9, 9, 2, 9, 9, -3}, {3}, {3});
  bp_plugin_tensor out = ref.empty(BP_INT64, {3});
  ref.exec(BP_OP_NEG, {x}, out);
  check_values(ref.values<int64_t>(out), std::vector<int64_t>{1, -2, 3});
}

TEST_CASE("rank-0 tensors are single elements", "[elementwise]") {
  Reference ref;
  bp_plugin_tensor a = ref.tensor<double>({}, {2.5});
  bp_plugin_tensor b = ref.tensor<double>({}, {4});
  bp_plugin_tensor out = ref.empty(BP_FLOAT64, {});
  ref.exec(BP_OP_MUL, {a, b}, out);
  check_values(ref.values<double>(out), std::vector<double>{10});
}

TEST_CASE("the output may be the very same view as an input", "[elementwise]") {
  Reference ref;
  bp_plugin_tensor a = ref.tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  bp_plugin_tensor b = ref.tensor<int32_t>({2, 2}, {10, 20, 30, 40});
  ref.exec(BP_OP_ADD, {a, b}, a);
  check_values(ref.values<int32_t>(a), std::vector<int32_t>{11, 22, 33, 44});
  ref.exec(BP_OP_ABS, {b}, b);
  check_values(ref.values<int32_t>(b), std::vector<int32_t>{10, 20, 30, 40});
}

TEST_CASE("zero-size tensors need no buffer", "[elementwise]") {
  Reference ref;
  bp_plugin_tensor a = dense_view(nullptr, BP_FLOAT32, {0, 3});
  bp_plugin_tensor out = dense_view(nullptr, BP_FLOAT32, {0, 3});
  CHECK(ref.run(BP_OP_ADD, {a, a}, out) == BP_OK);
  CHECK(ref.run(BP_OP_EXP, {a}, out) == BP_OK);
  bp_plugin_tensor out_i = dense_view(nullptr, BP_INT64, {0, 3});
  CHECK(ref.run(BP_OP_COPY, {a}, out_i) == BP_OK);
}

TEST_CASE("copy converts like a C cast", "[elementwise][copy]") {
  Reference ref;
  const std::vector<double> x = {2.7, -2.7, 0.5, -0.0, 100, -1};
  check_values(ref.apply<int32_t, double>(BP_OP_COPY, {x}), std::vector<int32_t>{2, -2, 0, 0, 100, -1});
  check_values(ref.apply<int64_t, double>(BP_OP_COPY, {x}), std::vector<int64_t>{2, -2, 0, 0, 100, -1});
  check_values(ref.apply<float, double>(BP_OP_COPY, {{0.1, 1e300, -2.5}}),
               std::vector<float>{0.1f, std::numeric_limits<float>::infinity(), -2.5f});
  check_values(ref.apply<double, float>(BP_OP_COPY, {{0.1f, -3.0f}}),
               std::vector<double>{static_cast<double>(0.1f), -3.0});
  check_values(ref.apply<float, int64_t>(BP_OP_COPY, {{3, -1, int64_t(1) << 40, 16777217}}),
               std::vector<float>{3, -1, 1099511627776.0f, 16777216.0f});
  check_values(ref.apply<int64_t, int32_t>(BP_OP_COPY, {{-5, INT32_MAX}}),
               std::vector<int64_t>{-5, INT32_MAX});
  // int64 to int32 keeps the low 32 bits (two's complement).
  check_values(ref.apply<int32_t, int64_t>(BP_OP_COPY, {{4294967297LL, -1, 2147483648LL}}),
               std::vector<int32_t>{1, -1, INT32_MIN});
  check_values(ref.apply<double, int32_t>(BP_OP_COPY, {{7, -8}}), std::vector<double>{7, -8});
}

TEST_CASE("copy to bool is x != 0, copy from bool gives 0 or 1", "[elementwise][copy]") {
  Reference ref;
  using B = uint8_t;
  check_values(ref.apply<B, double>(BP_OP_COPY, {{0.5, 0, -0.0, kNaN, -3}}),
               std::vector<B>{1, 0, 0, 1, 1});
  check_values(ref.apply<B, float>(BP_OP_COPY, {{1e-30f, 0}}), std::vector<B>{1, 0});
  check_values(ref.apply<B, int32_t>(BP_OP_COPY, {{0, 7, -1}}), std::vector<B>{0, 1, 1});
  check_values(ref.apply<B, int64_t>(BP_OP_COPY, {{int64_t(1) << 40, 0}}), std::vector<B>{1, 0});
  check_values(ref.apply<B, B>(BP_OP_COPY, {{0, 1}}), std::vector<B>{0, 1});
  check_values(ref.apply<float, B>(BP_OP_COPY, {{1, 0}}), std::vector<float>{1, 0});
  check_values(ref.apply<double, B>(BP_OP_COPY, {{1, 0}}), std::vector<double>{1, 0});
  check_values(ref.apply<int32_t, B>(BP_OP_COPY, {{1, 0}}), std::vector<int32_t>{1, 0});
  check_values(ref.apply<int64_t, B>(BP_OP_COPY, {{0, 1}}), std::vector<int64_t>{0, 1});
}

TEST_CASE("copy into a transposed view makes a transpose", "[elementwise][copy][strided]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  // The output's element [i][j] lives at storage index j * 2 + i.
  bp_plugin_tensor out = ref.view<int32_t>(std::vector<int32_t>(6, 0), {2, 3}, {1, 2});
  ref.exec(BP_OP_COPY, {x}, out);
  check_values(ref.contents<int32_t>(out.buffer, 6), std::vector<int32_t>{1, 4, 2, 5, 3, 6});
}

TEMPLATE_TEST_CASE("floor_divide and remainder are Python's // and %", "[elementwise]", float, double,
                   int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> a = {7, -7, 7, -7, 6, 0, -6};
  const std::vector<T> b = {2, 2, -2, -2, 3, 5, 4};
  check_values(ref.apply<T, T>(BP_OP_FLOOR_DIVIDE, {a, b}), std::vector<T>{3, -4, -4, 3, 2, 0, -2});
  check_values(ref.apply<T, T>(BP_OP_REMAINDER, {a, b}), std::vector<T>{1, 1, -1, -1, 0, 0, 2});
}

TEMPLATE_TEST_CASE("float floor_divide and remainder: fractions, signed zeros, zero divisors", "[elementwise]",
                   float, double) {
  Reference ref;
  using T = TestType;
  const std::vector<T> a = {T(-7.5), T(7.5), 4, -4, 1, 1, T(kInf)};
  const std::vector<T> b = {2, -2, -2, 2, 0, T(kInf), 3};
  check_values(ref.apply<T, T>(BP_OP_FLOOR_DIVIDE, {a, b}),
               std::vector<T>{-4, -4, -2, -2, T(kInf), 0, T(kInf)});
  const std::vector<T> r = ref.apply<T, T>(BP_OP_REMAINDER, {a, b});
  check_values(r, std::vector<T>{T(0.5), T(-0.5), 0, 0, T(kNaN), 1, T(kNaN)});
  // A zero remainder takes the divisor's sign.
  CHECK(std::signbit(r[2]));
  CHECK_FALSE(std::signbit(r[3]));
}

TEST_CASE("integer floor_divide and remainder by zero give 0, and MIN // -1 wraps", "[elementwise]") {
  Reference ref;
  const int32_t min32 = INT32_MIN;
  check_values(ref.apply<int32_t, int32_t>(BP_OP_FLOOR_DIVIDE, {{5, -5, min32, min32}, {0, 0, -1, 1}}),
               std::vector<int32_t>{0, 0, min32, min32});
  check_values(ref.apply<int32_t, int32_t>(BP_OP_REMAINDER, {{5, -5, min32, min32}, {0, 0, -1, 1}}),
               std::vector<int32_t>{0, 0, 0, 0});
  const int64_t min64 = INT64_MIN;
  check_values(ref.apply<int64_t, int64_t>(BP_OP_FLOOR_DIVIDE, {{min64, 9}, {-1, 0}}),
               std::vector<int64_t>{min64, 0});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_REMAINDER, {{min64, min64 + 1}, {-1, 2}}),
               std::vector<int64_t>{0, 1});
}

TEMPLATE_TEST_CASE("square", "[elementwise]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  check_values(ref.apply<T, T>(BP_OP_SQUARE, {{3, -4, 0, 1}}), std::vector<T>{9, 16, 0, 1});
}

TEST_CASE("integer square wraps around", "[elementwise]") {
  Reference ref;
  // 65536^2 = 2^32 wraps to 0; 46341^2 = 2147488281 = 2^31 + 4633.
  check_values(ref.apply<int32_t, int32_t>(BP_OP_SQUARE, {{65536, 46341}}),
               std::vector<int32_t>{0, INT32_MIN + 4633});
  check_values(ref.apply<int64_t, int64_t>(BP_OP_SQUARE, {{int64_t(1) << 32}}), std::vector<int64_t>{0});
}

TEMPLATE_TEST_CASE("sin and cos", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const T half_pi = T(1.5707963267948966);
  const std::vector<T> s = ref.apply<T, T>(BP_OP_SIN, {{0, half_pi, -half_pi}});
  const std::vector<T> c = ref.apply<T, T>(BP_OP_COS, {{0, half_pi}});
  CHECK(s[0] == 0);
  CHECK(s[1] == Approx(1));
  CHECK(s[2] == Approx(-1));
  CHECK(c[0] == 1);
  CHECK(std::fabs(c[1]) < 1e-6);
  const std::vector<T> special = ref.apply<T, T>(BP_OP_SIN, {{T(kNaN), T(kInf)}});
  CHECK(std::isnan(special[0]));
  CHECK(std::isnan(special[1]));
}

TEMPLATE_TEST_CASE("erf", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  // erf(0.5) and erf(-1.5) to 17 digits (Abramowitz and Stegun, table 7.1).
  const std::vector<T> e = ref.apply<T, T>(BP_OP_ERF, {{T(0.5), T(-1.5), T(0), T(-0.0), T(kInf), -T(kInf), T(kNaN)}});
  CHECK(e[0] == Approx(0.52049987781304654).epsilon(1e-6));
  CHECK(e[1] == Approx(-0.96610514647531073).epsilon(1e-6));
  CHECK(e[2] == 0);
  CHECK(e[3] == 0);
  CHECK(std::signbit(e[3]));  // odd: erf(-0) = -0
  CHECK(e[4] == 1);
  CHECK(e[5] == -1);
  CHECK(std::isnan(e[6]));
}

TEMPLATE_TEST_CASE("expm1, log1p and rsqrt", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  // Tiny arguments keep their digits (exp(x) - 1 would give 0 or 1e-8 +- an ulp of 1).
  const std::vector<T> m = ref.apply<T, T>(BP_OP_EXPM1, {{T(1e-10), T(1), -T(kInf), T(-0.0)}});
  CHECK(m[0] == Approx(1e-10).epsilon(1e-6));
  CHECK(m[1] == Approx(1.7182818284590452));
  CHECK(m[2] == -1);
  CHECK(std::signbit(m[3]));
  const std::vector<T> l = ref.apply<T, T>(BP_OP_LOG1P, {{T(1e-10), T(-1), T(-2), T(kInf)}});
  CHECK(l[0] == Approx(1e-10).epsilon(1e-6));
  CHECK(l[1] == -T(kInf));
  CHECK(std::isnan(l[2]));
  CHECK(l[3] == T(kInf));
  check_values(ref.apply<T, T>(BP_OP_RSQRT, {{T(4), T(0.25), T(0), T(-0.0), T(kInf)}}),
               std::vector<T>{T(0.5), T(2), T(kInf), -T(kInf), T(0)});
  CHECK(std::isnan(ref.apply<T, T>(BP_OP_RSQRT, {{T(-1)}})[0]));
}

TEMPLATE_TEST_CASE("floor, ceil and round (half to even) of floats", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const std::vector<T> x{T(-2.5), T(-1.5), T(-0.5), T(0.5), T(1.5), T(2.5), T(2.7), T(kInf)};
  check_values(ref.apply<T, T>(BP_OP_FLOOR, {x}), std::vector<T>{-3, -2, -1, 0, 1, 2, 2, T(kInf)});
  check_values(ref.apply<T, T>(BP_OP_CEIL, {x}), std::vector<T>{-2, -1, T(-0.0), 1, 2, 3, 3, T(kInf)});
  check_values(ref.apply<T, T>(BP_OP_ROUND, {x}), std::vector<T>{-2, -2, T(-0.0), 0, 2, 2, 3, T(kInf)});
  CHECK(std::signbit(ref.apply<T, T>(BP_OP_CEIL, {{T(-0.5)}})[0]));
  CHECK(std::isnan(ref.apply<T, T>(BP_OP_ROUND, {{T(kNaN)}})[0]));
}

TEMPLATE_TEST_CASE("sign", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const std::vector<T> s = ref.apply<T, T>(BP_OP_SIGN, {{T(-3), T(0.25), T(0), T(-0.0), -T(kInf), T(kNaN)}});
  CHECK(s[0] == -1);
  CHECK(s[1] == 1);
  CHECK(s[2] == 0);
  CHECK(s[3] == 0);
  CHECK_FALSE(std::signbit(s[3]));  // +0 for -0, as NumPy and PyTorch
  CHECK(s[4] == -1);
  CHECK(std::isnan(s[5]));
}

TEMPLATE_TEST_CASE("floor, ceil and round keep integers, sign gives -1, 0, 1", "[elementwise]", int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const std::vector<T> x{std::numeric_limits<T>::min(), -7, 0, 5, std::numeric_limits<T>::max()};
  for (bp_op op : {BP_OP_FLOOR, BP_OP_CEIL, BP_OP_ROUND}) check_values(ref.apply<T, T>(op, {x}), x);
  check_values(ref.apply<T, T>(BP_OP_SIGN, {x}), std::vector<T>{-1, -1, 0, 1, 1});
}

TEMPLATE_TEST_CASE("isnan and isinf write bool", "[elementwise]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> x{T(0), T(-0.0), T(1.5), std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min(),
                         T(kInf), -T(kInf), nan, -nan};
  check_values(ref.apply<uint8_t, T>(BP_OP_ISNAN, {x}), std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 1, 1});
  check_values(ref.apply<uint8_t, T>(BP_OP_ISINF, {x}), std::vector<uint8_t>{0, 0, 0, 0, 0, 1, 1, 0, 0});
}

TEST_CASE("isnan and isinf of the halves: every NaN payload, the infinities", "[elementwise][small-dtypes]") {
  Reference ref;
  // float16: 1, max 65504, inf, -inf, a quiet and a signalling NaN, -NaN;
  // bfloat16: 1, max, inf, -inf, NaNs alike.
  const std::vector<uint16_t> f16{0x3c00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00};
  const std::vector<uint16_t> bf16{0x3f80, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc0};
  for (auto [dtype, bits] : {std::pair{BP_FLOAT16, f16}, std::pair{BP_BFLOAT16, bf16}}) {
    INFO(dtype_name(dtype));
    const bp_plugin_tensor x = dense_view(ref.buffer(bits), dtype, {7});
    for (auto [op, expected] : {std::pair{BP_OP_ISNAN, std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1}},
                                std::pair{BP_OP_ISINF, std::vector<uint8_t>{0, 0, 1, 1, 0, 0, 0}}}) {
      bp_plugin_tensor out = ref.empty(BP_BOOL, {7});
      ref.exec(op, {x}, out);
      check_values(ref.values<uint8_t>(out), expected);
    }
  }
}
