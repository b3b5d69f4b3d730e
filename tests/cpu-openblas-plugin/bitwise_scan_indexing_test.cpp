// The operators of ABI 1.1 on cpu-openblas. Known values: bitwise on
// integers and bool, CUMSUM along the last axis of strided views (into
// int64 for integers), GATHER_ND and SCATTER_ND with their index errors and
// empty indices, and tensors large enough to be split over the thread pool
// (where duplicate SCATTER_ND rows must never race). The comparisons with
// the reference on every dtype and layout are families_test.cpp's.
#include <limits>

#include "cpu_vs_reference.hpp"

using namespace cpu_test;

namespace {

// C-order strides of `shape` with the axes stored innermost-first in the
// order `order` gives (order[0] is the fastest-moving axis).
Shape permuted_strides(const Shape &shape, const std::vector<size_t> &order) {
  Shape strides(shape.size());
  int64_t stride = 1;
  for (size_t axis : order) {
    strides[axis] = stride;
    stride *= shape[axis];
  }
  return strides;
}

}  // namespace

TEMPLATE_TEST_CASE("bitwise and, or, xor and not on integers", "[bitwise]", int32_t, int64_t) {
  using T = TestType;
  Session s("cpu-openblas");
  const T min = std::numeric_limits<T>::min();
  const std::vector<T> a = {12, -1, min, 0};
  const std::vector<T> b = {10, 7, -1, 5};
  check_values(s.apply<T, T>(BP_OP_BITWISE_AND, {a, b}), std::vector<T>{8, 7, min, 0});
  check_values(s.apply<T, T>(BP_OP_BITWISE_OR, {a, b}), std::vector<T>{14, -1, -1, 5});
  check_values(s.apply<T, T>(BP_OP_BITWISE_XOR, {a, b}), std::vector<T>{6, -8, T(~min), 5});
  check_values(s.apply<T, T>(BP_OP_BITWISE_NOT, {a}), std::vector<T>{-13, 0, T(~min), -1});
}

TEST_CASE("bitwise operators on bool are logical and write only 0 or 1", "[bitwise]") {
  Session s("cpu-openblas");
  using B = uint8_t;
  const std::vector<B> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  check_values(s.apply<B, B>(BP_OP_BITWISE_AND, {a, b}), std::vector<B>{0, 0, 0, 1});
  check_values(s.apply<B, B>(BP_OP_BITWISE_OR, {a, b}), std::vector<B>{0, 1, 1, 1});
  check_values(s.apply<B, B>(BP_OP_BITWISE_XOR, {a, b}), std::vector<B>{0, 1, 1, 0});
  check_values(s.apply<B, B>(BP_OP_BITWISE_NOT, {a}), std::vector<B>{1, 1, 0, 0});
  bp_op_attrs rhs = attrs();
  rhs.scalar_mode = BP_SCALAR_RHS;
  rhs.scalar = 1;
  check_values(s.apply<B, B>(BP_OP_BITWISE_XOR, {a}, rhs), std::vector<B>{1, 1, 0, 0});
}

TEST_CASE("bitwise operators are not claimed for float dtypes", "[bitwise]") {
  Session s("cpu-openblas");
  for (bp_op op : {BP_OP_BITWISE_AND, BP_OP_BITWISE_OR, BP_OP_BITWISE_XOR, BP_OP_BITWISE_NOT}) {
    INFO(op_name(op));
    for (bp_dtype dtype : kFloatTypes) CHECK_FALSE(supported(s.plugin(), op, dtype, dtype));
    for (bp_dtype dtype : {BP_INT32, BP_INT64, BP_BOOL}) CHECK(supported(s.plugin(), op, dtype, dtype));
  }
  const bp_plugin_tensor x = s.tensor<float>({2}, {1, 2});
  check_error(s, s.run(BP_OP_BITWISE_NOT, {x}, s.empty(BP_FLOAT32, {2})), BP_ERR_UNSUPPORTED, {"bitwise_not"});
}

TEST_CASE("cumsum runs along the last axis of a transposed input into a transposed output", "[scan]") {
  Session s("cpu-openblas");
  // in is the transpose of [[1, 2, 3], [4, 5, 6]]: lines (1, 4), (2, 5), (3, 6).
  const bp_plugin_tensor in = s.view<double>({1, 2, 3, 4, 5, 6}, {3, 2}, {1, 3});
  const bp_plugin_tensor out = s.view<double>(std::vector<double>(6, 0), {3, 2}, {1, 3});
  s.exec(BP_OP_CUMSUM, {in}, out);
  check_values(s.values<double>(out), std::vector<double>{1, 5, 2, 7, 3, 9});
}

