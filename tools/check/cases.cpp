#include "cases.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace bpcheck {

namespace {

// Bytes around every output (filled with kOutputPattern and checked after the
// call) and the filler of input storages outside their views.
constexpr uint8_t kOutputPattern = 0xA5;
constexpr uint8_t kInputPattern = 0x5A;
constexpr int64_t kGuardBytes = 64;

using Shape = std::vector<int64_t>;

// ---- views and storages -----------------------------------------------

enum class Layout { dense, transposed, broadcast, stepped };

struct LayoutSpec {
  Layout kind = Layout::dense;
  int axis = 0;  // broadcast: the stride-0 axis
  int step = 2;  // stepped: every step-th element along the last axis
};

LayoutSpec dense() { return {}; }
LayoutSpec transposed() { return {Layout::transposed, 0, 2}; }
LayoutSpec broadcast(int axis) { return {Layout::broadcast, axis, 2}; }
LayoutSpec stepped() { return {Layout::stepped, 0, 2}; }

void c_strides(const Shape &shape, int64_t *strides) {
  int64_t s = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(shape[size_t(d)], 1);
  }
}

// A new storage holding one view with the given layout. Outputs get
// kGuardBytes of sentinel on both sides.
ViewDesc add_view(Case &c, int32_t dtype, const Shape &shape, LayoutSpec layout, bool is_output) {
  ViewDesc v;
  v.dtype = dtype;
  v.rank = int32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) v.shape[d] = shape[d];
  const int r = v.rank;
  switch (layout.kind) {
    case Layout::dense: c_strides(shape, v.strides); break;
    case Layout::transposed: {
      Shape rev(shape.rbegin(), shape.rend());
      int64_t rs[BP_MAX_RANK];
      c_strides(rev, rs);
      for (int d = 0; d < r; ++d) v.strides[d] = rs[r - 1 - d];
      break;
    }
    case Layout::broadcast: {
      Shape base = shape;
      base[size_t(layout.axis)] = 1;
      c_strides(base, v.strides);
      v.strides[layout.axis] = 0;
      break;
    }
    case Layout::stepped: {
      Shape base = shape;
      if (r > 0) base[size_t(r - 1)] *= layout.step;
      c_strides(base, v.strides);
      if (r > 0) v.strides[r - 1] = layout.step;
      break;
    }
  }
  const int64_t esize = dtype_size(dtype);
  int64_t reach = numel(v) > 0 ? 1 : 0;
  if (reach)
    for (int d = 0; d < r; ++d) reach += (v.shape[d] - 1) * v.strides[d];
  const int64_t lead = is_output ? kGuardBytes / esize : 3;
  const int64_t trail = is_output ? kGuardBytes / esize : 2;
  v.offset = uint64_t(lead * esize);
  v.storage = int(c.storages.size());
  c.storages.emplace_back(size_t((lead + reach + trail) * esize), is_output ? kOutputPattern : kInputPattern);
  return v;
}

template <class F>
void for_each_index(const ViewDesc &v, F &&f) {
  const int64_t n = numel(v);
  int64_t idx[BP_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; ++i) {
    f(idx, i);
    for (int d = v.rank - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
}

uint64_t byte_at(const ViewDesc &v, const int64_t *idx) {
  int64_t e = 0;
  for (int d = 0; d < v.rank; ++d) e += idx[d] * v.strides[d];
  return v.offset + uint64_t(e * dtype_size(v.dtype));
}

// ---- element values -------------------------------------------------------

struct Val {
  double d = 0;   // for float dtypes
  int64_t i = 0;  // for int and bool dtypes
};

void store(int32_t dtype, uint8_t *p, Val v) {
  switch (dtype) {
    case BP_FLOAT32: {
      float f = float(v.d);
      std::memcpy(p, &f, 4);
      break;
    }
    case BP_FLOAT64: std::memcpy(p, &v.d, 8); break;
    case BP_INT32: {
      int32_t x = int32_t(uint32_t(uint64_t(v.i)));
      std::memcpy(p, &x, 4);
      break;
    }
    case BP_INT64: std::memcpy(p, &v.i, 8); break;
    case BP_BOOL: *p = v.i ? 1 : 0; break;
    default: break;
  }
}

double load_double(int32_t dtype, const uint8_t *p) {
  switch (dtype) {
    case BP_FLOAT32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case BP_FLOAT64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    case BP_INT32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case BP_INT64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return double(x);
    }
    default: return *p;
  }
}

int64_t load_int(int32_t dtype, const uint8_t *p) {
  switch (dtype) {
    case BP_INT32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case BP_INT64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return x;
    }
    case BP_BOOL: return *p;
    default: return int64_t(load_double(dtype, p));
  }
}

