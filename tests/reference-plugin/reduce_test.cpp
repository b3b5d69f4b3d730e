// Reductions: SUM, MEAN, NORM, MAX, MIN, ARGMAX over one axis, several axes
// and all axes, with the tie and NaN rules of plugin.h.
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

// Reduces `in` into a fresh dense output of `out_shape` and returns its values.
template <class R>
std::vector<R> reduce(Reference &ref, int32_t op, const bp_plugin_tensor &in,
                      const Shape &out_shape) {
  bp_plugin_tensor out = ref.empty(dtype_of<R>::value, out_shape);
  ref.exec(op, {in}, out);
  return ref.values<R>(out);
}

// The dtype SUM writes for an input of type T.
template <class T>
using sum_type = typename std::conditional<std::is_floating_point<T>::value, T, int64_t>::type;

}  // namespace

TEMPLATE_TEST_CASE("sum over one axis, all axes, or none", "[reduce]", float, double, int32_t,
                   int64_t) {
  Reference ref;
  using T = TestType;
  using S = sum_type<T>;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(reduce<S>(ref, BP_OP_SUM, x, {1, 3}), std::vector<S>{5, 7, 9});
  check_values(reduce<S>(ref, BP_OP_SUM, x, {2, 1}), std::vector<S>{6, 15});
  check_values(reduce<S>(ref, BP_OP_SUM, x, {1, 1}), std::vector<S>{21});
  // No output extent is 1: nothing is reduced.
  check_values(reduce<S>(ref, BP_OP_SUM, x, {2, 3}), std::vector<S>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("sum of bool counts the true elements, as int64", "[reduce]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<uint8_t>({2, 3}, {1, 0, 1, 1, 1, 1});
  check_values(reduce<int64_t>(ref, BP_OP_SUM, x, {2, 1}), std::vector<int64_t>{2, 3});
  check_values(reduce<int64_t>(ref, BP_OP_SUM, x, {1, 1}), std::vector<int64_t>{5});
}

TEST_CASE("int32 sums do not overflow: they are int64", "[reduce]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<int32_t>({3}, {INT32_MAX, INT32_MAX, 2});
  check_values(reduce<int64_t>(ref, BP_OP_SUM, x, {1}), std::vector<int64_t>{4294967296LL});
}

TEST_CASE("float sums accumulate in double", "[reduce]") {
  Reference ref;
  // In float, 1e8 + 1 == 1e8, so a float accumulator would return 0.
  bp_plugin_tensor f = ref.tensor<float>({3}, {1e8f, 1.0f, -1e8f});
  check_values(reduce<float>(ref, BP_OP_SUM, f, {1}), std::vector<float>{1.0f});
  check_values(reduce<float>(ref, BP_OP_MEAN, f, {1}), std::vector<float>{1.0f / 3.0f});
  // Even float64 sums lose nothing here: 1 + 1e100 - 1e100 is 1, not 0.
  bp_plugin_tensor d = ref.tensor<double>({3}, {1.0, 1e100, -1e100});
  check_values(reduce<double>(ref, BP_OP_SUM, d, {1}), std::vector<double>{1.0});
}

TEMPLATE_TEST_CASE("mean and norm", "[reduce]", float, double) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(reduce<T>(ref, BP_OP_MEAN, x, {2, 1}), std::vector<T>{2, 5});
  check_values(reduce<T>(ref, BP_OP_MEAN, x, {1, 3}), std::vector<T>{T(2.5), T(3.5), T(4.5)});
  check_values(reduce<T>(ref, BP_OP_MEAN, x, {1, 1}), std::vector<T>{T(3.5)});
  bp_plugin_tensor y = ref.tensor<T>({2, 2}, {3, 4, -6, 8});
  check_values(reduce<T>(ref, BP_OP_NORM, y, {2, 1}), std::vector<T>{5, 10});
  check_values(reduce<T>(ref, BP_OP_NORM, y, {1, 2}), std::vector<T>{T(std::sqrt(45.0)), T(std::sqrt(80.0))});
  check_values(reduce<T>(ref, BP_OP_NORM, y, {1, 1}), std::vector<T>{T(std::sqrt(125.0))});
}

TEMPLATE_TEST_CASE("max and min", "[reduce]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 5, 3, 4, -2, 6});
  check_values(reduce<T>(ref, BP_OP_MAX, x, {2, 1}), std::vector<T>{5, 6});
  check_values(reduce<T>(ref, BP_OP_MAX, x, {1, 3}), std::vector<T>{4, 5, 6});
  check_values(reduce<T>(ref, BP_OP_MAX, x, {1, 1}), std::vector<T>{6});
  check_values(reduce<T>(ref, BP_OP_MIN, x, {2, 1}), std::vector<T>{1, -2});
  check_values(reduce<T>(ref, BP_OP_MIN, x, {1, 3}), std::vector<T>{1, -2, 3});
  check_values(reduce<T>(ref, BP_OP_MIN, x, {1, 1}), std::vector<T>{-2});
}

TEST_CASE("max and min of extreme integers are exact", "[reduce]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<int64_t>({3}, {INT64_MAX - 1, INT64_MAX, INT64_MIN});
  check_values(reduce<int64_t>(ref, BP_OP_MAX, x, {1}), std::vector<int64_t>{INT64_MAX});
  check_values(reduce<int64_t>(ref, BP_OP_MIN, x, {1}), std::vector<int64_t>{INT64_MIN});
  check_values(reduce<int64_t>(ref, BP_OP_ARGMAX, x, {1}), std::vector<int64_t>{1});
}

TEMPLATE_TEST_CASE("max, min and sum propagate NaN", "[reduce]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, nan, 3, 4, 5, 6});
  check_values(reduce<T>(ref, BP_OP_MAX, x, {2, 1}), std::vector<T>{nan, 6});
  check_values(reduce<T>(ref, BP_OP_MIN, x, {2, 1}), std::vector<T>{nan, 4});
  check_values(reduce<T>(ref, BP_OP_SUM, x, {2, 1}), std::vector<T>{nan, 15});
  check_values(reduce<T>(ref, BP_OP_MAX, x, {1, 3}), std::vector<T>{4, nan, 6});
}

namespace {

// op over the [2, 4] tensor of these values: per row, per column (where ties
// keep row 0) and over all axes (the C-order position in the whole tensor).
template <class T>
void check_arg_reduce(bp_op op, std::vector<T> values, std::vector<int64_t> per_row, std::vector<int64_t> per_column,
                      int64_t overall) {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<T>({2, 4}, values);
  check_values(reduce<int64_t>(ref, op, x, {2, 1}), per_row);
  check_values(reduce<int64_t>(ref, op, x, {1, 4}), per_column);
  check_values(reduce<int64_t>(ref, op, x, {1, 1}), std::vector<int64_t>{overall});
}

}  // namespace

TEMPLATE_TEST_CASE("argmax points at the first maximum", "[reduce][argmax]", float, double,
                   int32_t, int64_t) {
  check_arg_reduce<TestType>(BP_OP_ARGMAX, {3, 7, 7, 1, -5, -5, -9, -5}, {1, 0}, {0, 0, 0, 0}, 1);
}

TEMPLATE_TEST_CASE("argmax counts NaN as the maximum", "[reduce][argmax]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  bp_plugin_tensor x = ref.tensor<T>({2, 4}, {1, nan, 5, nan, T(kInf), 2, nan, 3});
  check_values(reduce<int64_t>(ref, BP_OP_ARGMAX, x, {2, 1}), std::vector<int64_t>{1, 2});
}

TEST_CASE("argmax over several axes numbers them in C order", "[reduce][argmax]") {
  Reference ref;
  // Shape [2, 2, 3], reduce axes 1 and 2: positions 0..5 within each batch.
  bp_plugin_tensor x =
      ref.tensor<int32_t>({2, 2, 3}, {0, 1, 2, 9, 4, 5,  /* batch 0: max 9 at (1, 0) */
                                      7, 1, 8, 8, 2, 3}); /* batch 1: first 8 at (0, 2) */
  check_values(reduce<int64_t>(ref, BP_OP_ARGMAX, x, {2, 1, 1}), std::vector<int64_t>{3, 2});
  // Reduce axes 0 and 2 instead: positions (batch, column) in C order, per row.
  check_values(reduce<int64_t>(ref, BP_OP_ARGMAX, x, {1, 2, 1}), std::vector<int64_t>{5, 0});
}

TEST_CASE("reductions read strided inputs and write strided outputs", "[reduce][strided]") {
  Reference ref;
  // Storage [[1,2],[3,4],[5,6]] (3x2) read as its 2x3 transpose [[1,3,5],[2,4,6]].
  bp_plugin_tensor t = ref.view<double>({1, 2, 3, 4, 5, 6}, {2, 3}, {1, 2});
  check_values(reduce<double>(ref, BP_OP_SUM, t, {2, 1}), std::vector<double>{9, 12});
  check_values(reduce<int64_t>(ref, BP_OP_ARGMAX, t, {1, 3}), std::vector<int64_t>{1, 1, 1});
  // A broadcast input: one value seen 4 times.
  bp_plugin_tensor b = ref.view<double>({2.5}, {4}, {0});
  check_values(reduce<double>(ref, BP_OP_SUM, b, {1}), std::vector<double>{10});
  // Output: every other element of a 5-element buffer.
  bp_plugin_tensor out = ref.view<double>({-1, -1, -1, -1, -1}, {2, 1}, {2, 1});
  ref.exec(BP_OP_MAX, {t}, out);
  check_values(ref.contents<double>(out.buffer, 5), std::vector<double>{5, -1, 6, -1, -1});
}

TEST_CASE("sum, mean and norm of nothing", "[reduce][zero-size]") {
  Reference ref;
  bp_plugin_tensor f = dense_view(nullptr, BP_FLOAT64, {2, 0});
  check_values(reduce<double>(ref, BP_OP_SUM, f, {2, 1}), std::vector<double>{0, 0});
  check_values(reduce<double>(ref, BP_OP_MEAN, f, {2, 1}), std::vector<double>{kNaN, kNaN});
  check_values(reduce<double>(ref, BP_OP_NORM, f, {1, 1}), std::vector<double>{0});
  bp_plugin_tensor i = dense_view(nullptr, BP_INT32, {0});
  check_values(reduce<int64_t>(ref, BP_OP_SUM, i, {1}), std::vector<int64_t>{0});
  // Kept empty axis: the output is empty too, and MAX is fine with that.
  bp_plugin_tensor out = dense_view(nullptr, BP_FLOAT64, {1, 0});
  CHECK(ref.run(BP_OP_MAX, {f}, out) == BP_OK);
}

TEST_CASE("max of nothing is refused, not invented", "[reduce][zero-size][errors]") {
  Reference ref;
  bp_plugin_tensor f = dense_view(nullptr, BP_FLOAT32, {0});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {1});
  check_error(ref, ref.run(BP_OP_MAX, {f}, out), BP_ERR_SHAPE, {"max", "empty"});
  bp_plugin_tensor arg = ref.empty(BP_INT64, {1});
  check_error(ref, ref.run(BP_OP_ARGMAX, {f}, arg), BP_ERR_SHAPE, {"argmax"});
}

