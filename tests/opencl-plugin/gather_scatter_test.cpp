// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: known values with k = 1 and
// k = 2, strided views, N = 0, index rows out of range (skipped, never
// outside the views), repeated rows that all add (the atomics of every
// dtype); and every dtype against the reference.
#include <cstdint>

#include "opencl_test.hpp"

using namespace ocl_test;

TEST_CASE("gather_nd picks rows (k = 1) and elements (k = 2)", "[indexing]") {
  Buffers b(ocl(), 1);
  // data = [[1, 2], [3, 4], [5, 6]] stored column by column.
  const bp_plugin_tensor data = b.view<float>({1, 3, 5, 2, 4, 6}, {3, 2}, {1, 3});
  const bp_plugin_tensor rows = b.empty(BP_FLOAT32, {3, 2});
  b.exec(BP_OP_GATHER_ND, {data, b.tensor<int64_t>({3, 1}, {2, 0, 2})}, rows);
  check_values(b.values<float>(rows), std::vector<float>{5, 6, 1, 2, 5, 6});

  const bp_plugin_tensor elements = b.empty(BP_FLOAT32, {3});
  b.exec(BP_OP_GATHER_ND, {data, b.tensor<int64_t>({3, 2}, {2, 1, 0, 0, 1, 0})}, elements);
  check_values(b.values<float>(elements), std::vector<float>{6, 1, 3});

  // An index read through strides: the transposed [2, 3] storage of [[1, 0], [1, 1], [0, 1]].
  const bp_plugin_tensor index_t = b.view<int64_t>({1, 1, 0, 0, 1, 1}, {3, 2}, {1, 3});
  b.exec(BP_OP_GATHER_ND, {data, index_t}, elements);
  check_values(b.values<float>(elements), std::vector<float>{3, 4, 2});
}

TEST_CASE("scatter_nd writes rows (k = 1) and elements (k = 2) in place", "[indexing]") {
  Buffers b(ocl());
  const bp_plugin_tensor out = b.tensor<int64_t>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  b.exec(BP_OP_SCATTER_ND, {b.tensor<int64_t>({2, 1}, {3, 1}), b.tensor<int64_t>({2, 2}, {70, 80, 30, 40})},
         out);
  check_values(b.values<int64_t>(out), std::vector<int64_t>{1, 2, 30, 40, 5, 6, 70, 80});

  // Into a column-major bool output: out[0, 1] and out[2, 0] become 1.
  const bp_plugin_tensor flags = b.view<uint8_t>({0, 0, 0, 0, 0, 0}, {3, 2}, {1, 3});
  b.exec(BP_OP_SCATTER_ND, {b.tensor<int64_t>({2, 2}, {0, 1, 2, 0}), b.tensor<uint8_t>({2}, {1, 1})},
         flags);
  check_values(b.values<uint8_t>(flags), std::vector<uint8_t>{0, 1, 0, 0, 1, 0});
}

TEST_CASE("scatter_add_nd adds every row, repeated ones too, in every dtype", "[indexing]") {
  Buffers b(ocl());
  // Row 3 named three times, row 0 never; int64 wraps past its maximum.
  const bp_plugin_tensor rows = b.tensor<int64_t>({4, 1}, {3, 1, 3, 3});
  const bp_plugin_tensor wide = b.tensor<int64_t>({4, 2}, {1, 2, 3, 4, 5, 6, 7, INT64_MAX});
  b.exec(BP_OP_SCATTER_ADD_ND, {rows, b.tensor<int64_t>({4, 2}, {10, 1, 20, 2, 30, 3, 40, 4})}, wide);
  check_values(b.values<int64_t>(wide), std::vector<int64_t>{1, 2, 23, 6, 5, 6, 87, INT64_MIN + 7});
  const bp_plugin_tensor narrow = b.tensor<int32_t>({4}, {0, 0, 0, INT32_MAX});
  b.exec(BP_OP_SCATTER_ADD_ND, {rows, b.tensor<int32_t>({4}, {1, 2, 3, 4})}, narrow);
  check_values(b.values<int32_t>(narrow), std::vector<int32_t>{0, 2, 0, INT32_MIN + 7});
  // Floats through the compare-and-swap loops; k = 2 into a column-major output.
  const bp_plugin_tensor points = b.tensor<int64_t>({3, 2}, {0, 1, 2, 0, 0, 1});
  const bp_plugin_tensor f32 = b.view<float>({0, 0, 0, 0, 0, 0}, {3, 2}, {1, 3});
  b.exec(BP_OP_SCATTER_ADD_ND, {points, b.tensor<float>({3}, {0.5f, 2, 0.25f})}, f32);
  check_values(b.values<float>(f32), std::vector<float>{0, 0.75f, 0, 0, 2, 0});
  const bp_plugin_tensor f64 = b.tensor<double>({3, 2}, {1, 1, 1, 1, 1, 1});
  b.exec(BP_OP_SCATTER_ADD_ND, {points, b.tensor<double>({3}, {0.5, 2, 0.25})}, f64);
  check_values(b.values<double>(f64), std::vector<double>{1, 1.75, 1, 1, 3, 1});
}