template <class F>
void fill(Case &c, const ViewDesc &v, F &&value_of) {
  std::vector<uint8_t> &s = c.storages[size_t(v.storage)];
  for_each_index(v, [&](const int64_t *idx, int64_t i) { store(v.dtype, s.data() + byte_at(v, idx), value_of(idx, i)); });
}

// Where random values come from.
struct Domain {
  enum Kind { uniform, nonzero, ints, full, full32, boolean } kind = uniform;
  double lo = -10, hi = 10;
};

Val draw(std::mt19937_64 &rng, int32_t dtype, const Domain &dom) {
  Val v;
  if (dom.kind == Domain::boolean || dtype == BP_BOOL) {
    v.i = int64_t(rng() & 1);
    v.d = double(v.i);
    return v;
  }
  if (dom.kind == Domain::full || dom.kind == Domain::full32) {
    uint64_t bits = rng();
    if (dtype == BP_INT32 || dom.kind == Domain::full32) bits = uint64_t(int64_t(int32_t(uint32_t(bits))));
    v.i = int64_t(bits);
    v.d = double(v.i);
    return v;
  }
  if (is_integer(dtype) || dom.kind == Domain::ints) {
    std::uniform_int_distribution<int64_t> dist(int64_t(dom.lo), int64_t(dom.hi));
    v.i = dist(rng);
    v.d = double(v.i);  // integral values, also for float dtypes
    return v;
  }
  std::uniform_real_distribution<double> dist(dom.lo, dom.hi);
  v.d = dist(rng);
  if (dom.kind == Domain::nonzero && std::fabs(v.d) < 0.5) v.d = v.d < 0 ? v.d - 0.5 : v.d + 0.5;
  v.i = int64_t(v.d);
  return v;
}

void fill_random(Case &c, const ViewDesc &v, std::mt19937_64 &rng, const Domain &dom) {
  fill(c, v, [&](const int64_t *, int64_t) { return draw(rng, v.dtype, dom); });
}

// Input values that keep each op inside its defined, well-conditioned range.
Domain domain_for(int32_t op, int input, int32_t dtype, int32_t out_dtype) {
  Domain d;
  if (dtype == BP_BOOL) return {Domain::boolean, 0, 1};
  if (is_float(dtype)) {
    switch (op) {
      case BP_OP_LOG: case BP_OP_SQRT: return {Domain::uniform, 0.01, 100};
      case BP_OP_POW: return input == 0 ? Domain{Domain::uniform, 0.1, 4} : Domain{Domain::uniform, -3, 3};
      case BP_OP_DIV: return input == 1 ? Domain{Domain::nonzero, -10, 10} : d;
      case BP_OP_MATMUL: return {Domain::uniform, -1, 1};
      case BP_OP_COPY:
        if (!is_float(out_dtype)) return {Domain::uniform, -1000, 1000};
        return {Domain::uniform, -1000, 1000};
      default: return d;
    }
  }
  // int32, int64
  switch (op) {
    case BP_OP_POW: return input == 0 ? Domain{Domain::ints, -6, 6} : Domain{Domain::ints, -3, 12};
    case BP_OP_MATMUL: return {Domain::ints, -20, 20};
    case BP_OP_COPY:
      if (dtype == BP_INT64 && out_dtype == BP_INT32) return {Domain::full32, 0, 0};
      if (is_float(out_dtype)) return {Domain::full, 0, 0};
      return {Domain::ints, -1000, 1000};
    default: return {Domain::ints, -1000, 1000};
  }
}

