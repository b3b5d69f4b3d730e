// FILL, ARANGE and the random operators of the CUDA plugin against the
// reference plugin: one seed gives the same numbers on every backend. FILL,
// ARANGE and RANDOM_UNIFORM are exact (the plugin is built without fused
// multiply-add); RANDOM_NORMAL goes through CUDA's log/cos/sqrt, which may
// differ from the C library's in the last bits.
#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

const Shape kShapes[] = {{7, 5}, {}, {0, 4}, {3, 4, 5}, {1000, 1001}};

}  // namespace

TEST_CASE("cuda: fill writes the converted scalar like the reference", "[cuda][creation]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  for (bp_dtype dtype : kAllTypes) {
    for (double value : {2.75, -1.0, 0.0, std::numeric_limits<double>::infinity(), 1e10}) {
      if (!is_float(dtype) && std::fabs(value) > 1e9) continue;  // out of range: unspecified
      for (const Shape &shape : kShapes) {
        for (const Layout &layout : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " " << value << ", shape " << shape_text(shape) << ", " << layout.name);
          bp_op_attrs a = attrs();
          a.scalar = value;
          pair.check(BP_OP_FILL, a, {}, dtype, layout, kExact);
        }
      }
    }
  }
}

TEST_CASE("cuda: arange gives exactly the reference's values", "[cuda][creation]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  const std::pair<double, double> ranges[] = {{0, 1}, {-3.5, 0.1}, {10, -0.3}, {1e6, 1.0 / 3}};
  for (bp_dtype dtype : kNumericTypes) {
    for (const auto &range : ranges) {
      for (const Shape &shape : kShapes) {
        for (const Layout &layout : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " from " << range.first << " step " << range.second << ", shape "
                                 << shape_text(shape) << ", " << layout.name);
          bp_op_attrs a = attrs();
          a.scalar = range.first;
          a.scalar2 = range.second;
          pair.check(BP_OP_ARANGE, a, {}, dtype, layout, kExact);
        }
      }
    }
  }
}

TEST_CASE("cuda: random_uniform draws exactly the reference's stream", "[cuda][creation]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  for (bp_dtype dtype : kFloatTypes) {
    for (uint64_t seed : {uint64_t(0), uint64_t(42), ~uint64_t(0)}) {
      for (const Shape &shape : kShapes) {
        for (const Layout &layout : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " seed " << seed << ", shape " << shape_text(shape) << ", " << layout.name);
          bp_op_attrs a = attrs();
          a.scalar = -2;
          a.scalar2 = 5;
          a.seed = seed;
          pair.check(BP_OP_RANDOM_UNIFORM, a, {}, dtype, layout, kExact);
        }
      }
    }
  }
}

TEST_CASE("cuda: random_normal draws the reference's stream", "[cuda][creation]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  for (bp_dtype dtype : kFloatTypes) {
    // Absolute slack for values near 0, where cos() is near a zero crossing.
    // Halves: float32 draws whose last bits may differ, each rounded once
    // to the half: a step of it apart at most.
    const Tolerance tol = table_tolerance(TestBound::cuda_normal, dtype);
    for (uint64_t seed : {uint64_t(1), uint64_t(123456789)}) {
      for (const Shape &shape : kShapes) {
        for (const Layout &layout : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " seed " << seed << ", shape " << shape_text(shape) << ", " << layout.name);
          bp_op_attrs a = attrs();
          a.scalar = 0.5;
          a.scalar2 = 2;
          a.seed = seed;
          pair.check(BP_OP_RANDOM_NORMAL, a, {}, dtype, layout, tol);
        }
      }
    }
  }
}