TEST_CASE("cumsum into an output whose axes are stored in another order", "[scan]") {
  Session s("cpu-openblas", {{"threads", "4"}});
  for (const Shape &shape : {Shape{2, 3, 4}, Shape{40, 30, 50}}) {
    INFO("shape " << shape_text(shape));
    const int64_t count = numel(shape), length = shape.back();
    std::vector<int64_t> data(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) data[static_cast<size_t>(i)] = (i * 7919) % 1000 - 500;
    const bp_plugin_tensor in = s.tensor<int64_t>(shape, data);
    // The last axis outermost in memory, the first innermost.
    const bp_plugin_tensor out = s.view<int64_t>(std::vector<int64_t>(static_cast<size_t>(count), 0), shape,
                                                 permuted_strides(shape, {0, 1, 2}));
    s.exec(BP_OP_CUMSUM, {in}, out);
    std::vector<int64_t> expected(data.size());
    for (int64_t i = 0; i < count; ++i) {
      const size_t at = static_cast<size_t>(i);
      expected[at] = data[at] + (i % length == 0 ? 0 : expected[at - 1]);
    }
    check_values(s.values<int64_t>(out), expected);
  }
}

TEST_CASE("cumsum of int32 and bool writes int64 and wraps", "[scan]") {
  Session s("cpu-openblas");
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const bp_plugin_tensor in = s.tensor<int32_t>({3}, {max32, max32, -5});
  const bp_plugin_tensor out = s.empty(BP_INT64, {3});
  s.exec(BP_OP_CUMSUM, {in}, out);
  check_values(s.values<int64_t>(out), std::vector<int64_t>{max32, 2 * int64_t(max32), 2 * int64_t(max32) - 5});

  const int64_t max64 = std::numeric_limits<int64_t>::max();
  const bp_plugin_tensor big = s.tensor<int64_t>({2}, {max64, 1});
  const bp_plugin_tensor wrapped = s.empty(BP_INT64, {2});
  s.exec(BP_OP_CUMSUM, {big}, wrapped);
  check_values(s.values<int64_t>(wrapped), std::vector<int64_t>{max64, std::numeric_limits<int64_t>::min()});

  const bp_plugin_tensor flags = s.tensor<uint8_t>({2, 3}, {1, 0, 1, 1, 1, 1});
  const bp_plugin_tensor counts = s.empty(BP_INT64, {2, 3});
  s.exec(BP_OP_CUMSUM, {flags}, counts);
  check_values(s.values<int64_t>(counts), std::vector<int64_t>{1, 1, 2, 1, 2, 3});
}

TEST_CASE("cumsum of floats in place, and of empty lines", "[scan]") {
  Session s("cpu-openblas");
  const bp_plugin_tensor x = s.tensor<float>({2, 3}, {1, 2, 3, 0.5f, -1, 4});
  s.exec(BP_OP_CUMSUM, {x}, x);
  check_values(s.values<float>(x), std::vector<float>{1, 3, 6, 0.5f, -0.5f, 3.5f});
  s.exec(BP_OP_CUMSUM, {s.empty(BP_FLOAT64, {3, 0})}, s.empty(BP_FLOAT64, {3, 0}));
  s.exec(BP_OP_CUMSUM, {s.empty(BP_INT32, {0, 4})}, s.empty(BP_INT64, {0, 4}));
}

TEST_CASE("gather_nd picks rows (k = 1), sub-rows (k = 2) and elements (k = rank)", "[gather]") {
  Session s("cpu-openblas");
  const bp_plugin_tensor data = s.tensor<int32_t>({4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
  const bp_plugin_tensor rows = s.empty(BP_INT32, {3, 3});
  s.exec(BP_OP_GATHER_ND, {data, s.tensor<int64_t>({3, 1}, {2, 0, 2})}, rows);
  check_values(s.values<int32_t>(rows), std::vector<int32_t>{20, 21, 22, 0, 1, 2, 20, 21, 22});

  // data [2, 3, 2] read through a permuted layout; the index is transposed too.
  std::vector<double> storage(12);
  const Shape shape = {2, 3, 2}, strides = permuted_strides(shape, {1, 2, 0});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 2; ++k)
        storage[static_cast<size_t>(i * strides[0] + j * strides[1] + k * strides[2])] = double(100 * i + 10 * j + k);
  const bp_plugin_tensor cube = s.view<double>(storage, shape, strides);
  // index [[1, 2], [0, 1], [1, 0]] stored column by column.
  const bp_plugin_tensor index = s.view<int64_t>({1, 0, 1, 2, 1, 0}, {3, 2}, {1, 3});
  const bp_plugin_tensor pairs = s.empty(BP_FLOAT64, {3, 2});
  s.exec(BP_OP_GATHER_ND, {cube, index}, pairs);
  check_values(s.values<double>(pairs), std::vector<double>{120, 121, 10, 11, 100, 101});

  const bp_plugin_tensor elements = s.empty(BP_INT32, {2});
  s.exec(BP_OP_GATHER_ND, {data, s.tensor<int64_t>({2, 2}, {3, 1, 0, 2})}, elements);
  check_values(s.values<int32_t>(elements), std::vector<int32_t>{31, 2});
}

TEST_CASE("scatter_nd writes the named rows and keeps the others", "[scatter]") {
  Session s("cpu-openblas");
  const bp_plugin_tensor out = s.tensor<int64_t>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  s.exec(BP_OP_SCATTER_ND, {s.tensor<int64_t>({2, 1}, {3, 1}), s.tensor<int64_t>({2, 2}, {-1, -2, -3, -4})}, out);
  check_values(s.values<int64_t>(out), std::vector<int64_t>{0, 1, -3, -4, 4, 5, -1, -2});

  // k = 2 into a bool output [2, 2, 3] through a transposed layout.
  const Shape shape = {2, 2, 3};
  const bp_plugin_tensor flags =
      s.view<uint8_t>(std::vector<uint8_t>(12, 0), shape, permuted_strides(shape, {0, 1, 2}));
  s.exec(BP_OP_SCATTER_ND, {s.tensor<int64_t>({2, 2}, {1, 0, 0, 1}), s.tensor<uint8_t>({2, 3}, {1, 0, 1, 0, 1, 1})},
         flags);
  check_values(s.values<uint8_t>(flags), std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0});
}