const std::vector<Val> &specials(int32_t dtype) {
  static const std::vector<Val> floats = [] {
    std::vector<Val> v;
    const double inf = std::numeric_limits<double>::infinity();
    for (double d : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e30, 3.0})
      v.push_back({d, 0});
    return v;
  }();
  static const std::vector<Val> i32 = [] {
    std::vector<Val> v;
    for (int64_t i : {int64_t(INT32_MIN), int64_t(INT32_MAX), int64_t(-1), int64_t(0), int64_t(1), int64_t(2),
                      int64_t(-2), int64_t(1000)})
      v.push_back({double(i), i});
    return v;
  }();
  static const std::vector<Val> i64 = [] {
    std::vector<Val> v;
    for (int64_t i : {INT64_MIN, INT64_MAX, int64_t(-1), int64_t(0), int64_t(1), int64_t(2), int64_t(-2), int64_t(1000)})
      v.push_back({double(i), i});
    return v;
  }();
  static const std::vector<Val> b = {{0, 0}, {1, 1}};
  switch (dtype) {
    case BP_FLOAT32: case BP_FLOAT64: return floats;
    case BP_INT32: return i32;
    case BP_INT64: return i64;
    default: return b;
  }
}

// Whether the special values (NaN, infinities, extreme integers) have a
// defined result for this op and dtype.
bool specials_apply(int32_t op, int32_t dtype, int32_t out_dtype) {
  const bool f = is_float(dtype);
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_MAXIMUM: case BP_OP_MINIMUM: return dtype != BP_BOOL;
    case BP_OP_DIV: return f;
    case BP_OP_POW: return false;  // integer exponents that large would loop for ever
    case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE: case BP_OP_WHERE:
      return true;
    case BP_OP_NEG: case BP_OP_RELU: return dtype != BP_BOOL;
    case BP_OP_ABS: return dtype != BP_BOOL;  // INT_MIN is left out below
    case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT: case BP_OP_TANH: case BP_OP_SIGMOID: return f;
    case BP_OP_SUM: case BP_OP_MEAN: return f;
    case BP_OP_MAX: case BP_OP_MIN: case BP_OP_ARGMAX: return dtype != BP_BOOL;
    case BP_OP_COPY: return !(f && is_integer(out_dtype));  // float to int of NaN/inf is unspecified
    default: return false;
  }
}

std::vector<Val> specials_for(int32_t op, int32_t dtype) {
  std::vector<Val> v = specials(dtype);
  if (op == BP_OP_ABS && is_integer(dtype)) v.erase(v.begin());  // abs(INT_MIN) is undefined
  return v;
}

// ---- case builders ----------------------------------------------------

struct Builder {
  int32_t op, dtype, out_dtype;
  std::mt19937_64 rng;
  std::vector<Case> cases;

  Builder(int32_t op_, int32_t dtype_, int32_t out_, uint64_t seed) : op(op_), dtype(dtype_), out_dtype(out_), rng(seed) {}

  Case &start(const std::string &label) {
    cases.emplace_back();
    Case &c = cases.back();
    c.label = label;
    c.op = op;
    std::memset(&c.attrs, 0, sizeof c.attrs);
    c.attrs.struct_size = sizeof c.attrs;
    return c;
  }

  ViewDesc input(Case &c, int index, int32_t dt, const Shape &shape, LayoutSpec layout) {
    ViewDesc v = add_view(c, dt, shape, layout, false);
    fill_random(c, v, rng, domain_for(op, index, dt, out_dtype));
    return v;
  }
};

std::string label(const char *what, const Shape &shape) {
  std::string s = what;
  if (!s.empty()) s += " ";
  return s + shape_text(int32_t(shape.size()), shape.data());
}

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
// Large enough for every thread of a backend (300 000 elements); the
// secondary large cases use a third of that.
const Shape kLarge = {600, 500};
const Shape kLargeish = {400, 250};

