// Known values for the operators of 1.1's bitwise, scan, gather and scatter
// families: the specification the other backends are compared against.
#include <cstdint>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

TEMPLATE_TEST_CASE("bitwise and, or, xor, not on integers", "[bitwise]", int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  const T min = std::numeric_limits<T>::min();
  const std::vector<T> a = {12, -1, min, 0};
  const std::vector<T> b = {10, 7, -1, 5};
  check_values(ref.apply<T, T>(BP_OP_BITWISE_AND, {a, b}), std::vector<T>{8, 7, min, 0});
  check_values(ref.apply<T, T>(BP_OP_BITWISE_OR, {a, b}), std::vector<T>{14, -1, -1, 5});
  check_values(ref.apply<T, T>(BP_OP_BITWISE_XOR, {a, b}), std::vector<T>{6, -8, ~min, 5});
  check_values(ref.apply<T, T>(BP_OP_BITWISE_NOT, {a}), std::vector<T>{-13, 0, ~min, -1});
}

TEST_CASE("bitwise operators on bool are logical and keep 0 or 1", "[bitwise]") {
  Reference ref;
  using B = uint8_t;
  const std::vector<B> a = {0, 0, 1, 1};
  const std::vector<B> b = {0, 1, 0, 1};
  check_values(ref.apply<B, B>(BP_OP_BITWISE_AND, {a, b}), std::vector<B>{0, 0, 0, 1});
  check_values(ref.apply<B, B>(BP_OP_BITWISE_OR, {a, b}), std::vector<B>{0, 1, 1, 1});
  check_values(ref.apply<B, B>(BP_OP_BITWISE_XOR, {a, b}), std::vector<B>{0, 1, 1, 0});
  check_values(ref.apply<B, B>(BP_OP_BITWISE_NOT, {a}), std::vector<B>{1, 1, 0, 0});
}

TEST_CASE("bitwise with a scalar operand", "[bitwise]") {
  Reference ref;
  bp_op_attrs attrs = default_attrs();
  attrs.scalar_mode = BP_SCALAR_RHS;
  attrs.scalar = 6;
  check_values(ref.apply<int32_t, int32_t>(BP_OP_BITWISE_AND, {{3, 4, 7}}, attrs),
               std::vector<int32_t>{2, 4, 6});
}

TEST_CASE("cumsum runs along the last axis of strided views", "[scan]") {
  Reference ref;
  // in is the transpose of [[1, 2, 3], [4, 5, 6]]: rows (1, 4), (2, 5), (3, 6).
  bp_plugin_tensor in = ref.view<double>({1, 2, 3, 4, 5, 6}, {3, 2}, {1, 3});
  // out is written through a transposed layout too.
  bp_plugin_tensor out = ref.view<double>(std::vector<double>(6, 0), {3, 2}, {1, 3});
  ref.exec(BP_OP_CUMSUM, {in}, out);
  check_values(ref.values<double>(out), std::vector<double>{1, 5, 2, 7, 3, 9});
}

TEST_CASE("cumsum of integers and bool writes int64, wrapping", "[scan]") {
  Reference ref;
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  bp_plugin_tensor in = ref.tensor<int32_t>({3}, {max32, max32, -5});
  bp_plugin_tensor out = ref.empty(BP_INT64, {3});
  ref.exec(BP_OP_CUMSUM, {in}, out);
  check_values(ref.values<int64_t>(out),
               std::vector<int64_t>{max32, 2 * int64_t(max32), 2 * int64_t(max32) - 5});
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  bp_plugin_tensor big = ref.tensor<int64_t>({2}, {max64, 1});
  bp_plugin_tensor wrapped = ref.empty(BP_INT64, {2});
  ref.exec(BP_OP_CUMSUM, {big}, wrapped);
  check_values(ref.values<int64_t>(wrapped),
               std::vector<int64_t>{max64, std::numeric_limits<int64_t>::min()});
  bp_plugin_tensor flags = ref.tensor<uint8_t>({2, 3}, {1, 0, 1, 1, 1, 1});
  bp_plugin_tensor counts = ref.empty(BP_INT64, {2, 3});
  ref.exec(BP_OP_CUMSUM, {flags}, counts);
  check_values(ref.values<int64_t>(counts), std::vector<int64_t>{1, 1, 2, 1, 2, 3});
}

TEST_CASE("float32 cumsum rounds each exact prefix once", "[scan]") {
  Reference ref;
  // 1 + 2^-24 + 2^-24 is 1 + 2^-23 exactly; adding in float32 step by step
  // would round each partial sum back to 1.
  const float tiny = 1.0f / 16777216.0f;
  bp_plugin_tensor in = ref.tensor<float>({3}, {1.0f, tiny, tiny});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {3});
  ref.exec(BP_OP_CUMSUM, {in}, out);
  check_values(ref.values<float>(out), std::vector<float>{1.0f, 1.0f, 1.0f + 2 * tiny});
}