TEST_CASE("gather_nd and scatter_nd of no index rows do nothing", "[indexing]") {
  Buffers b(ocl());
  const bp_plugin_tensor data = b.tensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const bp_plugin_tensor none = b.tensor<int64_t>({0, 1}, {});
  b.exec(BP_OP_GATHER_ND, {data, none}, b.empty(BP_INT32, {0, 3}));
  b.exec(BP_OP_SCATTER_ND, {none, b.tensor<int32_t>({0, 3}, {})}, data);
  check_values(b.values<int32_t>(data), std::vector<int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("index rows out of range are skipped and nothing outside the views changes", "[indexing]") {
  Buffers b(ocl());
  // The views sit inside larger buffers, between guard elements of -1.
  const bp_plugin_tensor data = b.view<int32_t>({-1, 1, 2, 3, 4, -1}, {2, 2}, {2, 1}, 1);
  const bp_plugin_tensor index = b.tensor<int64_t>({4, 1}, {1, -1, 2, 0});
  const bp_plugin_tensor rows = b.view<int32_t>({-1, 0, 0, 9, 9, 9, 9, 0, 0, -1}, {4, 2}, {2, 1}, 1);
  b.exec(BP_OP_GATHER_ND, {data, index}, rows);
  const std::vector<int32_t> got = b.contents<int32_t>(rows.buffer, 10);
  check_values(std::vector<int32_t>(got.begin(), got.begin() + 3), std::vector<int32_t>{-1, 3, 4});
  check_values(std::vector<int32_t>(got.begin() + 7, got.end()), std::vector<int32_t>{1, 2, -1});

  const bp_plugin_tensor values = b.tensor<int32_t>({4, 2}, {10, 11, 20, 21, 30, 31, 40, 41});
  b.exec(BP_OP_SCATTER_ND, {index, values}, data);
  check_values(b.contents<int32_t>(data.buffer, 6), std::vector<int32_t>{-1, 40, 41, 10, 11, -1});
}

TEST_CASE("gather_nd and scatter_nd match the reference for every dtype", "[indexing]") {
  std::mt19937_64 rng(41);
  // Indexed [4, 3, 5]; k = 1 and k = 2 index rows with no repeats (a
  // repeated scatter target may hold either value).
  const View indexed = strided(0, {4, 3, 5}, {1, 20, 4}, 2);
  const Tensor index1 = tensor_of(dense(BP_INT64, {3, 1}), std::vector<int64_t>{2, 0, 3});
  const Tensor index2 = tensor_of(dense(BP_INT64, {4, 2}), std::vector<int64_t>{3, 2, 0, 0, 1, 2, 3, 0});
  struct Case {
    std::string name;
    const Tensor &index;
    View rows;
  };
  const std::vector<Case> cases = {
      {"k = 1", index1, dense(0, {3, 3, 5})},
      {"k = 1, strided rows", index1, strided(0, {3, 3, 5}, {1, 15, 3}, 1)},
      {"k = 2", index2, dense(0, {4, 5})},
  };
  int device = 0;
  for (int32_t dtype : kAllTypes) {
    const bool r = supported(ref(), BP_OP_GATHER_ND, dtype, dtype);
    REQUIRE(supported(ocl(), BP_OP_GATHER_ND, dtype, dtype) == r);
    REQUIRE(supported(ocl(), BP_OP_SCATTER_ND, dtype, dtype) == r);
    if (!r) continue;
    const Tensor data = random_tensor(with_dtype(indexed, dtype), rng);
    for (const Case &c : cases) {
      const std::string what = std::string(dtype_name(dtype)) + ", " + c.name;
      check_against_reference(BP_OP_GATHER_ND, attrs_with(), {data, c.index}, with_dtype(c.rows, dtype), kExact,
                              "gather_nd " + what, device);
      // The output starts as the harness's sentinel bytes on both sides.
      check_against_reference(BP_OP_SCATTER_ND, attrs_with(),
                              {c.index, random_tensor(with_dtype(c.rows, dtype), rng)},
                              with_dtype(indexed, dtype), kExact, "scatter_nd " + what, device);
      device = 1 - device;
    }
  }
}