TEST_CASE("an index outside its axis is BP_ERR_INDEX and nothing is written", "[gather][scatter]") {
  Session s("cpu-openblas");
  const bp_plugin_tensor data = s.tensor<float>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const bp_plugin_tensor out = s.tensor<float>({2, 2}, {9, 9, 9, 9});
  for (int64_t bad : {int64_t(4), int64_t(-1), std::numeric_limits<int64_t>::min()}) {
    INFO("index " << bad);
    const bp_plugin_tensor index = s.tensor<int64_t>({2, 1}, {1, bad});
    check_error(s, s.run(BP_OP_GATHER_ND, {data, index}, out), BP_ERR_INDEX, {"gather_nd", "extent 4"});
    check_values(s.values<float>(out), std::vector<float>{9, 9, 9, 9});
    check_error(s, s.run(BP_OP_SCATTER_ND, {index, s.tensor<float>({2, 2}, {-1, -1, -1, -1})}, data), BP_ERR_INDEX,
                {"scatter_nd", "extent 4"});
    check_values(s.values<float>(data), std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
  }
  // The second column is checked against the second axis.
  const bp_plugin_tensor grid = s.tensor<int32_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  check_error(s, s.run(BP_OP_GATHER_ND, {grid, s.tensor<int64_t>({1, 2}, {1, 3})}, s.empty(BP_INT32, {1})),
              BP_ERR_INDEX, {"axis 1", "extent 3"});
}

TEST_CASE("an empty index (N = 0) gathers nothing and scatters nothing", "[gather][scatter]") {
  Session s("cpu-openblas");
  const bp_plugin_tensor data = s.tensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  const bp_plugin_tensor none = s.empty(BP_INT64, {0, 1});
  s.exec(BP_OP_GATHER_ND, {data, none}, s.empty(BP_INT32, {0, 2}));
  s.exec(BP_OP_SCATTER_ND, {none, s.empty(BP_INT32, {0, 2})}, data);
  check_values(s.values<int32_t>(data), std::vector<int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("large gathers and scatters over the thread pool, duplicate rows included", "[gather][scatter]") {
  Session s("cpu-openblas", {{"threads", "4"}});
  const int64_t extent = 64, width = 3000, rows = 200;
  std::vector<int32_t> data(static_cast<size_t>(extent * width)), index(static_cast<size_t>(rows));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>(i);
  for (int64_t n = 0; n < rows; ++n) index[static_cast<size_t>(n)] = static_cast<int32_t>((n * 37) % extent);
  const std::vector<int64_t> index64(index.begin(), index.end());

  const bp_plugin_tensor table = s.tensor<int32_t>({extent, width}, data);
  const bp_plugin_tensor picked = s.empty(BP_INT32, {rows, width});
  s.exec(BP_OP_GATHER_ND, {table, s.tensor<int64_t>({rows, 1}, index64)}, picked);
  std::vector<int32_t> expected(static_cast<size_t>(rows * width));
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t j = 0; j < width; ++j)
      expected[static_cast<size_t>(n * width + j)] = data[static_cast<size_t>(index[static_cast<size_t>(n)] * width + j)];
  check_values(s.values<int32_t>(picked), expected);

  // Every output row is named by several index rows (200 rows into 64):
  // each element ends up holding the value of one of them, whole rows
  // unchanged in between.
  std::vector<int32_t> values(static_cast<size_t>(rows * width));
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t j = 0; j < width; ++j) values[static_cast<size_t>(n * width + j)] = static_cast<int32_t>(n);
  const bp_plugin_tensor target = s.tensor<int32_t>({extent, width}, std::vector<int32_t>(data.size(), -1));
  s.exec(BP_OP_SCATTER_ND, {s.tensor<int64_t>({rows, 1}, index64), s.tensor<int32_t>({rows, width}, values)}, target);
  const std::vector<int32_t> got = s.values<int32_t>(target);
  int64_t wrong = 0;
  for (int64_t r = 0; r < extent; ++r)
    for (int64_t j = 0; j < width; ++j) {
      const int32_t n = got[static_cast<size_t>(r * width + j)];
      if (n < 0 || n >= rows || index[static_cast<size_t>(n)] != r) ++wrong;
    }
  CHECK(wrong == 0);
}