TEST_CASE("gather_nd reads the rows an index names", "[gather]") {
  Reference ref;
  // data [3, 2] = [[0, 1], [2, 3], [4, 5]]
  bp_plugin_tensor data = ref.tensor<float>({3, 2}, {0, 1, 2, 3, 4, 5});
  bp_plugin_tensor rows = ref.tensor<int64_t>({4, 1}, {2, 0, 2, 1});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {4, 2});
  ref.exec(BP_OP_GATHER_ND, {data, rows}, out);
  check_values(ref.values<float>(out), std::vector<float>{4, 5, 0, 1, 4, 5, 2, 3});
  // k = 2 picks single elements: (1, 0) and (2, 1).
  bp_plugin_tensor points = ref.tensor<int64_t>({2, 2}, {1, 0, 2, 1});
  bp_plugin_tensor picked = ref.empty(BP_FLOAT32, {2});
  ref.exec(BP_OP_GATHER_ND, {data, points}, picked);
  check_values(ref.values<float>(picked), std::vector<float>{2, 5});
  // A transposed data view: data^T [2, 3]; row 1 is (1, 3, 5).
  bp_plugin_tensor dataT = ref.view<int32_t>({0, 1, 2, 3, 4, 5}, {2, 3}, {1, 2});
  bp_plugin_tensor one = ref.tensor<int64_t>({1, 1}, {1});
  bp_plugin_tensor row = ref.empty(BP_INT32, {1, 3});
  ref.exec(BP_OP_GATHER_ND, {dataT, one}, row);
  check_values(ref.values<int32_t>(row), std::vector<int32_t>{1, 3, 5});
}

TEST_CASE("scatter_nd writes the named rows and keeps the others", "[scatter]") {
  Reference ref;
  bp_plugin_tensor out = ref.tensor<int64_t>({3, 2}, {0, 1, 2, 3, 4, 5});
  bp_plugin_tensor rows = ref.tensor<int64_t>({2, 1}, {2, 0});
  bp_plugin_tensor values = ref.tensor<int64_t>({2, 2}, {-1, -2, -3, -4});
  ref.exec(BP_OP_SCATTER_ND, {rows, values}, out);
  check_values(ref.values<int64_t>(out), std::vector<int64_t>{-3, -4, 2, 3, -1, -2});
  // k = 2 with broadcast values (stride 0): elements (0, 1) and (1, 0) become 9.
  bp_plugin_tensor points = ref.tensor<int64_t>({2, 2}, {0, 1, 1, 0});
  bp_plugin_tensor nine = ref.view<int64_t>({9}, {2}, {0});
  ref.exec(BP_OP_SCATTER_ND, {points, nine}, out);
  check_values(ref.values<int64_t>(out), std::vector<int64_t>{-3, 9, 9, 3, -1, -2});
}

TEST_CASE("gather_nd and scatter_nd with no index rows do nothing", "[gather][scatter]") {
  Reference ref;
  bp_plugin_tensor data = ref.tensor<double>({2}, {1, 2});
  bp_plugin_tensor none = ref.empty(BP_INT64, {0, 1});
  bp_plugin_tensor out = ref.empty(BP_FLOAT64, {0});
  ref.exec(BP_OP_GATHER_ND, {data, none}, out);
  ref.exec(BP_OP_SCATTER_ND, {none, out}, data);
  check_values(ref.values<double>(data), std::vector<double>{1, 2});
}

TEST_CASE("an index outside its axis is BP_ERR_INDEX and writes nothing", "[gather][scatter][errors]") {
  Reference ref;
  bp_plugin_tensor data = ref.tensor<float>({3, 2}, {0, 1, 2, 3, 4, 5});
  bp_plugin_tensor bad = ref.tensor<int64_t>({2, 1}, {1, 3});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {2, 2});
  check_error(ref, ref.run(BP_OP_GATHER_ND, {data, bad}, out), BP_ERR_INDEX, {"gather_nd", "3"});
  bp_plugin_tensor negative = ref.tensor<int64_t>({2, 1}, {0, -1});
  bp_plugin_tensor values = ref.tensor<float>({2, 2}, {9, 9, 9, 9});
  check_error(ref, ref.run(BP_OP_SCATTER_ND, {negative, values}, data), BP_ERR_INDEX,
              {"scatter_nd", "-1"});
  check_values(ref.values<float>(data), std::vector<float>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("gather and scatter check the index's dtype and the shapes", "[gather][scatter][errors]") {
  Reference ref;
  bp_plugin_tensor data = ref.tensor<float>({3, 2}, {0, 1, 2, 3, 4, 5});
  bp_plugin_tensor int32_index = ref.tensor<int32_t>({1, 1}, {0});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {1, 2});
  check_error(ref, ref.run(BP_OP_GATHER_ND, {data, int32_index}, out), BP_ERR_DTYPE, {"int64"});
  bp_plugin_tensor index = ref.tensor<int64_t>({1, 1}, {0});
  bp_plugin_tensor wrong = ref.empty(BP_FLOAT32, {1, 3});
  check_error(ref, ref.run(BP_OP_GATHER_ND, {data, index}, wrong), BP_ERR_SHAPE);
  bp_plugin_tensor too_deep = ref.tensor<int64_t>({1, 3}, {0, 0, 0});
  check_error(ref, ref.run(BP_OP_GATHER_ND, {data, too_deep}, out), BP_ERR_SHAPE);
  bp_plugin_tensor doubles = ref.tensor<double>({1, 2}, {1, 1});
  check_error(ref, ref.run(BP_OP_SCATTER_ND, {index, doubles}, data), BP_ERR_DTYPE);
}
