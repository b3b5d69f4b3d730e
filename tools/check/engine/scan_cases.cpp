// CUMSUM's cases (the SCAN family): rank 1 to 4, one element, empty tensors
// and empty rows, transposed, strided and broadcast inputs, strided and
// transposed outputs, both views rotated (the core moves the caller's axis
// last by permuting them), full-range integers (int64 wraps), special
// values, and long rows as well as many short ones. The scan runs along the
// last axis of the views; floats are judged like a sum of the same terms
// (judge.cpp).
#include "family_builders.hpp"
#include "vocab.hpp"

namespace bpcheck {

void scan_cases(Builder &b) {
  auto scan = [&](const char *what, const Shape &shape, LayoutSpec in = dense(), LayoutSpec out = dense()) {
    add_rowwise(b, b.start(label(what, shape)), shape, in, out);
  };
  scan("rank 1", {17});
  scan("rank 2", {5, 7});
  scan("rank 3", {2, 3, 4});
  scan("rank 4", {2, 3, 2, 5});
  scan("one element", {1});
  scan("empty", {0, 3});
  scan("empty rows", {3, 0});
  scan("transposed", {6, 5}, transposed());
  scan("strided", {3, 8}, stepped());
  scan("broadcast along the scan", {4, 6}, broadcast(1));
  scan("broadcast across the scan", {4, 6}, broadcast(0));
  scan("strided output", {3, 8}, dense(), stepped());
  scan("transposed output", {6, 5}, dense(), transposed());
  scan("rotated", {3, 4, 5}, rotated(), rotated());
  scan("large, one row", {300000});
  scan("large", kLargeish);
  scan("large, rotated", kLargeish, rotated(), rotated());
  if (is_integer(b.dtype)) {
    // Every bit of the input in play: an int64 running sum wraps.
    Case &c = b.start(label("full range", {5, 7}));
    ViewDesc v = add_view(c, b.dtype, {5, 7}, dense(), false);
    fill_random(c, v, b.rng, {Domain::full, 0, 0});
    c.inputs.push_back(v);
    c.output = add_view(c, b.out_dtype, {5, 7}, dense(), true);
  }
  if (specials_apply(b.op, b.dtype)) {
    // Each special alone in a row of ordinary values, at every position.
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    const Domain dom = domain_for(b.op, 0, b.dtype, b.out_dtype);
    Case &c = b.start(label("special values", {n, n}));
    ViewDesc x = add_view(c, b.dtype, {n, n}, dense(), false);
    fill(c, x, [&](const int64_t *idx, int64_t) { return idx[0] == idx[1] ? sp[size_t(idx[0])] : draw(b.rng, b.dtype, dom); });
    c.inputs.push_back(x);
    c.output = add_view(c, b.out_dtype, {n, n}, dense(), true);
  }
}

}  // namespace bpcheck