// Scalar operands by op and dtype: (rhs, lhs).
std::pair<double, double> scalars(int32_t op, int32_t dtype) {
  if (dtype == BP_BOOL) return {1.0, 0.0};
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
  const bool compare = find_op(b.op)->family == Family::compare;
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
  if (specials_apply(b.op, b.dtype, b.out_dtype)) {
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
  if (specials_apply(b.op, b.dtype, b.out_dtype)) {
    const std::vector<Val> sp = specials_for(b.op, b.dtype);
    const int64_t n = int64_t(sp.size());
    Case &c = b.start(label("special values", {n}));
    ViewDesc x = add_view(c, b.dtype, {n}, dense(), false);
    fill(c, x, [&](const int64_t *, int64_t i) { return sp[size_t(i)]; });
    c.inputs.push_back(x);
    c.output = add_view(c, b.out_dtype, {n}, dense(), true);
  }
}

void reduce_cases(Builder &b) {
  const bool empty_set_ok = b.op == BP_OP_SUM || b.op == BP_OP_MEAN || b.op == BP_OP_NORM;
  auto red = [&](const char *what, const Shape &in, const Shape &out, LayoutSpec li) {
    Case &c = b.start(std::string(what) + (*what ? " " : "") + shape_text(int32_t(in.size()), in.data()) + " -> " +
                      shape_text(int32_t(out.size()), out.data()));
    c.inputs.push_back(b.input(c, 0, b.dtype, in, li));
    c.output = add_view(c, b.out_dtype, out, dense(), true);
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
  if (specials_apply(b.op, b.dtype, b.out_dtype)) {
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
      else if (b.dtype == BP_BOOL) first = {1, 0, 0}, second = {2.5, 0, 0};
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
}

// ---- tolerances -------------------------------------------------------------

enum class TolClass { exact, arith, trans, accum };

TolClass tol_class(int32_t op) {
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_DIV: case BP_OP_ARANGE: case BP_OP_RANDOM_UNIFORM:
      return TolClass::arith;
    case BP_OP_POW: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT: case BP_OP_TANH: case BP_OP_SIGMOID:
    case BP_OP_RANDOM_NORMAL:
      return TolClass::trans;
    case BP_OP_SUM: case BP_OP_MEAN: case BP_OP_NORM: case BP_OP_MATMUL: return TolClass::accum;
    default: return TolClass::exact;
  }
}

struct Tolerance {
  double rtol = 0, atol = 0;
};

Tolerance tolerance(int32_t op, int32_t dtype) {
  const bool f32 = dtype == BP_FLOAT32;
  switch (tol_class(op)) {
    case TolClass::exact: return {0, 0};
    case TolClass::arith: return f32 ? Tolerance{1e-5, 1e-30} : Tolerance{1e-12, 1e-300};
    case TolClass::trans: return f32 ? Tolerance{2e-5, 1e-7} : Tolerance{1e-12, 1e-14};
    case TolClass::accum: return f32 ? Tolerance{5e-5, 1e-6} : Tolerance{1e-11, 1e-13};
  }
  return {};
}

int64_t c_position(const ViewDesc &v, const int64_t *idx) {
  int64_t pos = 0;
  for (int d = 0; d < v.rank; ++d) pos = pos * v.shape[d] + idx[d];
  return pos;
}

// Sum of the magnitudes of the terms behind each output element of a SUM,
// MEAN or MATMUL (by C-order position): the scale their rounding error
// grows with.
std::vector<double> accum_scale(const Case &c) {
  std::vector<double> scale(size_t(numel(c.output)), 0.0);
  if (c.op == BP_OP_SUM || c.op == BP_OP_MEAN) {
    const ViewDesc &in = c.inputs[0];
    const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
    std::vector<int64_t> count(scale.size(), 0);
    for_each_index(in, [&](const int64_t *idx, int64_t) {
      int64_t oidx[BP_MAX_RANK] = {0};
      for (int d = 0; d < in.rank; ++d) oidx[d] = c.output.shape[d] == 1 ? 0 : idx[d];
      const size_t pos = size_t(c_position(c.output, oidx));
      scale[pos] += std::fabs(load_double(in.dtype, s.data() + byte_at(in, idx)));
      ++count[pos];
    });
    if (c.op == BP_OP_MEAN)
      for (size_t i = 0; i < scale.size(); ++i)
        if (count[i]) scale[i] /= double(count[i]);
  } else if (c.op == BP_OP_MATMUL) {
    const ViewDesc &a = c.inputs[0], &b = c.inputs[1];
    const std::vector<uint8_t> &sa = c.storages[size_t(a.storage)], &sb = c.storages[size_t(b.storage)];
    const int r = c.output.rank;
    const int64_t K = a.shape[r - 1];
    for_each_index(c.output, [&](const int64_t *idx, int64_t pos) {
      int64_t ia[BP_MAX_RANK], ib[BP_MAX_RANK];
      std::memcpy(ia, idx, sizeof(int64_t) * size_t(r));
      std::memcpy(ib, idx, sizeof(int64_t) * size_t(r));
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        ia[r - 1] = k;
        ib[r - 2] = k;
        sum += std::fabs(load_double(a.dtype, sa.data() + byte_at(a, ia))) *
               std::fabs(load_double(b.dtype, sb.data() + byte_at(b, ib)));
      }
      scale[size_t(pos)] = sum;
    });
  }
  return scale;
}

std::string value_text(int32_t dtype, const uint8_t *p) {
  if (is_float(dtype)) return format("%.9g", load_double(dtype, p));
  if (dtype == BP_BOOL) return format("%u", unsigned(*p));
  return format("%" PRId64, load_int(dtype, p));
}

std::string index_text(const ViewDesc &v, const int64_t *idx) { return shape_text(v.rank, idx); }

}  // namespace

