// MATMUL against the reference: row-major, transposed (column-major) and
// non-unit-stride operands and outputs, batches with broadcast batch axes,
// degenerate sizes, integer wrap-around, and sizes large enough for the
// thread pool (integers) and for OpenBLAS's blocked kernels (floats).
#include "cpu_vs_reference.hpp"

using namespace cpu_test;

namespace {

// Memory dense in the axis order `order` (outermost first).
Layout permuted(const Shape &shape, const std::vector<size_t> &order, const std::string &name) {
  Layout l{name, shape, Shape(shape.size()), 0, numel(shape)};
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    l.strides[order[i]] = stride;
    stride *= std::max<int64_t>(shape[order[i]], 1);
  }
  return l;
}

// The matrix layouts of a rank-r operand: row-major, column-major (last two
// axes swapped) and every other element (no unit stride: copied for BLAS).
std::vector<Layout> matrix_layouts(const Shape &shape) {
  const size_t r = shape.size();
  std::vector<size_t> swapped(r);
  for (size_t d = 0; d < r; ++d) swapped[d] = d;
  std::swap(swapped[r - 2], swapped[r - 1]);
  return {dense(shape), permuted(shape, swapped, "column-major"), spaced(shape)};
}

// |a|, |b| <= 3: each product's rounding is bounded by k * eps * 9, eps
// the accumulator's (float32 for float16 and bfloat16: plugin.h).
Tolerance tolerance(bp_dtype dtype, int64_t k) {
  return table_tolerance(TestBound::blas_matmul, dtype, static_cast<double>(std::max<int64_t>(k, 1)));
}

void check_matmul(Pair &pair, std::mt19937_64 &rng, bp_dtype dtype, const Shape &batch, int64_t m, int64_t k,
                  int64_t n, const std::vector<bool> &a_broadcast, const std::vector<bool> &b_broadcast) {
  Shape sa = batch, sb = batch, sc = batch;
  sa.insert(sa.end(), {m, k});
  sb.insert(sb.end(), {k, n});
  sc.insert(sc.end(), {m, n});
  std::vector<Layout> la = matrix_layouts(sa), lb = matrix_layouts(sb), lc = matrix_layouts(sc);
  if (!batch.empty()) {
    std::vector<bool> mask_a = a_broadcast, mask_b = b_broadcast;
    mask_a.insert(mask_a.end(), {false, false});
    mask_b.insert(mask_b.end(), {false, false});
    la.push_back(broadcast(sa, mask_a));
    lb.push_back(broadcast(sb, mask_b));
  }
  const Values v = is_float(dtype) ? Values::small : Values::general;
  for (const Layout &a : la)
    for (const Layout &b : lb)
      for (const Layout &c : lc) {
        INFO(dtype_name(dtype) << " batch " << shape_text(batch) << " M=" << m << " K=" << k << " N=" << n << ": a "
                               << a.name << ", b " << b.name << ", out " << c.name);
        pair.check(BP_OP_MATMUL, attrs(), {random_tensor(dtype, a, rng, v), random_tensor(dtype, b, rng, v)}, dtype,
                   c, tolerance(dtype, k));
      }
}

}  // namespace

// Products of more than 512 multiply-adds go to BLAS (floats), smaller ones
// to the loop: both kinds, with M = 1 and N = 1 among them.
TEST_CASE("2-D matmul with every operand layout matches the reference", "[matmul]") {
  Pair pair;
  std::mt19937_64 rng(21);
  for (bp_dtype dtype : kNumericTypes)
    for (const auto &mkn : {std::vector<int64_t>{5, 7, 3}, {1, 1, 1}, {1, 6, 4}, {6, 4, 1}, {33, 17, 20},
                            {9, 13, 11}, {1, 40, 30}, {30, 40, 1}})
      check_matmul(pair, rng, dtype, {}, mkn[0], mkn[1], mkn[2], {}, {});
}

TEST_CASE("matmul of empty matrices and K = 0 matches the reference", "[matmul]") {
  Pair pair;
  std::mt19937_64 rng(22);
  for (bp_dtype dtype : kNumericTypes)
    for (const auto &mkn : {std::vector<int64_t>{0, 3, 4}, {3, 0, 4}, {4, 3, 0}, {0, 0, 0}})
      check_matmul(pair, rng, dtype, {}, mkn[0], mkn[1], mkn[2], {}, {});
}

TEST_CASE("batched matmul with broadcast batch axes matches the reference", "[matmul]") {
  Pair pair;
  std::mt19937_64 rng(23);
  for (bp_dtype dtype : kNumericTypes) {
    check_matmul(pair, rng, dtype, {3}, 9, 10, 11, {false}, {true});
    check_matmul(pair, rng, dtype, {3}, 9, 10, 11, {true}, {false});
    check_matmul(pair, rng, dtype, {2, 3}, 3, 2, 4, {true, false}, {false, true});
    check_matmul(pair, rng, dtype, {2, 3}, 10, 8, 9, {false, true}, {true, false});
    check_matmul(pair, rng, dtype, {0}, 3, 2, 4, {false}, {false});
  }
}

TEST_CASE("large matmul matches the reference", "[matmul]") {
  Pair pair;
  std::mt19937_64 rng(24);
  for (bp_dtype dtype : kNumericTypes) {
    // Row-major and transposed operands straight into BLAS (or the threaded loop).
    const Shape sa = {96, 130}, sb = {130, 80}, sc = {96, 80};
    const Values v = is_float(dtype) ? Values::small : Values::general;
    for (const Layout &a : {dense(sa), transposed(sa)})
      for (const Layout &b : {dense(sb), transposed(sb)}) {
        INFO(dtype_name(dtype) << ": a " << a.name << ", b " << b.name);
        pair.check(BP_OP_MATMUL, attrs(), {random_tensor(dtype, a, rng, v), random_tensor(dtype, b, rng, v)}, dtype,
                   dense(sc), tolerance(dtype, 130));
      }
    check_matmul(pair, rng, dtype, {3}, 24, 30, 20, {false}, {true});
  }
}