TEST_CASE("reduction shapes and dtypes are checked", "[reduce][errors]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  check_error(ref, ref.run(BP_OP_SUM, {x}, ref.empty(BP_FLOAT32, {2, 2})), BP_ERR_SHAPE,
              {"sum", "[2, 3]", "[2, 2]"});
  check_error(ref, ref.run(BP_OP_SUM, {x}, ref.empty(BP_FLOAT32, {1})), BP_ERR_SHAPE,
              {"sum", "[2, 3]", "[1]"});
  check_error(ref, ref.run(BP_OP_SUM, {x}, ref.empty(BP_FLOAT64, {1, 1})), BP_ERR_UNSUPPORTED,
              {"sum", "float32", "float64"});
  bp_plugin_tensor i = ref.tensor<int32_t>({2}, {1, 2});
  check_error(ref, ref.run(BP_OP_SUM, {i}, ref.empty(BP_INT32, {1})), BP_ERR_UNSUPPORTED,
              {"sum", "int32"});
  check_error(ref, ref.run(BP_OP_MEAN, {i}, ref.empty(BP_INT32, {1})), BP_ERR_UNSUPPORTED,
              {"mean"});
  check_error(ref, ref.run(BP_OP_ARGMAX, {i}, ref.empty(BP_INT32, {1})), BP_ERR_UNSUPPORTED,
              {"argmax"});
  bp_plugin_tensor b = ref.tensor<uint8_t>({2}, {1, 0});
  check_error(ref, ref.run(BP_OP_MAX, {b}, ref.empty(BP_BOOL, {1})), BP_ERR_UNSUPPORTED,
              {"max", "bool"});
}

