// Reductions against the reference: every op and dtype, each axis, pairs of
// axes and all axes, strided and broadcast inputs, empty sets, rank 0, and
// shapes large enough for every schedule (per output, chunked, blocked)
// and for the thread pool.
#include "cpu_vs_reference.hpp"

using namespace cpu_test;

namespace {

const std::vector<bp_op> kReductions = ops_in(BP_OP_FAMILY_REDUCE);

// Float sums differ by rounding only: the reference adds exactly
// (compensated), cpu-openblas in double with several accumulators.
// LOGSUMEXP's sum of exp(x - m) is of terms at most 1, whose rounding moves
// the log by as much absolutely.
// VAR: Welford's update here, two compensated passes there; the mean's
// rounding (an epsilon of |x| <= 3) moves squared deviations of up to 36,
// so the float64 results agree absolutely on that scale, not relatively
// where the deviations cancel.
Tolerance tolerance(bp_op op, bp_dtype out, int64_t count) {
  if (out == BP_FLOAT64 && (op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM || op == BP_OP_LOGSUMEXP))
    return table_tolerance(TestBound::compensated_sum, out, op == BP_OP_MEAN ? 1.0 : static_cast<double>(count));
  if (out == BP_FLOAT64 && op == BP_OP_VAR) return table_tolerance(TestBound::compensated_sum, out, 36.0);
  return default_tolerance(out);
}

void check_reductions(Pair &pair, std::mt19937_64 &rng, const Shape &shape, const std::vector<Layout> &layouts) {
  for (bp_op op : kReductions) {
    for (bp_dtype dtype : kAllTypes) {
      if (!defined_for(op, dtype)) continue;
      for (const std::vector<bool> &reduce : axis_subsets(shape.size())) {
        Shape out_shape = shape;
        int64_t count = 1;
        for (size_t d = 0; d < shape.size(); ++d)
          if (reduce[d]) {
            count *= shape[d];
            out_shape[d] = 1;
          }
        // The core never asks for MAX, MIN or ARGMAX of nothing.
        if (count == 0 && numel(out_shape) > 0 && op != BP_OP_SUM && op != BP_OP_MEAN && op != BP_OP_NORM &&
            op != BP_OP_LOGSUMEXP && op != BP_OP_VAR)
          continue;
        for (const Layout &layout : layouts) {
          std::string axes;
          for (size_t d = 0; d < reduce.size(); ++d)
            if (reduce[d]) axes += std::to_string(d);
          INFO(op_name(op) << ", " << dtype_name(dtype) << ", shape " << shape_text(shape) << " (" << layout.name
                     << "), reduced axes {" << axes << "}");
          // NaN and infinities only in small inputs, where they do not swamp every result.
          const Values v = numel(shape) > 1000 ? Values::small : Values::general;
          const bp_dtype out = out_dtype(op, dtype);
          pair.check(op, attrs(), {random_tensor(dtype, layout, rng, v)}, out, dense(out_shape),
                     tolerance(op, out, count));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("reductions over every axis set match the reference on small tensors", "[reduce]") {
  Pair pair;
  std::mt19937_64 rng(11);
  for (const Shape &shape : {Shape{4, 5, 6}, Shape{7, 1, 3}, Shape{9}}) {
    std::vector<bool> middle(shape.size(), false);
    middle[shape.size() / 2] = true;
    check_reductions(pair, rng, shape, {dense(shape), transposed(shape), spaced(shape), broadcast(shape, middle)});
  }
}

TEST_CASE("reductions of rank 0 and empty tensors match the reference", "[reduce]") {
  Pair pair;
  std::mt19937_64 rng(12);
  for (const Shape &shape : {Shape{}, Shape{0, 4}, Shape{3, 0}, Shape{0}})
    check_reductions(pair, rng, shape, {dense(shape), spaced(shape)});
}

// Large enough for the thread pool and for every schedule: few outputs of
// long reductions (chunked), leading-axis reductions (blocked), and many
// outputs reduced one by one. The transposed layouts swap the schedules.
TEST_CASE("large reductions of few long sets (chunked) match the reference", "[reduce][sweep]") {
  Pair pair;
  std::mt19937_64 rng(13);
  for (const Shape &shape : {Shape{2, 140001}})
    check_reductions(pair, rng, shape, {dense(shape), transposed(shape)});
}

TEST_CASE("large reductions over leading and trailing axes match the reference", "[reduce]") {
  Pair pair;
  std::mt19937_64 rng(14);
  for (const Shape &shape : {Shape{256, 200}, Shape{20, 30, 70}})
    check_reductions(pair, rng, shape, {dense(shape), transposed(shape)});
}
