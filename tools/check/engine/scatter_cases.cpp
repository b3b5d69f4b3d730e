// The SCATTER family's cases: outputs of rank 1 to 4 written by index rows
// of every length k, every position named or half of them, N = 0, rows
// without elements, strided, transposed and rotated outputs, transposed and
// broadcast values, a transposed index, repeated index rows (defined when
// their values agree), special values and large tensors. The output starts
// with known values that the elements no row names must keep. SCATTER_ND's
// index rows are distinct elsewhere (plugin.h leaves repeats with different
// values open) and it is judged bit for bit, like a gather; SCATTER_ADD_ND
// adds every row, so its rows repeat everywhere, with cases that pile many
// terms onto each element, and it is judged like a sum (judge.cpp).
#include "family_builders.hpp"
#include "index_rows.hpp"

namespace bpcheck {

namespace {

// The output, holding values of the op's domain before the call.
ViewDesc prefilled_output(Builder &b, Case &c, const Shape &out, LayoutSpec layout) {
  ViewDesc v = add_view(c, b.out_dtype, out, layout, true);
  fill_random(c, v, b.rng, domain_for(b.op, 1, b.out_dtype, b.out_dtype));
  return v;
}

int64_t positions(const Shape &out, int k) {
  int64_t p = 1;
  for (int d = 0; d < k; ++d) p *= out[size_t(d)];
  return p;
}

// Whether index rows naming one element twice have one answer whatever
// their values (plugin.h): the adding scatter sums them all.
bool repeats_defined(int32_t op) { return op == BP_OP_SCATTER_ADD_ND; }

}  // namespace

void add_scatter(Builder &b, Case &c, const Shape &out, int k, int64_t n, LayoutSpec out_layout,
                 LayoutSpec index_layout, LayoutSpec values_layout) {
  c.inputs.push_back(add_index(c, b.rng, out, k, n, !repeats_defined(b.op), index_layout));
  c.inputs.push_back(b.input(c, 1, b.dtype, rows_shape(out, k, n), values_layout));
  c.output = prefilled_output(b, c, out, out_layout);
}

void scatter_cases(Builder &b) {
  auto scatter = [&](const char *what, const Shape &out, int k, int64_t n, LayoutSpec lo = dense(),
                     LayoutSpec li = dense(), LayoutSpec lv = dense()) {
    add_scatter(b, b.start(index_label(what, out, k, n)), out, k, n, lo, li, lv);
  };
  // Half of the positions: the other half keep their values.
  auto half = [&](const char *what, const Shape &out, int k) { scatter(what, out, k, (positions(out, k) + 1) / 2); };
  half("rank 1", {17}, 1);
  for (int k = 1; k <= 2; ++k) half("rank 2", {5, 7}, k);
  for (int k = 1; k <= 3; ++k) half("rank 3", {2, 3, 4}, k);
  for (int k = 1; k <= 4; ++k) half("rank 4", {2, 3, 2, 5}, k);
  scatter("every row named", {5, 7}, 1, 5);
  scatter("every element named", {5, 7}, 2, 35);
  scatter("N = 0", {5, 7}, 1, 0);
  scatter("rows without elements", {4, 0}, 1, 2);
  scatter("strided output", {4, 8}, 1, 2, stepped());
  scatter("transposed output", {4, 5, 3}, 2, 10, transposed());
  scatter("rotated output", {4, 5, 3}, 1, 2, rotated());
  scatter("transposed values", {6, 5}, 1, 3, dense(), dense(), transposed());
  scatter("broadcast values", {4, 6}, 1, 2, dense(), dense(), broadcast(1));
  scatter("transposed index", {4, 5, 3}, 2, 10, dense(), transposed());
  scatter("large", kLargeish, 1, 200);
  scatter("large, one element per row", {300000}, 1, 150000);
  {
    // Values broadcast along N: every row is the same, so a position named
    // twice has one answer.
    const Shape out = {6, 4};
    const int64_t n = 12;
    Case &c = b.start(index_label("repeated rows, equal values", out, 1, n));
    c.inputs.push_back(add_index(c, b.rng, out, 1, n, false, dense()));
    c.inputs.push_back(b.input(c, 1, b.dtype, rows_shape(out, 1, n), broadcast(0)));
    c.output = prefilled_output(b, c, out, dense());
  }
  if (repeats_defined(b.op)) {
    // Eight terms on each element on average, then a hundred (rows of
    // elements, and single elements that every row contends for); few
    // enough that a float32 sum in any order stays within the sum's
    // tolerance.
    for (int k = 1; k <= 2; ++k) scatter("piled rows", {5, 7}, k, 8 * positions({5, 7}, k));
    scatter("piled rows", {3, 2, 4}, 3, 8 * 24, rotated());
    scatter("piled rows, strided values", {6, 5}, 1, 48, dense(), transposed(), transposed());
    scatter("a hundred rows each", {40, 250}, 1, 4000);
    scatter("a hundred rows on each element", {300}, 1, 30000);
  }
  if (specials_apply(b.op, b.dtype)) {
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const Shape out = {int64_t(sp.size())};
    Case &c = b.start(index_label("special values", out, 1, out[0]));
    c.inputs.push_back(add_index(c, b.rng, out, 1, out[0], !repeats_defined(b.op), dense()));
    ViewDesc v = add_view(c, b.dtype, out, dense(), false);
    fill(c, v, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    c.inputs.push_back(v);
    c.output = prefilled_output(b, c, out, dense());
  }
}

}  // namespace bpcheck