TEMPLATE_TEST_CASE("argmin points at the first minimum", "[reduce][argmin]", float, double, int32_t, int64_t) {
  check_arg_reduce<TestType>(BP_OP_ARGMIN, {3, 1, 1, 7, -5, -5, -9, -9}, {1, 2}, {1, 1, 1, 1}, 6);
}

TEMPLATE_TEST_CASE("argmin counts NaN as the minimum", "[reduce][argmin]", float, double) {
  Reference ref;
  using T = TestType;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  bp_plugin_tensor x = ref.tensor<T>({2, 4}, {1, nan, -5, nan, T(-kInf), 2, nan, 3});
  check_values(reduce<int64_t>(ref, BP_OP_ARGMIN, x, {2, 1}), std::vector<int64_t>{1, 2});
}

TEMPLATE_TEST_CASE("prod", "[reduce][prod]", float, double) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 2, 3, -4, T(0.5), 2});
  check_values(reduce<T>(ref, BP_OP_PROD, x, {2, 1}), std::vector<T>{6, -4});
  check_values(reduce<T>(ref, BP_OP_PROD, x, {1, 3}), std::vector<T>{-4, 1, 6});
  check_values(reduce<T>(ref, BP_OP_PROD, x, {1, 1}), std::vector<T>{-24});
}

TEST_CASE("integer prod is int64 and wraps, and the product of nothing is 1", "[reduce][prod]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<int32_t>({3}, {65536, 65536, 3});
  // 2^32 * 3 fits int64: no int32 overflow.
  check_values(reduce<int64_t>(ref, BP_OP_PROD, x, {1}), std::vector<int64_t>{int64_t(3) << 32});
  bp_plugin_tensor big = ref.tensor<int64_t>({2}, {int64_t(1) << 32, int64_t(1) << 32});
  check_values(reduce<int64_t>(ref, BP_OP_PROD, big, {1}), std::vector<int64_t>{0});
  bp_plugin_tensor none = ref.tensor<float>({0}, {});
  check_values(reduce<float>(ref, BP_OP_PROD, none, {1}), std::vector<float>{1});
}
