// Gradients of the elementwise operators: binary (with a tensor or a scalar
// operand), unary, where, and casts between float dtypes. A formula gives
// the gradient in the output's shape and dtype; the engine sums it down to
// each input's shape and converts it to the input's dtype.
#include <cmath>

#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"

namespace bp::core::autograd {

namespace {

bool differentiable_binary(int32_t op) {
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_DIV: case BP_OP_POW:
    case BP_OP_MAXIMUM: case BP_OP_MINIMUM:
      return true;
    default:
      return false;  // comparisons, //, %, bitwise: piecewise constant or integer
  }
}

bool differentiable_unary(int32_t op) {
  switch (op) {
    case BP_OP_NEG: case BP_OP_ABS: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT:
    case BP_OP_TANH: case BP_OP_SIGMOID: case BP_OP_RELU: case BP_OP_SQUARE: case BP_OP_SIN:
    case BP_OP_COS:
      return true;
    default:
      return false;
  }
}

// v when the formula needs it, else nothing: a saved tensor keeps its
// storage alive as long as the graph.
Saved keep(bool needed, const View &v) { return needed ? Saved(v) : Saved(); }

// d op(a, b) / da and / db times g, for tensors a and b of the output's dtype.
struct BinaryNode : Node {
  int32_t op;
  Saved a, b, out;
  BinaryNode(int32_t op_, const View &a_, const View &b_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        a(keep(op != BP_OP_ADD && op != BP_OP_SUB && op != BP_OP_DIV, a_)),
        b(keep(op != BP_OP_ADD && op != BP_OP_SUB, b_)),
        out(keep(op == BP_OP_DIV || op == BP_OP_POW, out_)) {
    saves(&a, &b, &out);
  }

  std::vector<View> apply(const View &g) override {
    switch (op) {
      case BP_OP_ADD: return {g, g};
      case BP_OP_SUB: return {g, fn(BP_OP_NEG, g)};
      case BP_OP_DIV: {
        const View &y = b.get(name);
        return {wants(0) ? div(g, y) : View(), wants(1) ? fn(BP_OP_NEG, div(mul(g, out.get(name)), y)) : View()};
      }
      default: break;
    }
    const View &x = a.get(name), &y = b.get(name);
    switch (op) {
      case BP_OP_MUL: return {wants(0) ? mul(g, y) : View(), wants(1) ? mul(g, x) : View()};
      case BP_OP_POW: {
        // d/dx x^y = y x^(y-1); d/dy x^y = x^y log x.
        View dx = wants(0) ? mul(g, mul(y, core::binary(BP_OP_POW, x, shift(y, -1.0), nullptr))) : View();
        View dy = wants(1) ? mul(g, mul(out.get(name), fn(BP_OP_LOG, x))) : View();
        return {dx, dy};
      }
      default: {  // MAXIMUM, MINIMUM: the larger (smaller) takes it; a tie splits it.
        const int32_t wins = op == BP_OP_MAXIMUM ? BP_OP_GT : BP_OP_LT;
        View half = scale(g, 0.5), none = zeros(g, g.dtype);
        View tie = cmp(BP_OP_EQ, x, y);
        return {select_where(cmp(wins, x, y), g, select_where(tie, half, none)),
                select_where(cmp(wins, y, x), g, select_where(tie, half, none))};
      }
    }
  }
};

// op(a, s) or op(s, a) for a scalar s: the gradient of the tensor operand.
struct ScalarNode : Node {
  int32_t op;
  double s;
  bool lhs;
  Saved a, out;
  ScalarNode(int32_t op_, const View &a_, double s_, bool lhs_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        s(s_),
        lhs(lhs_),
        a(keep((op_ == BP_OP_DIV && lhs_) || (op_ == BP_OP_POW && !lhs_) || op_ == BP_OP_MAXIMUM ||
                   op_ == BP_OP_MINIMUM,
               a_)),
        out(keep((op_ == BP_OP_DIV || op_ == BP_OP_POW) && lhs_, out_)) {
    saves(&a, &out);
  }

  std::vector<View> apply(const View &g) override {
    switch (op) {
      case BP_OP_ADD: return {g};
      case BP_OP_SUB: return {lhs ? fn(BP_OP_NEG, g) : g};
      case BP_OP_MUL: return {scale(g, s)};
      case BP_OP_DIV:  // x / s, or s / x with derivative -s / x^2 = -out / x
        return {lhs ? fn(BP_OP_NEG, div(mul(g, out.get(name)), a.get(name))) : scale(g, 1.0 / s)};
      case BP_OP_POW:
        if (lhs)  // s^x: s^x log s
          return {scale(mul(g, out.get(name)), std::log(s))};
        return {mul(g, scale(core::binary_scalar(BP_OP_POW, a.get(name), s - 1.0, false, nullptr), s))};
      default: {
        const View &x = a.get(name);
        const int32_t wins = op == BP_OP_MAXIMUM ? BP_OP_GT : BP_OP_LT;
        return {select_where(cmp_scalar(wins, x, s), g,
                             select_where(cmp_scalar(BP_OP_EQ, x, s), scale(g, 0.5), zeros(g, g.dtype)))};
      }
    }
  }
};

struct UnaryNode : Node {
  int32_t op;
  Saved a, out;
  // EXP, SQRT, TANH and SIGMOID are cheapest from their output, the
  // others need their input (NEG neither).
  static bool from_output(int32_t op) {
    return op == BP_OP_EXP || op == BP_OP_SQRT || op == BP_OP_TANH || op == BP_OP_SIGMOID;
  }
  UnaryNode(int32_t op_, const View &a_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        a(keep(!from_output(op_) && op_ != BP_OP_NEG, a_)),
        out(keep(from_output(op_), out_)) {
    saves(&a, &out);
  }

  std::vector<View> apply(const View &g) override {
    if (op == BP_OP_NEG) return {fn(BP_OP_NEG, g)};
    if (from_output(op)) {
      const View &y = out.get(name);
      switch (op) {
        case BP_OP_EXP: return {mul(g, y)};
        case BP_OP_SQRT: return {div(scale(g, 0.5), y)};
        case BP_OP_TANH: return {mul(g, core::binary_scalar(BP_OP_SUB, mul(y, y), 1.0, true, nullptr))};
        default: return {mul(g, mul(y, core::binary_scalar(BP_OP_SUB, y, 1.0, true, nullptr)))};
      }
    }
    const View &x = a.get(name);
    switch (op) {
      case BP_OP_ABS: {  // sign(x), 0 at 0
        View sign = select_where(cmp_scalar(BP_OP_GT, x, 0.0), shift(zeros(g, g.dtype), 1.0),
                                 select_where(cmp_scalar(BP_OP_LT, x, 0.0),
                                              shift(zeros(g, g.dtype), -1.0), zeros(g, g.dtype)));
        return {mul(g, sign)};
      }
      case BP_OP_LOG: return {div(g, x)};
      case BP_OP_RELU: return {select_where(cmp_scalar(BP_OP_GT, x, 0.0), g, zeros(g, g.dtype))};
      case BP_OP_SQUARE: return {mul(g, scale(x, 2.0))};
      case BP_OP_SIN: return {mul(g, fn(BP_OP_COS, x))};
      default: return {fn(BP_OP_NEG, mul(g, fn(BP_OP_SIN, x)))};  // COS
    }
  }
};

struct WhereNode : Node {
  Saved cond;
  WhereNode(const View &c) : Node("where"), cond(c) { saves(&cond); }
  std::vector<View> apply(const View &g) override {
    const View &c = cond.get(name);
    View none = zeros(g, g.dtype);
    return {View(), select_where(c, g, none), select_where(c, none, g)};
  }
};

// Between float dtypes the gradient converts back; the engine does that.
struct CastNode : Node {
  CastNode() : Node("cast") {}
  std::vector<View> apply(const View &g) override { return {g}; }
};

}  // namespace

View binary(int32_t op, const View &a, const View &b) {
  View out = core::binary(op, a, b, nullptr);
  if (!differentiable_binary(op) || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a, &b}); !edges.empty()) {
    // The formulas compute in the output's dtype: inputs converted as the
    // operator converted them.
    std::optional<View> ta, tb;
    const View &ca = as_dtype(a, out.dtype, ta), &cb = as_dtype(b, out.dtype, tb);
    attach(out, std::make_shared<BinaryNode>(op, ca, cb, out), std::move(edges));
  }
  return out;
}

View binary_scalar(int32_t op, const View &a, double scalar, bool scalar_is_lhs, int32_t scalar_kind) {
  View out = core::binary_scalar(op, a, scalar, scalar_is_lhs, nullptr, scalar_kind);
  if (!differentiable_binary(op) || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty()) {
    std::optional<View> ta;
    const View &ca = as_dtype(a, out.dtype, ta);
    attach(out, std::make_shared<ScalarNode>(op, ca, scalar, scalar_is_lhs, out), std::move(edges));
  }
  return out;
}

View unary(int32_t op, const View &a) {
  View out = core::unary(op, a, nullptr);
  if (!differentiable_unary(op) || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty()) {
    std::optional<View> ta;
    const View &ca = as_dtype(a, out.dtype, ta);
    attach(out, std::make_shared<UnaryNode>(op, ca, out), std::move(edges));
  }
  return out;
}

View where(const View &cond, const View &a, const View &b) {
  View out = core::where(cond, a, b, nullptr);
  if (!is_float(out.dtype)) return out;
  if (Edges edges = recording({&cond, &a, &b}); !edges.empty())
    attach(out, std::make_shared<WhereNode>(cond), std::move(edges));
  return out;
}

View cast(const View &a, int32_t dtype) {
  View out = core::cast(a, dtype);
  if (!is_float(dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<CastNode>(), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
