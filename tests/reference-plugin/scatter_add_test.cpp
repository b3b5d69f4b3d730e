// SCATTER_ADD_ND: each index row adds its values into the output, repeated
// rows included; integers wrap, floats are summed like SUM.
#include <cmath>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

TEMPLATE_TEST_CASE("scatter_add_nd adds every row, repeated ones too", "[scatter][scatter_add]", float, double,
                   int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor out = ref.tensor<T>({3, 2}, {0, 1, 2, 3, 4, 5});
  // Row 2 named twice, row 1 never.
  bp_plugin_tensor rows = ref.tensor<int64_t>({3, 1}, {2, 0, 2});
  bp_plugin_tensor values = ref.tensor<T>({3, 2}, {10, 20, 30, 40, 50, 60});
  ref.exec(BP_OP_SCATTER_ADD_ND, {rows, values}, out);
  check_values(ref.values<T>(out), std::vector<T>{30, 41, 2, 3, 64, 85});
  // k = 2 with broadcast values (stride 0): (0, 1) twice and (1, 0) once.
  bp_plugin_tensor points = ref.tensor<int64_t>({3, 2}, {0, 1, 1, 0, 0, 1});
  bp_plugin_tensor seven = ref.view<T>({7}, {3}, {0});
  ref.exec(BP_OP_SCATTER_ADD_ND, {points, seven}, out);
  check_values(ref.values<T>(out), std::vector<T>{30, 55, 9, 3, 64, 85});
}

TEST_CASE("scatter_add_nd on integers wraps around", "[scatter][scatter_add]") {
  Reference ref;
  bp_plugin_tensor out = ref.tensor<int32_t>({2}, {INT32_MAX, INT32_MIN});
  bp_plugin_tensor rows = ref.tensor<int64_t>({3, 1}, {0, 1, 1});
  bp_plugin_tensor values = ref.tensor<int32_t>({3}, {1, -1, -1});
  ref.exec(BP_OP_SCATTER_ADD_ND, {rows, values}, out);
  check_values(ref.values<int32_t>(out), std::vector<int32_t>{INT32_MIN, INT32_MAX - 1});
}

TEST_CASE("scatter_add_nd sums floats exactly, whatever the order of the rows", "[scatter][scatter_add]") {
  Reference ref;
  // In float, (1e8 + 1) - 1e8 would be 0; the sum of the terms is 1.
  bp_plugin_tensor out = ref.tensor<float>({2}, {1e8f, 5});
  bp_plugin_tensor rows = ref.tensor<int64_t>({2, 1}, {0, 0});
  bp_plugin_tensor values = ref.tensor<float>({2}, {1, -1e8f});
  ref.exec(BP_OP_SCATTER_ADD_ND, {rows, values}, out);
  check_values(ref.values<float>(out), std::vector<float>{1, 5});
}

TEST_CASE("scatter_add_nd follows IEEE for NaN, infinities and signed zeros", "[scatter][scatter_add]") {
  Reference ref;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  bp_plugin_tensor out = ref.tensor<double>({4}, {1, inf, -0.0, 2});
  bp_plugin_tensor rows = ref.tensor<int64_t>({4, 1}, {0, 1, 2, 1});
  bp_plugin_tensor values = ref.tensor<double>({4}, {nan, 1, -0.0, -inf});
  ref.exec(BP_OP_SCATTER_ADD_ND, {rows, values}, out);
  const std::vector<double> got = ref.values<double>(out);
  check_values(got, std::vector<double>{nan, nan, 0, 2});  // inf + 1 - inf is NaN
  CHECK(std::signbit(got[2]));                               // -0 + -0 stays -0
}

TEST_CASE("scatter_add_nd checks its index and dtypes like scatter_nd", "[scatter][scatter_add][errors]") {
  Reference ref;
  bp_plugin_tensor data = ref.tensor<float>({3}, {0, 1, 2});
  bp_plugin_tensor bad = ref.tensor<int64_t>({2, 1}, {0, 3});
  bp_plugin_tensor values = ref.tensor<float>({2}, {9, 9});
  check_error(ref, ref.run(BP_OP_SCATTER_ADD_ND, {bad, values}, data), BP_ERR_INDEX, {"scatter_add_nd", "3"});
  check_values(ref.values<float>(data), std::vector<float>{0, 1, 2});
  bp_plugin_tensor none = ref.empty(BP_INT64, {0, 1});
  ref.exec(BP_OP_SCATTER_ADD_ND, {none, ref.empty(BP_FLOAT32, {0})}, data);
  check_values(ref.values<float>(data), std::vector<float>{0, 1, 2});
  bp_plugin_tensor flags = ref.tensor<uint8_t>({2}, {1, 0});
  bp_plugin_tensor bools = ref.tensor<uint8_t>({2}, {1, 1});
  bp_plugin_tensor rows = ref.tensor<int64_t>({2, 1}, {0, 1});
  check_error(ref, ref.run(BP_OP_SCATTER_ADD_ND, {rows, bools}, flags), BP_ERR_UNSUPPORTED,
              {"scatter_add_nd", "bool"});
}
