// Reductions against the reference: every op and dtype, over each axis, two
// axes and all axes, of contiguous and strided inputs, into strided outputs,
// with sizes that use every work-group size the plugin picks.
#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

const std::vector<bp_op> kReductions = ops_in(BP_OP_FAMILY_REDUCE);

// Compensated sums on both sides, in a different order: the last bit of a
// float32 result (rounded once from float64) may differ, and float64 sums a
// few ulp of the terms' size.
Tolerance tolerance(int32_t dtype) {
  return table_tolerance(TestBound::running_sum, dtype);
}

// The output of reducing `in_shape` over the axes in `reduced`: extent 1
// there; dense, or with every stride doubled when `strided_out`.
View reduced_spec(int32_t dtype, const std::vector<int64_t> &in_shape,
                  const std::vector<int> &reduced, bool strided_out) {
  std::vector<int64_t> shape = in_shape;
  for (int d : reduced) shape[static_cast<size_t>(d)] = 1;
  View s = dense(dtype, shape);
  if (!strided_out) return s;
  Shape strides = s.layout.strides;
  for (auto &st : strides) st *= 2;
  return strided(dtype, shape, strides, 1);
}

void check_reductions(const View &in_spec, const std::vector<std::vector<int>> &axis_sets,
                      std::mt19937_64 &rng, const std::string &what) {
  int device = 0;
  for (int32_t op : kReductions)
    for (int32_t dtype : kAllTypes) {
      const int32_t out_dtype = bp_test::out_dtype(op, dtype);
      const bool r = supported(ref(), op, dtype, out_dtype);
      REQUIRE(supported(ocl(), op, dtype, out_dtype) == r);
      if (!r) continue;
      const Tensor x = random_tensor(with_dtype(in_spec, dtype), rng);
      for (const auto &axes : axis_sets)
        for (bool strided_out : {false, true}) {
          std::string axes_text;
          for (int a : axes) axes_text += std::to_string(a) + " ";
          check_against_reference(op, attrs_with(), {x},
                                  reduced_spec(out_dtype, in_spec.layout.shape, axes, strided_out),
                                  tolerance(dtype),
                                  what + ": " + std::string(op_name(op)) + " " + dtype_name(dtype) +
                                      " over axes " + axes_text,
                                  device);
          device = 1 - device;
        }
    }
}

}  // namespace

TEST_CASE("reductions over each axis, two axes and all axes match the reference", "[reduce]") {
  std::mt19937_64 rng(11);
  check_reductions(dense(0, {3, 4, 5}), {{0}, {1}, {2}, {0, 2}, {0, 1, 2}}, rng, "dense [3,4,5]");
}

TEST_CASE("reductions of strided and broadcast inputs match the reference", "[reduce]") {
  std::mt19937_64 rng(12);
  // Transposed: axes in reverse memory order.
  check_reductions(strided(0, {4, 3, 5}, {1, 20, 4}), {{0}, {2}, {0, 1, 2}}, rng, "transposed");
  // A broadcast axis (stride 0) reduced and kept.
  check_reductions(strided(0, {3, 6}, {0, 2}, 1), {{0}, {1}, {0, 1}}, rng, "broadcast");
  // Rank 0: nothing is reduced.
  check_reductions(strided(0, {}, {}, 1), {{}}, rng, "rank 0");
}

TEST_CASE("long reductions use whole work-groups and still match", "[reduce]") {
  std::mt19937_64 rng(13);
  // 100 and 5000 elements per output select the 16- and 128-wide groups.
  check_reductions(dense(0, {3, 100}), {{1}, {0, 1}}, rng, "[3,100]");
  check_reductions(dense(0, {5000}), {{0}}, rng, "[5000]");
}

