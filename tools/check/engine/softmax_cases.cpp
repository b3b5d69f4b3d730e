// SOFTMAX's and LOG_SOFTMAX's cases (the SOFTMAX family): every row along
// the last axis of the views is normalised on its own (plugin.h), so the
// cases vary what a backend splits its work by: the rank, the row length
// (around vector widths, a warp, a work-group), rows of one element, empty
// tensors and empty rows, strided, transposed, broadcast and rotated views
// (the core moves the caller's axis last by permuting them), in place, and
// random shapes with random layouts. Then the rows plugin.h singles out:
// values at the dtype's largest magnitude (an exp without the maximum
// overflows there), rows of -inf only, -inf among numbers, +inf and NaN
// rows, and wide rows, where softmax underflows to 0 but log_softmax stays
// finite (log(softmax(x)) would give -inf).
#include <cfloat>
#include <cmath>
#include <limits>

#include "family_builders.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// The dtype's largest finite value and the distance from it to the next one below.
double largest(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT16: return 65504.0;
    case BP_BFLOAT16: return 0x1.fep127;
    case BP_FLOAT64: return DBL_MAX;
    default: return FLT_MAX;
  }
}
double top_step(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT16: return 32.0;
    case BP_BFLOAT16: return 0x1p120;
    case BP_FLOAT64: return 0x1p971;
    default: return 0x1p104;
  }
}

// A case of rows whose elements are value_of(index of the element).
template <class F>
void rows_of(Builder &b, const char *what, const Shape &shape, F &&value_of) {
  Case &c = b.start(label(what, shape));
  ViewDesc x = add_view(c, b.dtype, shape, dense(), false);
  fill(c, x, [&](const int64_t *idx, int64_t) { return Val{value_of(idx), 0}; });
  c.inputs.push_back(x);
  c.output = add_view(c, b.out_dtype, shape, dense(), true);
}

}  // namespace

void softmax_cases(Builder &b) {
  auto rows = [&](const char *what, const Shape &shape, LayoutSpec in = dense(), LayoutSpec out = dense()) {
    add_rowwise(b, b.start(label(what, shape)), shape, in, out);
  };
  rows("rank 1", {17});
  rows("rank 2", {5, 7});
  rows("rank 3", {2, 3, 4});
  rows("rank 4", {2, 3, 2, 5});
  rows("one element", {1});
  rows("rows of one", {6, 1});
  rows("empty", {0, 3});
  rows("empty rows", {3, 0});
  for (int64_t n : {7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1025}) rows("row length", {3, n});
  rows("transposed", {6, 5}, transposed());
  rows("strided", {3, 8}, stepped());
  rows("broadcast along the rows", {4, 6}, broadcast(1));
  rows("broadcast across the rows", {4, 6}, broadcast(0));
  rows("strided output", {3, 8}, dense(), stepped());
  rows("transposed output", {6, 5}, dense(), transposed());
  rows("rotated", {3, 4, 5}, rotated(), rotated());
  rows("large", kLarge);
  rows("large, one row", {300000});
  rows("large, rotated", kLargeish, rotated(), rotated());
  {
    Case &c = b.start(label("in place", {7, 9}));
    ViewDesc x = add_view(c, b.dtype, {7, 9}, dense(), true);
    fill_random(c, x, b.rng, domain_for(b.op, 0, b.dtype, b.out_dtype));
    c.inputs.push_back(x);
    c.output = x;
  }
  // Random shapes, each with a random layout of its input and output.
  const LayoutSpec layouts[] = {dense(), transposed(), stepped(), rotated(), broadcast(0)};
  for (int k = 0; k < 12; ++k) {
    const int rank = 1 + int(b.rng() % 4);
    Shape shape(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) shape[size_t(d)] = 1 + int64_t(b.rng() % (d == rank - 1 ? 70 : 6));
    const LayoutSpec in = layouts[b.rng() % 5], out = layouts[b.rng() % 4];
    rows("random", shape, rank >= 2 ? in : dense(), rank >= 2 ? out : dense());
  }

  const double big = largest(b.dtype), step = top_step(b.dtype);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Row r: the largest values, a step apart, of either sign, the largest
  // beside its negation and 0, and the largest among ordinary values.
  rows_of(b, "near the largest value", {4, 9}, [&](const int64_t *idx) {
    const int64_t r = idx[0], j = idx[1];
    switch (r) {
      case 0: return big - double(j % 4) * step;
      case 1: return -(big - double(j % 3) * step);
      case 2: return j % 3 == 0 ? big : j % 3 == 1 ? -big : 0.0;
      default: return j == 4 ? big : double(j) - 4;
    }
  });
  // Rows of -inf only, -inf among numbers (0 and -inf, plugin.h), a +inf, two,
  // a NaN, and a NaN among -inf.
  rows_of(b, "-inf, +inf and NaN rows", {6, 10}, [&](const int64_t *idx) {
    const int64_t r = idx[0], j = idx[1];
    switch (r) {
      case 0: return -inf;
      case 1: return j % 3 == 0 ? -inf : double(j) / 4;
      case 2: return j == 7 ? inf : double(j);
      case 3: return j % 5 == 0 ? inf : -double(j);
      case 4: return j == 2 ? nan : double(j);
      default: return j == 9 ? nan : -inf;
    }
  });
  // Wide rows: exp(x - m) underflows below some -100 (float32) or -745
  // (float64), where log_softmax is still x - m - log(s).
  rows_of(b, "wide rows", {3, 50}, [&](const int64_t *idx) {
    const int64_t r = idx[0], j = idx[1];
    const double spread = b.dtype == BP_FLOAT16 ? 1000.0 : 4000.0;  // float16's largest is 65504
    return -spread * double((j * 7 + r * 3) % 50) / 49.0 + double(r);
  });
}

}  // namespace bpcheck
