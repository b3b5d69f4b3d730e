// GATHER_ND's cases: data of rank 1 to 4 read by index rows of every length
// k (more rows than positions, so rows repeat), N = 0, rows without
// elements, strided, transposed and broadcast data, strided and transposed
// indices and outputs, special values and large tensors. A gather moves
// elements, so judge.cpp compares them bit for bit.
#include "family_builders.hpp"
#include "index_rows.hpp"

namespace bpcheck {

void add_gather(Builder &b, Case &c, const Shape &data, int k, int64_t n, LayoutSpec data_layout,
                LayoutSpec index_layout, LayoutSpec out_layout) {
  c.inputs.push_back(b.input(c, 0, b.dtype, data, data_layout));
  c.inputs.push_back(add_index(c, b.rng, data, k, n, false, index_layout));
  c.output = add_view(c, b.out_dtype, rows_shape(data, k, n), out_layout, true);
}

void gather_cases(Builder &b) {
  auto gather = [&](const char *what, const Shape &data, int k, int64_t n, LayoutSpec ld = dense(),
                    LayoutSpec li = dense(), LayoutSpec lo = dense()) {
    add_gather(b, b.start(index_label(what, data, k, n)), data, k, n, ld, li, lo);
  };
  gather("rank 1", {17}, 1, 9);
  for (int k = 1; k <= 2; ++k) gather("rank 2", {5, 7}, k, 9);
  for (int k = 1; k <= 3; ++k) gather("rank 3", {2, 3, 4}, k, 9);
  for (int k = 1; k <= 4; ++k) gather("rank 4", {2, 3, 2, 5}, k, 9);
  gather("N = 0", {5, 7}, 1, 0);
  gather("rows without elements", {4, 0}, 1, 3);
  gather("transposed data", {6, 5}, 1, 8, transposed());
  gather("strided data", {3, 8}, 2, 5, stepped());
  gather("broadcast data", {4, 6}, 1, 5, broadcast(1));
  gather("transposed index", {4, 5, 3}, 2, 7, dense(), transposed());
  gather("strided index", {4, 5, 3}, 2, 7, dense(), stepped());
  gather("strided output", {4, 8}, 1, 6, dense(), dense(), stepped());
  gather("transposed output", {4, 5, 3}, 1, 6, dense(), dense(), transposed());
  gather("large", kLargeish, 1, 1000);
  gather("large, one element per row", {300000}, 1, 300000);
  if (specials_apply(b.op, b.dtype)) {
    // NaN, signed zeros and the integer limits come out as they went in.
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const Shape data = {int64_t(sp.size())};
    const int64_t n = 2 * data[0];
    Case &c = b.start(index_label("special values", data, 1, n));
    ViewDesc x = add_view(c, b.dtype, data, dense(), false);
    fill(c, x, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    c.inputs.push_back(x);
    c.inputs.push_back(add_index(c, b.rng, data, 1, n, false, dense()));
    c.output = add_view(c, b.out_dtype, rows_shape(data, 1, n), dense(), true);
  }
}

}  // namespace bpcheck