TEST_CASE("SUM, MEAN and NORM of nothing are 0, NaN and 0", "[reduce]") {
  std::mt19937_64 rng(14);
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_BOOL}) {
    const Tensor x = random_tensor(dense(dtype, {3, 0}), rng);
    for (int32_t op : {BP_OP_SUM, BP_OP_MEAN, BP_OP_NORM}) {
      const int32_t out_dtype = bp_test::out_dtype(op, dtype);
      if (!supported(ocl(), op, dtype, out_dtype)) continue;
      check_against_reference(op, attrs_with(), {x}, dense(out_dtype, {3, 1}), kExact,
                              "empty op " + std::to_string(op) + " " + dtype_name(dtype));
    }
  }
  const Bytes mean = run_on(ocl(), 0, BP_OP_MEAN, attrs_with(),
                            {random_tensor(dense(BP_FLOAT32, {2, 0}), rng)},
                            dense(BP_FLOAT32, {2, 1}));
  CHECK(std::isnan(get<float>(mean, 0)));
  CHECK(std::isnan(get<float>(mean, 1)));
}

TEST_CASE("MAX, MIN and ARGMAX propagate NaN and ARGMAX finds the first maximum", "[reduce]") {
  const double nan = std::nan("");
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64}) {
    // Rows: a NaN late, two NaNs, ties of the maximum, infinities.
    const std::vector<double> values = {1, 5, 2, nan, 3,   nan, 1,   nan, 9, 9,
                                        4, 7, 7, 1,   7,   -HUGE_VAL, 0, HUGE_VAL, 2, HUGE_VAL};
    const Tensor x = tensor_of(dense(dtype, {4, 5}), values);
    for (int32_t op : {BP_OP_MAX, BP_OP_MIN, BP_OP_ARGMAX, BP_OP_SUM}) {
      const int32_t out_dtype = bp_test::out_dtype(op, dtype);
      check_against_reference(op, attrs_with(), {x}, dense(out_dtype, {4, 1}), kExact,
                              "NaN rows op " + std::to_string(op) + " " + dtype_name(dtype));
      check_against_reference(op, attrs_with(), {x}, dense(out_dtype, {1, 5}), kExact,
                              "NaN columns op " + std::to_string(op) + " " + dtype_name(dtype));
    }
    const Bytes argmax = run_on(ocl(), 1, BP_OP_ARGMAX, attrs_with(), {x}, dense(BP_INT64, {4, 1}));
    CHECK(get<int64_t>(argmax, 0) == 3);
    CHECK(get<int64_t>(argmax, 1) == 0);
    CHECK(get<int64_t>(argmax, 2) == 1);
    CHECK(get<int64_t>(argmax, 3) == 2);
  }
}

TEST_CASE("LOGSUMEXP of NaN, infinities and empty sets matches the reference", "[reduce]") {
  const double nan = std::nan(""), inf = HUGE_VAL;
  std::mt19937_64 rng(16);
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64}) {
    // Rows: a NaN among infinities; +inf among numbers; nothing but -inf;
    // numbers far beyond exp's range. The columns mix them again.
    const std::vector<double> values = {inf,  nan, -inf,  1,     inf,  2,    -inf,  -inf,
                                        -inf, -inf, -inf, -inf,  1000, 999,  -1000, 0};
    const Tensor x = tensor_of(dense(dtype, {4, 4}), values);
    check_against_reference(BP_OP_LOGSUMEXP, attrs_with(), {x}, dense(dtype, {4, 1}), tolerance(dtype),
                            std::string("rows, ") + dtype_name(dtype));
    check_against_reference(BP_OP_LOGSUMEXP, attrs_with(), {x}, dense(dtype, {1, 4}), tolerance(dtype),
                            std::string("columns, ") + dtype_name(dtype), 1);
    const Bytes none = run_on(ocl(), 0, BP_OP_LOGSUMEXP, attrs_with(),
                              {random_tensor(dense(dtype, {2, 0}), rng)}, dense(dtype, {2, 1}));
    CHECK(element(dtype, none, 0) == -HUGE_VAL);
    CHECK(element(dtype, none, 1) == -HUGE_VAL);
  }
}

TEST_CASE("integer sums wrap around in 64 bits", "[reduce]") {
  std::mt19937_64 rng(15);
  const Tensor x = random_tensor(dense(BP_INT64, {4, 300}), rng, Values::full);
  check_against_reference(BP_OP_SUM, attrs_with(), {x}, dense(BP_INT64, {4, 1}), kExact,
                          "full-range int64 sum");
  check_against_reference(BP_OP_SUM, attrs_with(), {x}, dense(BP_INT64, {1, 1}), kExact,
                          "full-range int64 sum of all");
}
