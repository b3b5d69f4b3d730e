// FILL, ARANGE and the random streams against the reference, into dense,
// strided and transposed outputs, small and large (threaded).
#include "cpu_vs_reference.hpp"

using namespace cpu_test;

namespace {

const Shape kShapes[] = {{}, {0, 5}, {7}, {6, 5, 4}, {400, 300}};

}  // namespace

TEST_CASE("fill converts the scalar like COPY, for every dtype", "[creation]") {
  Pair pair;
  for (bp_dtype dtype : kAllTypes)
    for (double value : {2.5, -3.0, 0.0, 1.0})
      for (const Shape &shape : kShapes)
        for (const Layout &out : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " fill " << value << ", shape " << shape_text(shape) << ", out " << out.name);
          bp_op_attrs a = attrs();
          a.scalar = value;
          pair.check(BP_OP_FILL, a, {}, dtype, out, default_tolerance(dtype));
        }
}

TEST_CASE("arange counts in C order of the output, for every numeric dtype", "[creation]") {
  Pair pair;
  for (bp_dtype dtype : kNumericTypes)
    for (const auto &start_step : {std::pair<double, double>{-2.5, 0.75}, {10, -1}, {0, 1}})
      for (const Shape &shape : kShapes)
        for (const Layout &out : output_layouts(shape)) {
          INFO(dtype_name(dtype) << " arange " << start_step.first << " step " << start_step.second << ", shape "
                                 << shape_text(shape) << ", out " << out.name);
          bp_op_attrs a = attrs();
          a.scalar = start_step.first;
          a.scalar2 = start_step.second;
          pair.check(BP_OP_ARANGE, a, {}, dtype, out, default_tolerance(dtype));
        }
}

TEST_CASE("random_uniform and random_normal draw the reference's stream", "[creation]") {
  Pair pair;
  for (bp_op op : {BP_OP_RANDOM_UNIFORM, BP_OP_RANDOM_NORMAL})
    for (bp_dtype dtype : kFloatTypes)
      for (uint64_t seed : {uint64_t(0), uint64_t(42), ~uint64_t(0)})
        for (const Shape &shape : kShapes)
          for (const Layout &out : output_layouts(shape)) {
            INFO("op " << op << ", " << dtype_name(dtype) << ", seed " << seed << ", shape " << shape_text(shape)
                       << ", out " << out.name);
            bp_op_attrs a = attrs();
            a.scalar = op == BP_OP_RANDOM_UNIFORM ? -1.0 : 1.0;
            a.scalar2 = op == BP_OP_RANDOM_UNIFORM ? 3.0 : 2.0;
            a.seed = seed;
            pair.check(op, a, {}, dtype, out, default_tolerance(dtype));
          }
}