int64_t numel(const ViewDesc &v) {
  int64_t n = 1;
  for (int d = 0; d < v.rank; ++d) n *= v.shape[d];
  return n;
}

std::vector<Case> make_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed) {
  Builder b(op, dtype, out_dtype, seed);
  const OpInfo *info = find_op(op);
  if (!info) return {};
  switch (info->family) {
    case Family::binary: case Family::compare: binary_cases(b); break;
    case Family::where: where_cases(b); break;
    case Family::unary: case Family::copy: unary_cases(b); break;
    case Family::reduce: reduce_cases(b); break;
    case Family::matmul: matmul_cases(b); break;
    case Family::create: create_cases(b); break;
    default: break;
  }
  return std::move(b.cases);
}

std::vector<Case> make_small_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed,
                                   const std::vector<std::vector<int64_t>> &shapes) {
  Builder b(op, dtype, out_dtype, seed);
  const OpInfo *info = find_op(op);
  if (!info) return {};
  for (const Shape &shape : shapes) {
    Case &c = b.start(label("", shape));
    switch (info->family) {
      case Family::binary: case Family::compare:
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case Family::where:
        c.inputs.push_back(b.input(c, 0, BP_BOOL, shape, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, shape, dense()));
        c.inputs.push_back(b.input(c, 2, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case Family::unary: case Family::copy:
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      case Family::reduce: {
        c.inputs.push_back(b.input(c, 0, dtype, shape, dense()));
        Shape out = shape;
        if (!out.empty()) out.back() = 1;
        c.output = add_view(c, out_dtype, out, dense(), true);
        break;
      }
      case Family::matmul: {
        // shape = [M, K]: a [M, K] @ b [K, M]
        Shape sb = {shape.size() > 1 ? shape[1] : 1, shape[0]};
        Shape sa = {shape[0], sb[0]};
        c.inputs.push_back(b.input(c, 0, dtype, sa, dense()));
        c.inputs.push_back(b.input(c, 1, dtype, sb, dense()));
        c.output = add_view(c, out_dtype, {sa[0], sb[1]}, dense(), true);
        break;
      }
      case Family::create:
        c.attrs.scalar = op == BP_OP_RANDOM_NORMAL ? 0 : 1.0;
        c.attrs.scalar2 = 1.0;
        c.attrs.seed = 7;
        c.scale_floor = 3;
        c.output = add_view(c, out_dtype, shape, dense(), true);
        break;
      default: break;
    }
  }
  return std::move(b.cases);
}

bool can_chain(int32_t op, int32_t dtype, int32_t out_dtype) {
  const OpInfo *info = find_op(op);
  if (!info || dtype != out_dtype) return false;
  return info->family == Family::binary || info->family == Family::unary || info->family == Family::copy;
}

Case make_chain_case(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed, const std::vector<int64_t> &shape) {
  Builder b(op, dtype, out_dtype, seed);
  Case &c = b.start(label("in place", shape));
  ViewDesc x = add_view(c, dtype, shape, dense(), true);
  fill_random(c, x, b.rng, domain_for(op, 0, dtype, out_dtype));
  c.inputs.push_back(x);
  if (find_op(op)->family == Family::binary) {
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

// ---- running ----------------------------------------------------------

BoundCase::BoundCase(Plugin &plugin, int32_t device, const Case &c) : plugin_(plugin), device_(device), case_(c) {
  buffers_.assign(c.storages.size(), nullptr);
  for (size_t i = 0; i < c.storages.size(); ++i) {
    bp_buffer b = nullptr;
    bp_status s = plugin.alloc(device, c.storages[i].size(), &b);
    if (s != BP_OK) {
      failure_ = format("alloc of %zu bytes failed: ", c.storages[i].size()) + plugin.describe(s);
      return;
    }
    buffers_[i] = b;
    if (!c.storages[i].empty()) {
      s = plugin.write(b, 0, c.storages[i].data(), c.storages[i].size());
      if (s != BP_OK) {
        failure_ = format("write of %zu bytes failed: ", c.storages[i].size()) + plugin.describe(s);
        return;
      }
    }
  }
}

BoundCase::~BoundCase() {
  for (bp_buffer b : buffers_)
    if (b) plugin_.free(b);
}

bp_status BoundCase::free_storage(int storage) {
  bp_buffer &b = buffers_[size_t(storage)];
  bp_status s = plugin_.free(b);
  b = nullptr;
  return s;
}

bp_plugin_tensor BoundCase::tensor(const ViewDesc &v) const {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  t.buffer = buffers_[size_t(v.storage)];
  t.offset = v.offset;
  t.dtype = v.dtype;
  t.rank = v.rank;
  for (int d = 0; d < v.rank; ++d) {
    t.shape[d] = v.shape[d];
    t.strides[d] = v.strides[d];
  }
  return t;
}

bp_status BoundCase::execute() { return execute_raw(&case_.attrs); }

bp_status BoundCase::execute(const bp_op_attrs &attrs) { return execute_raw(&attrs); }

bp_status BoundCase::execute_raw(const bp_op_attrs *attrs) {
  bp_plugin_tensor inputs[3];
  for (size_t i = 0; i < case_.inputs.size() && i < 3; ++i) inputs[i] = tensor(case_.inputs[i]);
  bp_plugin_tensor output = tensor(case_.output);
  return plugin_.execute(device_, case_.op, attrs, case_.inputs.empty() ? nullptr : inputs,
                         int32_t(case_.inputs.size()), &output);
}

std::string BoundCase::read_storage(int storage, std::vector<uint8_t> *out) {
  out->assign(case_.storages[size_t(storage)].size(), 0);
  if (out->empty()) return {};
  bp_status s = plugin_.read(buffers_[size_t(storage)], 0, out->data(), out->size());
  if (s != BP_OK) return format("read of %zu bytes failed: ", out->size()) + plugin_.describe(s);
  return {};
}

std::string BoundCase::write_storage(int storage, const std::vector<uint8_t> &bytes) {
  if (bytes.empty()) return {};
  bp_status s = plugin_.write(buffers_[size_t(storage)], 0, bytes.data(), bytes.size());
  if (s != BP_OK) return format("write of %zu bytes failed: ", bytes.size()) + plugin_.describe(s);
  return {};
}

std::string BoundCase::read_all(std::vector<std::vector<uint8_t>> *out) {
  out->resize(case_.storages.size());
  for (size_t i = 0; i < case_.storages.size(); ++i) {
    if (!buffers_[i]) continue;
    std::string e = read_storage(int(i), &(*out)[i]);
    if (!e.empty()) return e;
  }
  return {};
}

Outcome run_case(Plugin &plugin, int32_t device, const Case &c) {
  Outcome o;
  BoundCase bound(plugin, device, c);
  if (!bound.ok()) {
    o.failure = bound.failure();
    return o;
  }
  bp_status s = bound.execute();
  if (s != BP_OK) {
    o.failure = "execute refused it: " + plugin.describe(s);
    return o;
  }
  std::string e = bound.read_all(&o.storages);
  if (!e.empty()) {
    o.failure = "after execute, " + e;
    return o;
  }
  o.ok = true;
  return o;
}

// ---- judging ------------------------------------------------------------

std::string check_sentinels(const Case &c, const std::vector<uint8_t> &after) {
  const ViewDesc &v = c.output;
  const std::vector<uint8_t> &before = c.storages[size_t(v.storage)];
  if (after.size() != before.size()) return "read back a different number of bytes";
  const int64_t esize = dtype_size(v.dtype);
  std::vector<uint8_t> mask(before.size(), 0);
  uint64_t first = v.offset, end = v.offset;
  bool any = false;
  for_each_index(v, [&](const int64_t *idx, int64_t) {
    uint64_t at = byte_at(v, idx);
    std::memset(mask.data() + at, 1, size_t(esize));
    if (!any || at < first) first = at;
    if (!any || at + uint64_t(esize) > end) end = at + uint64_t(esize);
    any = true;
  });
  int64_t lo_before = -1, hi_before = -1, lo_after = -1, hi_after = -1, gaps = 0, first_gap = -1;
  for (size_t i = 0; i < before.size(); ++i) {
    if (mask[i] || after[i] == before[i]) continue;
    if (i < first) {
      int64_t dist = int64_t(first - i);
      if (lo_before < 0 || dist < lo_before) lo_before = dist;
      if (dist > hi_before) hi_before = dist;
    } else if (i >= end) {
      int64_t dist = int64_t(i - end);
      if (lo_after < 0) lo_after = dist;
      hi_after = dist;
    } else {
      if (first_gap < 0) first_gap = int64_t(i - first);
      ++gaps;
    }
  }
  std::string out;
  if (lo_after >= 0)
    out = format("wrote past the end of its output (sentinel bytes %" PRId64 "..%" PRId64
                 " after its last element were overwritten)",
                 lo_after, hi_after);
  else if (lo_before >= 0)
    out = format("wrote before the start of its output (sentinel bytes %" PRId64 "..%" PRId64
                 " before its first element were overwritten)",
                 lo_before, hi_before);
  else if (gaps > 0)
    out = format("wrote between the elements of its strided output (sentinel: %" PRId64
                 " gap bytes overwritten, the first %" PRId64 " bytes after its first element)",
                 gaps, first_gap);
  return out;
}

std::string check_inputs_untouched(const Case &c, const std::vector<std::vector<uint8_t>> &after) {
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    int s = c.inputs[i].storage;
    if (s == c.output.storage || size_t(s) >= after.size()) continue;
    const std::vector<uint8_t> &a = after[size_t(s)], &b = c.storages[size_t(s)];
    if (a.size() != b.size() || a.empty()) continue;
    auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    if (diff.first != a.end())
      return format("modified its input %zu (byte %td of its buffer changed)", i, diff.first - a.begin());
  }
  return {};
}

std::string compare_outputs(const Case &c, const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected) {
  const ViewDesc &v = c.output;
  const int32_t dtype = v.dtype;
  const Tolerance tol = tolerance(c.op, dtype);
  std::vector<double> scale;
  if (is_float(dtype) && (c.op == BP_OP_SUM || c.op == BP_OP_MEAN || c.op == BP_OP_MATMUL)) scale = accum_scale(c);
  int64_t bad = 0;
  std::string first;
  for_each_index(v, [&](const int64_t *idx, int64_t pos) {
    const uint64_t at = byte_at(v, idx);
    const uint8_t *g = got.data() + at, *e = expected.data() + at;
    bool ok;
    if (!is_float(dtype)) {
      ok = std::memcmp(g, e, size_t(dtype_size(dtype))) == 0;
    } else {
      const double x = load_double(dtype, g), r = load_double(dtype, e);
      if (std::isnan(r))
        ok = std::isnan(x);
      else if (std::isinf(r) || std::isinf(x) || std::isnan(x))
        ok = x == r;
      else {
        double ref_scale = std::max(std::fabs(r), c.scale_floor);
        if (!scale.empty()) ref_scale = std::max(ref_scale, scale[size_t(pos)]);
        ok = std::fabs(x - r) <= tol.atol + tol.rtol * ref_scale;
      }
    }
    if (!ok) {
      if (bad == 0)
        first = "at " + index_text(v, idx) + " it gives " + value_text(dtype, g) + " where the reference gives " +
                value_text(dtype, e);
      ++bad;
    }
  });
  if (bad == 0) return {};
  return "computes wrong values: " + first +
         format(" (%" PRId64 " of %" PRId64 " elements differ)", bad, numel(v));
}

std::string judge(const Case &c, const Outcome &got, const Outcome &expected) {
  if (!got.ok) return got.failure;
  const std::vector<uint8_t> &out = got.storages[size_t(c.output.storage)];
  std::string s = check_sentinels(c, out);
  if (!s.empty()) return s;
  s = check_inputs_untouched(c, got.storages);
  if (!s.empty()) return s;
  return compare_outputs(c, out, expected.storages[size_t(c.output.storage)]);
}

}  // namespace bpcheck
