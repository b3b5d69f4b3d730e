// CUMSUM along the last axis: known values through strided inputs and
// permuted outputs, the int64 output of integer and bool inputs (wrapping),
// empty views; and every dtype against the reference.
#include <cstdint>
#include <limits>

#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

// Compensated running sums in float64 on both sides: float32 results may
// differ in the last bit, float64 ones by a few ulp of the terms' size.
Tolerance tolerance(int32_t dtype) {
  return table_tolerance(TestBound::running_sum, dtype);
}

}  // namespace

TEST_CASE("cumsum of a transposed int32 input into a column-major int64 output", "[scan]") {
  Buffers b(ocl(), 1);
  // x = [[1, 2, 3], [4, 5, 6]] stored column by column.
  const bp_plugin_tensor x = b.view<int32_t>({1, 4, 2, 5, 3, 6}, {2, 3}, {1, 2});
  const bp_plugin_tensor dense_out = b.empty(BP_INT64, {2, 3});
  b.exec(BP_OP_CUMSUM, {x}, dense_out);
  check_values(b.values<int64_t>(dense_out), std::vector<int64_t>{1, 3, 6, 4, 9, 15});
  // The same sums through output strides in the other order.
  const bp_plugin_tensor permuted = b.view<int64_t>(std::vector<int64_t>(6, -1), {2, 3}, {1, 2});
  b.exec(BP_OP_CUMSUM, {x}, permuted);
  check_values(b.contents<int64_t>(permuted.buffer, 6), std::vector<int64_t>{1, 4, 3, 9, 6, 15});
}

TEST_CASE("cumsum of integers and bool is int64 and wraps", "[scan]") {
  Buffers b(ocl());
  const int64_t max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  const int32_t max32 = std::numeric_limits<int32_t>::max();

  const bp_plugin_tensor out4 = b.empty(BP_INT64, {4});
  b.exec(BP_OP_CUMSUM, {b.tensor<uint8_t>({4}, {1, 0, 1, 1})}, out4);
  check_values(b.values<int64_t>(out4), std::vector<int64_t>{1, 1, 2, 3});
  // int32 terms do not wrap in an int64 sum.
  const bp_plugin_tensor out2 = b.empty(BP_INT64, {2});
  b.exec(BP_OP_CUMSUM, {b.tensor<int32_t>({2}, {max32, max32})}, out2);
  check_values(b.values<int64_t>(out2), std::vector<int64_t>{max32, int64_t{2} * max32});
  // int64 sums wrap around.
  const bp_plugin_tensor out3 = b.empty(BP_INT64, {3});
  b.exec(BP_OP_CUMSUM, {b.tensor<int64_t>({3}, {max, 1, 1})}, out3);
  check_values(b.values<int64_t>(out3), std::vector<int64_t>{max, min, min + 1});
}

TEST_CASE("cumsum of floats keeps the dtype", "[scan]") {
  Buffers b(ocl());
  const float nan = static_cast<float>(kNaN);
  const bp_plugin_tensor f32 = b.empty(BP_FLOAT32, {2, 3});
  b.exec(BP_OP_CUMSUM, {b.tensor<float>({2, 3}, {0.5f, 0.25f, -1, 2, nan, 1})}, f32);
  check_values(b.values<float>(f32), std::vector<float>{0.5f, 0.75f, -0.25f, 2, nan, nan});
  if (!supported(ocl(), BP_OP_CUMSUM, BP_FLOAT64, BP_FLOAT64)) return;  // no float64 on this device
  const bp_plugin_tensor f64 = b.empty(BP_FLOAT64, {4});
  b.exec(BP_OP_CUMSUM, {b.tensor<double>({4}, {1, kInf, -1, 2})}, f64);
  check_values(b.values<double>(f64), std::vector<double>{1, kInf, kInf, kInf});
}

TEST_CASE("cumsum of empty views writes nothing", "[scan]") {
  std::mt19937_64 rng(31);
  for (const Shape &shape : {Shape{3, 0}, Shape{0, 4}})
    check_against_reference(BP_OP_CUMSUM, attrs_with(), {random_tensor(dense(BP_INT32, shape), rng)},
                            dense(BP_INT64, shape), kExact, "empty " + shape_text(shape));
}

TEST_CASE("cumsum matches the reference for every dtype and layout", "[scan]") {
  std::mt19937_64 rng(32);
  struct Case {
    std::string name;
    View in, out;
  };
  const std::vector<Case> cases = {
      {"dense", dense(0, {3, 4, 5}), dense(0, {3, 4, 5})},
      {"transposed input", strided(0, {4, 3, 5}, {1, 20, 4}), dense(0, {4, 3, 5})},
      {"permuted output", dense(0, {4, 3, 5}), strided(0, {4, 3, 5}, {1, 20, 4}, 1)},
      {"broadcast input", strided(0, {3, 6}, {1, 0}), strided(0, {3, 6}, {12, 2}, 1)},
      {"one row", dense(0, {1, 1, 7}), dense(0, {1, 1, 7})},
      {"rank 1, long", dense(0, {1000}), dense(0, {1000})},
  };
  int device = 0;
  for (int32_t dtype : kAllTypes) {
    const int32_t out_dtype = bp_test::out_dtype(BP_OP_CUMSUM, dtype);
    const bool r = supported(ref(), BP_OP_CUMSUM, dtype, out_dtype);
    REQUIRE(supported(ocl(), BP_OP_CUMSUM, dtype, out_dtype) == r);
    if (!r) continue;
    for (const Case &c : cases) {
      check_against_reference(BP_OP_CUMSUM, attrs_with(), {random_tensor(with_dtype(c.in, dtype), rng)},
                              with_dtype(c.out, out_dtype), tolerance(dtype),
                              std::string("cumsum ") + dtype_name(dtype) + ", " + c.name, device);
      device = 1 - device;
    }
  }
}
