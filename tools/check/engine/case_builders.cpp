#include "case_builders.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_cases.hpp"
#include "conv_cases.hpp"
#include "family_builders.hpp"
#include "pool_cases.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

std::string label(const char *what, const Shape &shape) {
  std::string s = what;
  if (!s.empty()) s += " ";
  return s + shape_text(int32_t(shape.size()), shape.data());
}

void add_rowwise(Builder &b, Case &c, const Shape &shape, LayoutSpec in, LayoutSpec out) {
  c.inputs.push_back(b.input(c, 0, b.dtype, shape, in));
  c.output = add_view(c, b.out_dtype, shape, out, true);
}

namespace {

struct ShapeCase {
  const char *what;
  Shape shape;
};

const std::vector<ShapeCase> &basic_shapes() {
  static const std::vector<ShapeCase> s = {
      {"rank 0", {}}, {"rank 1", {17}}, {"rank 2", {5, 7}}, {"rank 3", {2, 3, 4}}, {"rank 4", {2, 3, 2, 5}}, {"empty", {0, 3}},
  };
  return s;
}

// Scalar operands by op and dtype: (rhs, lhs).
std::pair<double, double> scalars(int32_t op, int32_t dtype) {
  if (is_bool(dtype)) return {1.0, 0.0};
  if (is_float(dtype)) {
    if (op == BP_OP_POW) return {2.0, 1.5};
    if (op == BP_OP_DIV) return {4.0, 3.0};
    return {2.5, -0.75};
  }
  if (op == BP_OP_POW) return {3.0, 2.0};
  return {3.0, -7.0};
}

// Binary ops and comparisons.
void binary_cases(Builder &b) {
  const bool compare = op_family(b.op) == BP_OP_FAMILY_COMPARE;
  auto two = [&](const char *what, const Shape &shape, LayoutSpec l0, LayoutSpec l1, LayoutSpec lo) {
    Case &c = b.start(label(what, shape));
    c.inputs.push_back(b.input(c, 0, b.dtype, shape, l0));
    c.inputs.push_back(b.input(c, 1, b.dtype, shape, l1));
    c.output = add_view(c, b.out_dtype, shape, lo, true);
  };
  for (const ShapeCase &s : basic_shapes()) two(s.what, s.shape, dense(), dense(), dense());
  two("broadcast", {4, 6}, broadcast(1), broadcast(0), dense());
  two("transposed", {6, 5}, transposed(), transposed(), dense());
  two("strided output", {3, 8}, dense(), dense(), stepped());
  if (!compare) {
    Case &c = b.start(label("in place", {7, 9}));
    ViewDesc x = add_view(c, b.dtype, {7, 9}, dense(), true);
    fill_random(c, x, b.rng, domain_for(b.op, 0, b.dtype, b.out_dtype));
    c.inputs.push_back(x);
    c.inputs.push_back(b.input(c, 1, b.dtype, {7, 9}, dense()));
    c.output = x;
  }
  two("large", kLarge, dense(), dense(), dense());
  const auto sv = scalars(b.op, b.dtype);
  auto scalar = [&](const char *what, const Shape &shape, int32_t mode, double value) {
    Case &c = b.start(label(what, shape));
    c.attrs.scalar_mode = mode;
    c.attrs.scalar = value;
    // The tensor operand plays input 0 (rhs mode) or input 1 (lhs mode).
    c.inputs.push_back(b.input(c, mode == BP_SCALAR_RHS ? 0 : 1, b.dtype, shape, dense()));
    c.output = add_view(c, b.out_dtype, shape, dense(), true);
  };
  scalar("scalar rhs", {5, 7}, BP_SCALAR_RHS, sv.first);
  scalar("scalar lhs", {5, 7}, BP_SCALAR_LHS, sv.second);
  scalar("scalar rhs large", kLargeish, BP_SCALAR_RHS, sv.first);
  if (b.dtype == BP_FLOAT16 || b.dtype == BP_BFLOAT16) {
    // Just above a tie of the half next to 1: rounded once (plugin.h) it
    // is the half above 1; through a float32 on the way it falls on the tie
    // and rounds to even, 1.
    const double trap = 1 + (b.dtype == BP_FLOAT16 ? 0x1p-11 : 0x1p-8) + 0x1p-40;
    scalar("scalar rounded once", {5, 7}, BP_SCALAR_RHS, trap);
  }
  if (specials_apply(b.op, b.dtype)) {
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    Case &c = b.start(label("special values", {n, n}));
    ViewDesc a = add_view(c, b.dtype, {n, n}, broadcast(1), false);
    fill(c, a, [&](const int64_t *idx, int64_t) { return sp[size_t(idx[0])]; });
    ViewDesc y = add_view(c, b.dtype, {n, n}, broadcast(0), false);
    fill(c, y, [&](const int64_t *idx, int64_t) { return sp[size_t(idx[1])]; });
    c.inputs = {a, y};
    c.output = add_view(c, b.out_dtype, {n, n}, dense(), true);
  }
  if (is_integer(b.dtype) && (b.op == BP_OP_ADD || b.op == BP_OP_SUB || b.op == BP_OP_MUL)) {
    Case &c = b.start(label("wrapping", {5, 7}));
    for (int i = 0; i < 2; ++i) {
      ViewDesc v = add_view(c, b.dtype, {5, 7}, dense(), false);
      fill_random(c, v, b.rng, {Domain::full, 0, 0});
      c.inputs.push_back(v);
    }
    c.output = add_view(c, b.out_dtype, {5, 7}, dense(), true);
  }
}

void where_cases(Builder &b) {
  auto three = [&](const char *what, const Shape &shape, LayoutSpec lc, LayoutSpec la, LayoutSpec lb, LayoutSpec lo) {
    Case &c = b.start(label(what, shape));
    c.inputs.push_back(b.input(c, 0, BP_BOOL, shape, lc));
    c.inputs.push_back(b.input(c, 1, b.dtype, shape, la));
    c.inputs.push_back(b.input(c, 2, b.dtype, shape, lb));
    c.output = add_view(c, b.out_dtype, shape, lo, true);
  };
  for (const ShapeCase &s : basic_shapes()) three(s.what, s.shape, dense(), dense(), dense(), dense());
  three("broadcast", {4, 6}, broadcast(0), broadcast(1), dense(), dense());
  three("transposed", {6, 5}, transposed(), transposed(), transposed(), dense());
  three("strided output", {3, 8}, dense(), dense(), dense(), stepped());
  three("large", kLarge, dense(), dense(), dense(), dense());
  {
    Case &c = b.start(label("in place", {7, 9}));
    c.inputs.push_back(b.input(c, 0, BP_BOOL, {7, 9}, dense()));
    ViewDesc x = add_view(c, b.dtype, {7, 9}, dense(), true);
    fill_random(c, x, b.rng, domain_for(b.op, 1, b.dtype, b.out_dtype));
    c.inputs.push_back(x);
    c.inputs.push_back(b.input(c, 2, b.dtype, {7, 9}, dense()));
    c.output = x;
  }
  {
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    Case &c = b.start(label("special values", {n}));
    c.inputs.push_back(b.input(c, 0, BP_BOOL, {n}, dense()));
    ViewDesc x = add_view(c, b.dtype, {n}, dense(), false);
    fill(c, x, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    ViewDesc y = add_view(c, b.dtype, {n}, dense(), false);
    fill(c, y, [&](const int64_t *, int64_t i) { return sp[size_t(n - 1 - i)]; });
    c.inputs.push_back(x);
    c.inputs.push_back(y);
    c.output = add_view(c, b.out_dtype, {n}, dense(), true);
  }
}

// Unary ops and COPY.
void unary_cases(Builder &b) {
  auto one = [&](const char *what, const Shape &shape, LayoutSpec li, LayoutSpec lo) {
    Case &c = b.start(label(what, shape));
    c.inputs.push_back(b.input(c, 0, b.dtype, shape, li));
    c.output = add_view(c, b.out_dtype, shape, lo, true);
  };
  for (const ShapeCase &s : basic_shapes()) one(s.what, s.shape, dense(), dense());
  one("broadcast", {4, 6}, broadcast(0), dense());
  one("transposed", {6, 5}, transposed(), dense());
  one("strided output", {3, 8}, dense(), stepped());
  one("transposed output", {6, 5}, dense(), transposed());
  if (b.dtype == b.out_dtype) {
    Case &c = b.start(label("in place", {7, 9}));
    ViewDesc x = add_view(c, b.dtype, {7, 9}, dense(), true);
    fill_random(c, x, b.rng, domain_for(b.op, 0, b.dtype, b.out_dtype));
    c.inputs.push_back(x);
    c.output = x;
  }
  one("large", kLarge, dense(), dense());
  if (specials_apply(b.op, b.dtype)) {
    const std::vector<Val> sp = specials_for(b.op, b.dtype, b.out_dtype);
    const int64_t n = int64_t(sp.size());
    Case &c = b.start(label("special values", {n}));
    ViewDesc x = add_view(c, b.dtype, {n}, dense(), false);
    fill(c, x, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    c.inputs.push_back(x);
    c.output = add_view(c, b.out_dtype, {n}, dense(), true);
  }
}

void reduce_cases(Builder &b) {
  const bool empty_set_ok =
      b.op == BP_OP_SUM || b.op == BP_OP_MEAN || b.op == BP_OP_NORM || b.op == BP_OP_LOGSUMEXP || b.op == BP_OP_VAR;
  auto red = [&](const char *what, const Shape &in, const Shape &out, LayoutSpec li) -> Case & {
    Case &c = b.start(std::string(what) + (*what ? " " : "") + shape_text(int32_t(in.size()), in.data()) + " -> " +
                      shape_text(int32_t(out.size()), out.data()));
    c.inputs.push_back(b.input(c, 0, b.dtype, in, li));
    c.output = add_view(c, b.out_dtype, out, dense(), true);
    return c;
  };
  red("", {17}, {1}, dense());
  red("", {5, 7}, {1, 7}, dense());
  red("", {5, 7}, {5, 1}, dense());
  red("", {5, 7}, {1, 1}, dense());
  red("", {2, 3, 4}, {2, 1, 4}, dense());
  red("", {2, 3, 2, 5}, {1, 3, 1, 5}, dense());
  red("rank 0", {}, {}, dense());
  red("transposed", {6, 5}, {1, 5}, transposed());
  red("transposed", {6, 5}, {6, 1}, transposed());
  red("broadcast", {4, 6}, {1, 6}, broadcast(0));
  red("broadcast", {4, 6}, {4, 1}, broadcast(0));
  red("empty", {0, 3}, {0, 1}, dense());
  if (empty_set_ok) red("empty", {0, 3}, {1, 3}, dense());
  red("large", {300000}, {1}, dense());
  red("large", kLargeish, {400, 1}, dense());
  red("large", kLargeish, {1, 250}, dense());
  if (specials_apply(b.op, b.dtype)) {
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    // Each special alone among ordinary values, so a NaN or an extreme value
    // meets the others in every position of the walk.
    Case &c = b.start(label("special values", {n, 5}) + " -> [" + std::to_string(n) + ", 1]");
    ViewDesc x = add_view(c, b.dtype, {n, 5}, dense(), false);
    std::mt19937_64 &rng = b.rng;
    const Domain dom = domain_for(b.op, 0, b.dtype, b.out_dtype);
    fill(c, x, [&](const int64_t *idx, int64_t) {
      return idx[1] == (idx[0] % 5) ? sp[size_t(idx[0])] : draw(rng, b.dtype, dom);
    });
    c.inputs.push_back(x);
    c.output = add_view(c, b.out_dtype, {n, 1}, dense(), true);
    Case &d = b.start(label("special values", {n}) + " -> [1]");
    ViewDesc y = add_view(d, b.dtype, {n}, dense(), false);
    fill(d, y, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    d.inputs.push_back(y);
    d.output = add_view(d, b.out_dtype, {1}, dense(), true);
  }
  if (b.op == BP_OP_VAR) {
    // The correction (attrs.scalar): Bessel's, and n - c <= 0, which divides
    // by 0 (+inf, or NaN for a set without spread: plugin.h).
    red("correction 1", {5, 7}, {5, 1}, dense()).attrs.scalar = 1;
    red("correction 1", {2, 3, 2, 5}, {1, 3, 1, 5}, dense()).attrs.scalar = 1;
    red("correction 1, large", kLargeish, {1, 250}, dense()).attrs.scalar = 1;
    red("correction 4 of 4", {4, 3}, {1, 3}, dense()).attrs.scalar = 4;
    red("correction 7 of 4", {4, 3}, {1, 3}, dense()).attrs.scalar = 7;
    red("correction 1 of 1", {1, 6}, {1, 6}, dense()).attrs.scalar = 1;
    red("correction 2, empty", {0, 3}, {1, 3}, dense()).attrs.scalar = 2;
    // 1000 plus or minus 1: where sum(x^2) - sum(x)^2 / n cancels.
    for (const Shape &out : {Shape{6, 1}, Shape{1, 50}}) {
      Case &c = red("far from 0", {6, 50}, out, dense());
      fill(c, c.inputs[0], [&](const int64_t *, int64_t) { return draw(b.rng, b.dtype, {Domain::uniform, 999, 1001}); });
    }
  }
  if (is_float(b.dtype) &&
      (b.op == BP_OP_ARGMAX || b.op == BP_OP_ARGMIN || b.op == BP_OP_MAX || b.op == BP_OP_MIN)) {
    // Two or three NaNs in one reduced set: ARGMAX and ARGMIN give the first (plugin.h),
    // in rows and in columns.
    const Domain dom = domain_for(b.op, 0, b.dtype, b.out_dtype);
    const Val nan{std::numeric_limits<double>::quiet_NaN(), 0};
    for (int axis = 0; axis < 2; ++axis) {
      const Shape out = axis == 1 ? Shape{4, 1} : Shape{1, 9};
      Case &c = b.start(label("several NaNs", {4, 9}) + " -> " + shape_text(2, out.data()));
      ViewDesc x = add_view(c, b.dtype, {4, 9}, dense(), false);
      fill(c, x, [&](const int64_t *idx, int64_t) {
        const int64_t r = idx[0], k = idx[1];
        const bool is_nan = axis == 1 ? (k == 1 + r || k == 5 + r % 4 || k == 8) : (r == 1 || r == 3 || (k % 3 == 0 && r == 2));
        return is_nan ? nan : draw(b.rng, b.dtype, dom);
      });
      c.inputs.push_back(x);
      c.output = add_view(c, b.out_dtype, out, dense(), true);
    }
  }
}

void matmul_cases(Builder &b) {
  auto mm = [&](const char *what, const Shape &sa, const Shape &sb, LayoutSpec la, LayoutSpec lb) {
    Shape so = sa;
    so.back() = sb.back();
    Case &c = b.start(std::string(what) + (*what ? " " : "") + shape_text(int32_t(sa.size()), sa.data()) + " @ " +
                      shape_text(int32_t(sb.size()), sb.data()));
    c.inputs.push_back(b.input(c, 0, b.dtype, sa, la));
    c.inputs.push_back(b.input(c, 1, b.dtype, sb, lb));
    c.output = add_view(c, b.out_dtype, so, dense(), true);
  };
  mm("", {3, 4}, {4, 5}, dense(), dense());
  mm("", {1, 1}, {1, 1}, dense(), dense());
  mm("", {2, 3, 4}, {2, 4, 5}, dense(), dense());
  mm("", {2, 2, 3, 4}, {2, 2, 4, 5}, dense(), dense());
  mm("transposed b", {4, 6}, {6, 5}, dense(), transposed());
  mm("transposed a", {4, 6}, {6, 5}, transposed(), dense());
  mm("broadcast batch", {3, 2, 4}, {3, 4, 5}, dense(), broadcast(0));
  mm("K = 0", {3, 0}, {0, 4}, dense(), dense());
  mm("M = 0", {0, 4}, {4, 3}, dense(), dense());
  mm("large", {96, 128}, {128, 80}, dense(), dense());
}

void create_cases(Builder &b) {
  struct Attrs {
    double scalar, scalar2;
    uint64_t seed;
  };
  Attrs first{}, second{};
  switch (b.op) {
    case BP_OP_FILL:
      if (is_float(b.dtype)) first = {3.25, 0, 0}, second = {-1.5, 0, 0};
      else if (is_bool(b.dtype)) first = {1, 0, 0}, second = {2.5, 0, 0};
      else first = {-7, 0, 0}, second = {42.9, 0, 0};
      break;
    case BP_OP_ARANGE:
      if (is_float(b.dtype)) first = {-3, 0.5, 0}, second = {10, -0.25, 0};
      else first = {-5, 3, 0}, second = {100, -7, 0};
      break;
    case BP_OP_RANDOM_UNIFORM: first = {-2, 3, 12345}, second = {0, 1, 99}; break;
    case BP_OP_RANDOM_NORMAL: first = {1, 2, 777}, second = {0, 1, 4242}; break;
    default: break;
  }
  auto make = [&](const char *what, const Shape &shape, LayoutSpec lo, const Attrs &a) {
    Case &c = b.start(label(what, shape));
    c.attrs.scalar = a.scalar;
    c.attrs.scalar2 = a.scalar2;
    c.attrs.seed = a.seed;
    if (b.op == BP_OP_RANDOM_UNIFORM) c.scale_floor = std::max(std::fabs(a.scalar), std::fabs(a.scalar2));
    if (b.op == BP_OP_RANDOM_NORMAL) c.scale_floor = std::fabs(a.scalar) + 3 * std::fabs(a.scalar2);
    c.output = add_view(c, b.out_dtype, shape, lo, true);
  };
  for (const ShapeCase &s : basic_shapes()) make(s.what, s.shape, dense(), first);
  make("strided output", {3, 8}, stepped(), first);
  make("transposed output", {6, 5}, transposed(), first);
  make("other attributes", {17}, dense(), second);
  make("large", kLarge, dense(), first);
  // A start and step no float32 holds: computed in the element dtype instead
  // of float64 (plugin.h), most elements round differently.
  if (b.op == BP_OP_ARANGE && is_float(b.dtype)) make("inexact start and step", {4999}, dense(), {-1.7, 0.013, 0});
}


}  // namespace

std::vector<Case> make_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed) {
  Builder b(op, dtype, out_dtype, seed);
  switch (op_family(op)) {
    case BP_OP_FAMILY_BINARY: case BP_OP_FAMILY_COMPARE: binary_cases(b); break;
    case BP_OP_FAMILY_WHERE: where_cases(b); break;
    case BP_OP_FAMILY_UNARY: case BP_OP_FAMILY_COPY: unary_cases(b); break;
    case BP_OP_FAMILY_REDUCE: reduce_cases(b); break;
    case BP_OP_FAMILY_MATMUL: matmul_cases(b); break;
    case BP_OP_FAMILY_CREATE: create_cases(b); break;
    case BP_OP_FAMILY_SCAN: scan_cases(b); break;
    case BP_OP_FAMILY_GATHER: gather_cases(b); break;
    case BP_OP_FAMILY_SCATTER: scatter_cases(b); break;
    case BP_OP_FAMILY_SOFTMAX: softmax_cases(b); break;
    case BP_OP_FAMILY_TOPK: topk_cases(b); break;
    case BP_OP_FAMILY_NORMALIZE: normalize_cases(b); break;
    case BP_OP_FAMILY_ATTENTION: attention_cases(b); break;
    case BP_OP_FAMILY_CONV: conv_cases(b); break;
    default: break;  // a family this kit does not know yet: no cases
  }
  return std::move(b.cases);
}

std::vector<Case> make_small_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed,
                                   const std::vector<std::vector<int64_t>> &shapes) {
  Builder b(op, dtype, out_dtype, seed);
  const int32_t family = op_family(op);
  if (family == 0) return {};
  for (const Shape &shape : shapes) {
    if (family == BP_OP_FAMILY_CONV) {  // a case of its own making
      add_conv(b, conv_spec_for(shape), label("", shape));
      continue;
    }
    Case &c = b.start(label("", shape));
    switch (family) {
      case BP_OP_FAMILY_BINARY: case BP_OP_FAMILY_COMPARE:
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case BP_OP_FAMILY_WHERE:
        c.inputs.push_back(b.input(c, 0, BP_BOOL, shape, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, shape, dense()));
        c.inputs.push_back(b.input(c, 2, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case BP_OP_FAMILY_UNARY: case BP_OP_FAMILY_COPY:
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case BP_OP_FAMILY_REDUCE: {
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        Shape out = shape;
        if (!out.empty()) out.back() = 1;
        c.output = add_view(c, out_dtype, out, dense(), true);
        break;
      }
      case BP_OP_FAMILY_MATMUL: {
        // shape = [M, K]: a [M, K] @ b [K, M]
        Shape sb = {shape.size() > 1 ? shape[1] : 1, shape[0]};
        Shape sa = {shape[0], sb[0]};
        c.inputs.push_back(b.input(c, 0, dtype, sa, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, sb, dense()));
        c.output = add_view(c, out_dtype, {sa[0], sb[1]}, dense(), true);
        break;
      }
      case BP_OP_FAMILY_CREATE:
        c.attrs.scalar = op == BP_OP_RANDOM_NORMAL ? 0 : 1.0;
        c.attrs.scalar2 = 1.0;
        c.attrs.seed = 7;
        c.scale_floor = 3;
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case BP_OP_FAMILY_SCAN: add_rowwise(b, c, shape); break;
      // Rows along axis 0: as many as it has (GATHER, repeats allowed), half
      // of them (SCATTER, distinct).
      case BP_OP_FAMILY_GATHER: add_gather(b, c, shape, 1, shape[0]); break;
      case BP_OP_FAMILY_SCATTER: add_scatter(b, c, shape, 1, (shape[0] + 1) / 2); break;
      case BP_OP_FAMILY_SOFTMAX: add_rowwise(b, c, shape); break;
      // The 3 largest of each row (all of a shorter one).
      case BP_OP_FAMILY_TOPK:
        add_topk(b, c, shape, std::min<int64_t>(3, shape.back()), true, dense(), dense(),
                 domain_for(op, 0, dtype, out_dtype));
        break;
      case BP_OP_FAMILY_NORMALIZE: add_normalize(b, c, shape, 1e-5, true, true, true, true); break;
      // shape[0] queries of 4 features attending to one key more, masked, causal.
      case BP_OP_FAMILY_ATTENTION: {
        AttentionSpec spec;
        spec.lq = shape[0], spec.lk = shape[0] + 1, spec.d = 4, spec.dv = shape.size() > 1 ? shape[1] : 3;
        spec.mask = AttentionMask::full, spec.hidden = 0, spec.causal = true;
        add_attention(b, c, spec);
        break;
      }
      case BP_OP_FAMILY_POOL:
      case BP_OP_FAMILY_POOL_GRAD: add_pool(b, c, shape); break;
      default: break;
    }
  }
  return std::move(b.cases);
}

std::vector<std::vector<int64_t>> small_shapes_for(int32_t op) {
  if (op_family(op) == BP_OP_FAMILY_MATMUL) return {{8, 16}, {64, 64}};
  return {{5, 7}, {64, 1000}};
}

bool can_chain(int32_t op, int32_t dtype, int32_t out_dtype) {
  const int32_t family = op_family(op);
  if (dtype != out_dtype) return false;
  return family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_UNARY || family == BP_OP_FAMILY_COPY;
}

Case make_chain_case(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed, const std::vector<int64_t> &shape) {
  Builder b(op, dtype, out_dtype, seed);
  Case &c = b.start(label("in place", shape));
  ViewDesc x = add_view(c, dtype, shape, dense(), true);
  fill_random(c, x, b.rng, domain_for(op, 0, dtype, out_dtype));
  c.inputs.push_back(x);
  if (op_family(op) == BP_OP_FAMILY_BINARY) {
    ViewDesc y = add_view(c, dtype, shape, dense(), false);
    // Small steps keep a long chain of x = x op y finite.
    Domain dom = domain_for(op, 1, dtype, out_dtype);
    if (op == BP_OP_MUL || op == BP_OP_DIV) dom = is_float(dtype) ? Domain{Domain::uniform, 0.9, 1.1} : Domain{Domain::ints, 1, 1};
    if (op == BP_OP_POW) dom = is_float(dtype) ? Domain{Domain::uniform, 0.9, 1.1} : Domain{Domain::ints, 1, 1};
    fill_random(c, y, b.rng, dom);
    c.inputs.push_back(y);
  }
  c.output = x;
  return std::move(c);
}


}  // namespace bpcheck
