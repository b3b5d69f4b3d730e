// Reductions and matrix products of the CUDA plugin against the reference
// plugin: every reduced-axes pattern (so each of the kernels' strategies:
// a thread per output, a block per output, and outputs split over blocks
// with a second pass), NaN and ties for MAX/MIN/ARGMAX, empty sets; GEMM
// with row- and column-major, strided and broadcast operands and outputs,
// batches, K = 0, and the integer kernel.
#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

// Float sums: the reference sums exactly (compensated), the GPU in double
// in another order; the difference scales with the number of terms.
Tolerance reduce_tolerance(bp_op op, bp_dtype out, int64_t count) {
  if (!is_float(out) || op == BP_OP_MAX || op == BP_OP_MIN) return default_tolerance(out);
  // Halves: each side rounds its float32-or-wider sum once, so the two may
  // land one step of the half apart, or differ by the float32 sum's own
  // rounding where terms (of magnitude up to 3) cancel.
  return table_tolerance(TestBound::cuda_reduce, out, static_cast<double>(count > 0 ? count : 1));
}

const std::vector<bp_op> kReductions = ops_in(BP_OP_FAMILY_REDUCE);

void check_reductions(Pair &pair, std::mt19937_64 &rng, const Shape &shape, const std::vector<Layout> &layouts) {
  for (bp_op op : kReductions) {
    for (bp_dtype dtype : kAllTypes) {
      if (!defined_for(op, dtype)) continue;
      for (const std::vector<bool> &reduced : axis_subsets(shape.size())) {
        const Shape out_shape = reduced_shape(shape, reduced);
        int64_t count = 1;
        for (size_t d = 0; d < shape.size(); ++d)
          if (reduced[d]) count *= shape[d];
        const bool empty_set = count == 0 && numel(out_shape) > 0;
        if (empty_set && (op == BP_OP_MAX || op == BP_OP_MIN || op == BP_OP_ARGMAX)) continue;
        for (size_t i = 0; i < layouts.size(); ++i) {
          const bp_dtype out = out_dtype(op, dtype);
          std::string axes;
          for (size_t d = 0; d < reduced.size(); ++d)
            if (reduced[d]) axes += std::to_string(d) + " ";
          INFO(op_name(op) << " " << dtype_name(dtype) << ", shape " << shape_text(shape) << " over axes { " << axes
                       << "}, input " << layouts[i].name);
          const Layout out_layout = i % 2 ? transposed(out_shape) : dense(out_shape);
          pair.check(op, attrs(), {random_tensor(dtype, layouts[i], rng)}, out, out_layout,
                     reduce_tolerance(op, out, count));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("cuda: reductions over every set of axes match the reference", "[cuda][reduce]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(21);
  for (const Shape &shape : {Shape{5, 7}, Shape{3, 4, 5}, Shape{}, Shape{6}, Shape{0, 3}}) {
    std::vector<Layout> layouts = {dense(shape), transposed(shape), spaced(shape)};
    if (shape.size() >= 2) {
      std::vector<bool> outer(shape.size(), false);
      outer[0] = true;
      layouts.push_back(broadcast(shape, outer));
    }
    check_reductions(pair, rng, shape, layouts);
  }
}

TEST_CASE("cuda: long reductions (block trees and two passes) match the reference", "[cuda][reduce]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(22);
  // One output of many elements (split over blocks, two passes), a few
  // outputs of many (blocks), many outputs of many (a thread or block each),
  // many of few (a thread each), with inner, outer and strided reduced axes.
  // Each accumulator type (double, uint64, float, int, ArgBest) goes
  // through the two-pass path once; the other shapes use float32 and int32.
  const std::vector<bp_dtype> all = {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_INT64, BP_BOOL},
                              some = {BP_FLOAT32, BP_INT32};
  const std::pair<Shape, const std::vector<bp_dtype> &> problems[] = {
      {{1 << 20}, all}, {{3, 100003}, some}, {{100003, 3}, some}, {{513, 517}, some}, {{20000, 70}, some}};
  for (const auto &problem : problems) {
    const Shape &shape = problem.first;
    for (bp_op op : kReductions) {
      for (bp_dtype dtype : problem.second) {
        if (!defined_for(op, dtype)) continue;
        for (const std::vector<bool> &reduced : axis_subsets(shape.size())) {
          bool any = false;
          for (bool r : reduced) any = any || r;
          if (!any) continue;
          const Layout in = shape.size() == 2 ? transposed(shape) : spaced(shape);
          for (const Layout &layout : {dense(shape), in}) {
            const Shape out_shape = reduced_shape(shape, reduced);
            const int64_t count = numel(shape) / numel(out_shape);
            INFO(op_name(op) << " " << dtype_name(dtype) << ", shape " << shape_text(shape) << " -> "
                         << shape_text(out_shape) << ", input " << layout.name);
            // MAX/MIN/ARGMAX over general values (NaN, inf, ties); sums over
            // small ones, where the reference's exact sum is meaningful.
            const bool sum = op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM || op == BP_OP_LOGSUMEXP;
            const Values values = sum ? Values::small : Values::general;
            const bp_dtype out = out_dtype(op, dtype);
            pair.check(op, attrs(), {random_tensor(dtype, layout, rng, values)}, out, dense(out_shape),
                       reduce_tolerance(op, out, count));
          }
        }
      }
    }
  }
}

TEST_CASE("cuda: argmax finds the first maximum, and a NaN wins, however the work is split", "[cuda][reduce]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  const int64_t n = 1 << 20;
  for (int64_t position : {int64_t(0), int64_t(1), int64_t(255), int64_t(256), n / 2 + 7, n - 1}) {
    for (bool nan : {false, true}) {
      Tensor t{BP_FLOAT32, dense({n}), std::vector<uint8_t>(static_cast<size_t>(n) * 4)};
      for (int64_t i = 0; i < n; ++i) put(t.bytes, i, 1.0f);
      // Ties everywhere; the maximum (or NaN) at `position` and again later.
      const float best = nan ? std::numeric_limits<float>::quiet_NaN() : 2.0f;
      put(t.bytes, position, best);
      if (position + 1000 < n) put(t.bytes, position + 1000, best);
      INFO("position " << position << (nan ? " (NaN)" : ""));
      const Outputs out = pair.run(BP_OP_ARGMAX, attrs(), {t}, BP_INT64, dense({1}));
      CHECK(get<int64_t>(out.got, 0) == position);
      CHECK(get<int64_t>(out.ref, 0) == position);
    }
  }
}

namespace {

struct MatmulCase {
  Shape a, b, out;
};

// Layouts a matmul operand is tried in: row-major, column-major, every
// other element (cuBLAS cannot take it: copied first), and for batches a
// broadcast batch axis.
std::vector<Layout> matmul_layouts(const Shape &shape) {
  std::vector<Layout> layouts = {dense(shape), matrices_transposed(shape), spaced(shape)};
  if (shape.size() > 2) {
    std::vector<bool> b(shape.size(), false);
    b[0] = true;
    layouts.push_back(broadcast(shape, b));
  }
  return layouts;
}

Tolerance matmul_tolerance(bp_dtype dtype, int64_t k) {
  // cuBLAS sums in float32 or wider; |a|, |b| <= 3 ("small" values).
  // Halves: float32 accumulation (tensor cores here, plain float32 in the
  // reference), each rounded once: a step of the half apart, or the float32
  // sums' difference where products cancel.
  return table_tolerance(TestBound::cuda_matmul, dtype, static_cast<double>(k));
}

}  // namespace

TEST_CASE("cuda: matmul matches the reference for every layout of inputs and output", "[cuda][matmul]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(23);
  const MatmulCase cases[] = {
      {{5, 7}, {7, 3}, {5, 3}},
      {{1, 7}, {7, 3}, {1, 3}},
      {{5, 7}, {7, 1}, {5, 1}},
      {{5, 1}, {1, 3}, {5, 3}},
      {{1, 1}, {1, 1}, {1, 1}},
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
      {{3, 2, 4, 6}, {3, 2, 6, 5}, {3, 2, 4, 5}},
      {{64, 65}, {65, 63}, {64, 63}},
      {{4, 0}, {0, 3}, {4, 3}},
      {{0, 4}, {4, 3}, {0, 3}},
  };
  for (const MatmulCase &c : cases) {
    for (bp_dtype dtype : kNumericTypes) {
      const std::vector<Layout> a_layouts = matmul_layouts(c.a), b_layouts = matmul_layouts(c.b);
      const std::vector<Layout> out_layouts = {dense(c.out), matrices_transposed(c.out), spaced(c.out)};
      for (size_t i = 0; i < a_layouts.size(); ++i) {
        for (size_t j = 0; j < b_layouts.size(); ++j) {
          const Layout &out_layout = out_layouts[(i + j) % out_layouts.size()];
          INFO(dtype_name(dtype) << " " << shape_text(c.a) << " x " << shape_text(c.b) << ", a " << a_layouts[i].name
                                 << ", b " << b_layouts[j].name << ", out " << out_layout.name);
          // Integers over the full range: products and sums wrap.
          const Values values = is_float(dtype) ? Values::small : Values::general;
          pair.check(BP_OP_MATMUL, attrs(),
                     {random_tensor(dtype, a_layouts[i], rng, values), random_tensor(dtype, b_layouts[j], rng, values)},
                     dtype, out_layout, matmul_tolerance(dtype, c.a.back()));
        }
      }
    }
  }
}

namespace {

// A float32 [96, 512] x [512, 80] product with allow_tf32 set to `tf32`,
// against the reference within tolerance. K = 512 terms: TF32's 10-bit
// inputs would be off by ~1e-3 relative.
void check_tf32_matmul(const char *tf32, uint64_t seed, Tolerance tolerance) {
  Pair pair(Options{{"allow_tf32", tf32}});
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(seed);
  const Shape a{96, 512}, b{512, 80};
  pair.check(BP_OP_MATMUL, attrs(),
             {random_tensor(BP_FLOAT32, dense(a), rng, Values::small),
              random_tensor(BP_FLOAT32, dense(b), rng, Values::small)},
             BP_FLOAT32, dense({96, 80}), tolerance);
}

}  // namespace

TEST_CASE("cuda: matmul with allow_tf32 = false is full float32 precision", "[cuda][matmul]") {
  check_tf32_matmul("false", 24, matmul_tolerance(BP_FLOAT32, 512));
}

TEST_CASE("cuda: matmul with allow_tf32 = true runs, within TF32 precision", "[cuda][matmul]") {
  check_tf32_matmul("true", 25, table_tolerance(TestBound::cuda_tf32, BP_FLOAT32, 512));
}

TEST_CASE("cuda: matmul writing over one of its inputs gives the product", "[cuda][matmul]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(26);
  for (bp_dtype dtype : {BP_FLOAT32, BP_INT64}) {
    INFO(dtype_name(dtype));
    const Tensor a = random_tensor(dtype, dense({6, 6}), rng, Values::small);
    const Tensor b = random_tensor(dtype, dense({6, 6}), rng, Values::small);
    // The oracle is the product into a separate output: the reference works
    // element by element and would read values it has already overwritten.
    const Outputs fresh = pair.run(BP_OP_MATMUL, attrs(), {a, b}, dtype, dense({6, 6}));
    Buffers buffers(pair.plugin);
    const bp_plugin_tensor in[2] = {buffers.view(a.dtype, a.layout, a.bytes), buffers.view(b.dtype, b.layout, b.bytes)};
    const bp_op_attrs at = attrs();
    const bp_status status = pair.plugin.api().execute(0, BP_OP_MATMUL, &at, in, 2, &in[0]);  // a = a x b
    INFO((status == BP_OK ? "" : pair.plugin.api().last_error()));
    REQUIRE(status == BP_OK);
    check_buffers(dtype, pair.plugin.download<uint8_t>(in[0].buffer, a.bytes.size()), fresh.ref,
                  matmul_tolerance(dtype, 6));
  }
}
