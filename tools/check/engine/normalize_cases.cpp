// LAYER_NORM's and RMS_NORM's cases (the NORMALIZE family): rank 1 to 4,
// every combination of weight and bias present or absent and of the
// statistics asked for or not (inference asks for none), transposed and
// strided inputs and outputs, in place, empty tensors and empty rows,
// constant rows (the variance 0, rstd = 1 / sqrt(eps)), rows far from 0
// (where sum(x^2) - sum(x)^2 / n cancels), long rows, many rows, other eps
// and the special values. RMS_NORM's mean is always absent (plugin.h).
// judge.cpp compares each output on the scale normalize_scales gives it.
#include "family_builders.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

struct Parts {
  bool weight = true, bias = true, mean = true, rstd = true;
};

int32_t statistics_dtype(int32_t dtype) { return dtype == BP_FLOAT64 ? BP_FLOAT64 : BP_FLOAT32; }

Shape statistics_shape(Shape shape) {
  if (!shape.empty()) shape.back() = 1;
  return shape;
}

std::string parts_text(const Parts &p, bool layer) {
  std::string s;
  if (!p.weight) s += ", no weight";
  if (!p.bias) s += ", no bias";
  if (layer && !p.mean) s += ", no mean";
  if (!p.rstd) s += ", no rstd";
  return s;
}

}  // namespace

void add_normalize(Builder &b, Case &c, const Shape &shape, double eps, bool weight, bool bias, bool mean, bool rstd,
                   LayoutSpec x_layout, LayoutSpec y_layout) {
  const bool layer = b.op == BP_OP_LAYER_NORM;
  const int64_t n = shape.empty() ? 0 : shape.back();
  c.attrs.scalar = eps;
  c.inputs.push_back(b.input(c, 0, b.dtype, shape, x_layout));
  c.inputs.push_back(weight ? b.input(c, 1, b.dtype, {n}, dense()) : absent_view());
  c.inputs.push_back(bias ? b.input(c, 2, b.dtype, {n}, dense()) : absent_view());
  c.output = add_view(c, b.out_dtype, shape, y_layout, true);
  const int32_t stats = statistics_dtype(b.dtype);
  c.more_outputs.push_back(layer && mean ? add_view(c, stats, statistics_shape(shape), dense(), true) : absent_view());
  c.more_outputs.push_back(rstd ? add_view(c, stats, statistics_shape(shape), dense(), true) : absent_view());
}

void normalize_cases(Builder &b) {
  const bool layer = b.op == BP_OP_LAYER_NORM;
  auto norm = [&](const char *what, const Shape &shape, Parts p = {}, double eps = 1e-5, LayoutSpec lx = dense(),
                  LayoutSpec ly = dense()) -> Case & {
    Case &c = b.start(label(what, shape) + parts_text(p, layer) + (eps != 1e-5 ? format(", eps %g", eps) : ""));
    add_normalize(b, c, shape, eps, p.weight, p.bias, p.mean, p.rstd, lx, ly);
    return c;
  };
  norm("rank 1", {17});
  norm("rank 2", {5, 7});
  norm("rank 3", {2, 3, 4});
  norm("rank 4", {2, 3, 2, 5});
  for (int mask = 1; mask < 16; ++mask) {
    const Parts p{(mask & 1) == 0, (mask & 2) == 0, (mask & 4) == 0, (mask & 8) == 0};
    if (!layer && (mask & 4)) continue;  // RMS_NORM's mean is always absent
    norm("rank 2", {6, 9}, p);
  }
  norm("one element a row", {4, 1});
  norm("empty", {0, 5});
  norm("empty rows", {3, 0});
  norm("transposed", {6, 5}, {}, 1e-5, transposed());
  norm("strided", {3, 8}, {}, 1e-5, stepped());
  norm("broadcast rows", {4, 6}, {}, 1e-5, broadcast(0));
  norm("strided output", {3, 8}, {}, 1e-5, dense(), stepped());
  norm("transposed output", {6, 5}, {}, 1e-5, dense(), transposed());
  norm("eps 0.5", {5, 7}, {}, 0.5);
  norm("eps 0", {5, 7}, {}, 0.0);
  {
    Case &c = b.start(label("in place", {7, 9}));
    c.attrs.scalar = 1e-5;
    ViewDesc x = add_view(c, b.dtype, {7, 9}, dense(), true);
    fill_random(c, x, b.rng, domain_for(b.op, 0, b.dtype, b.out_dtype));
    c.inputs = {x, b.input(c, 1, b.dtype, {9}, dense()), b.input(c, 2, b.dtype, {9}, dense())};
    c.output = x;
    const int32_t stats = statistics_dtype(b.dtype);
    c.more_outputs = {layer ? add_view(c, stats, {7, 1}, dense(), true) : absent_view(),
                      add_view(c, stats, {7, 1}, dense(), true)};
  }
  {
    // Constant rows: no spread, so rstd is 1 / sqrt(eps), 316 for 1e-5.
    Case &c = norm("constant rows", {4, 6}, {}, 1e-5);
    fill(c, c.inputs[0], [](const int64_t *idx, int64_t) { return Val{double(idx[0]) - 1.5, 0}; });
  }
  {
    // 100 plus or minus 1: sum(x^2) - sum(x)^2 / n loses ten bits of float32 here.
    Case &c = norm("far from 0", {8, 64});
    fill(c, c.inputs[0], [&](const int64_t *, int64_t) { return draw(b.rng, b.dtype, {Domain::uniform, 99, 101}); });
  }
  norm("long rows", {3, 20000});
  norm("large", kLarge);
  if (specials_apply(b.op, b.dtype)) {
    // Each special alone in a row of ordinary values.
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    const Domain dom = domain_for(b.op, 0, b.dtype, b.out_dtype);
    Case &c = norm("special values", {n, 5});
    fill(c, c.inputs[0], [&](const int64_t *idx, int64_t) {
      return idx[1] == idx[0] % 5 ? sp[size_t(idx[0])] : draw(b.rng, b.dtype, dom);
    });
  }
}

}  // namespace bpcheck
