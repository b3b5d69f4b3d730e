// Gradients of the elementwise operators: binary (with a tensor or a scalar
// operand), unary, where, and casts between float dtypes. The formulas of
// the binary and unary operators, and what each reads, are the gradient
// columns of backplane/kernels/op_table.h, expanded here. A formula gives
// the gradient in the output's shape and dtype; the engine sums it down to
// each input's shape and converts it to the input's dtype.
#include <cmath>
#include <string>

#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "backplane/kernels/op_table.h"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core::autograd {

namespace {

// op_table.h's saves columns: what a gradient formula reads.
enum Saves : int { SAVE_NOTHING = 0, SAVE_X = 1, SAVE_Y = 2, SAVE_OUT = 4, NOT_DIFFERENTIABLE = -1 };

// The saves column of a binary operator's tensor form, scalar RHS form and
// scalar LHS form, and of a unary operator; NOT_DIFFERENTIABLE for an
// operator outside the table.
int binary_saves(int32_t op) {
  switch (op) {
#define BP_AUTOGRAD_SAVES_(id, functor, cost, saves, ...) \
  case BP_OP_##id: return (saves);
    BP_KERNEL_BINARY_OPS(BP_AUTOGRAD_SAVES_)
    default: return NOT_DIFFERENTIABLE;
  }
}
int scalar_saves(int32_t op, bool lhs) {
  switch (op) {
#define BP_AUTOGRAD_SCALAR_SAVES_(id, functor, cost, saves, grad_x, grad_y, rhs_saves, grad_rhs, lhs_saves, grad_lhs) \
  case BP_OP_##id: return lhs ? (lhs_saves) : (rhs_saves);
    BP_KERNEL_BINARY_OPS(BP_AUTOGRAD_SCALAR_SAVES_)
#undef BP_AUTOGRAD_SCALAR_SAVES_
    default: return NOT_DIFFERENTIABLE;
  }
}
int unary_saves(int32_t op) {
  switch (op) {
    BP_KERNEL_UNARY_OPS(BP_AUTOGRAD_SAVES_)
#undef BP_AUTOGRAD_SAVES_
    default: return NOT_DIFFERENTIABLE;
  }
}

// v when the formula reads it, else nothing: a saved tensor keeps its
// storage alive as long as the graph.
Saved keep(int saves, int which, const View &v) {
  return saves != NOT_DIFFERENTIABLE && (saves & which) ? Saved(v) : Saved();
}

// A saved tensor as the formulas read it (x, y, out): fetched, and checked
// for being overwritten, only when a formula reads it.
struct Operand {
  const Saved &saved;
  const char *op;
  operator const View &() const { return saved.get(op); }
};

// The helpers the formulas of op_table.h are written with, beside
// record.hpp's (mul, div, scale, shift, fn, cmp_scalar, select_where, zeros).
View neg(const View &v) { return fn(BP_OP_NEG, v); }
View one_minus(const View &v) { return dispatch::binary_scalar(BP_OP_SUB, v, 1.0, true, nullptr); }
View pow(const View &x, const View &e) { return dispatch::binary(BP_OP_POW, x, e, nullptr); }
View pow_scalar(const View &x, double e) { return dispatch::binary_scalar(BP_OP_POW, x, e, false, nullptr); }
// sign(x) in g's dtype, 0 at 0.
View sign(const View &x, const View &g) {
  return select_where(cmp_scalar(BP_OP_GT, x, 0.0), shift(zeros(g, g.dtype), 1.0),
                      select_where(cmp_scalar(BP_OP_LT, x, 0.0), shift(zeros(g, g.dtype), -1.0), zeros(g, g.dtype)));
}
// MAXIMUM's (wins = GT) or MINIMUM's (LT) gradient of x against y: all of
// g where x wins, half where they tie.
View winner(int32_t wins, const View &x, const View &y, const View &g) {
  return select_where(cmp(wins, x, y), g, select_where(cmp(BP_OP_EQ, x, y), scale(g, 0.5), zeros(g, g.dtype)));
}
View winner_scalar(int32_t wins, const View &x, double s, const View &g) {
  return select_where(cmp_scalar(wins, x, s), g,
                      select_where(cmp_scalar(BP_OP_EQ, x, s), scale(g, 0.5), zeros(g, g.dtype)));
}
// The formula of an operator that records no gradient: never evaluated.
View no_gradient() { return View(); }

// d op(x, y) / dx and / dy times g, for tensors x and y of the output's dtype.
struct BinaryNode : Node {
  int32_t op;
  Saved saved_x, saved_y, saved_out;
  BinaryNode(int32_t op_, const View &x_, const View &y_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        saved_x(keep(binary_saves(op_), SAVE_X, x_)),
        saved_y(keep(binary_saves(op_), SAVE_Y, y_)),
        saved_out(keep(binary_saves(op_), SAVE_OUT, out_)) {
    saves(&saved_x, &saved_y, &saved_out);
  }

  std::vector<View> apply(const View &g) override {
    const Operand x{saved_x, name}, y{saved_y, name}, out{saved_out, name};
    switch (op) {
#define BP_AUTOGRAD_BINARY_(id, functor, cost, saves, grad_x, grad_y, ...) \
  case BP_OP_##id: return {wants(0) ? View(grad_x) : View(), wants(1) ? View(grad_y) : View()};
      BP_KERNEL_BINARY_OPS(BP_AUTOGRAD_BINARY_)
#undef BP_AUTOGRAD_BINARY_
      default: fail(BP_ERR_INTERNAL, std::string("autograd: no gradient formula for ") + name);
    }
  }
};

// op(x, s) or op(s, x) for a scalar s: the gradient of the tensor operand.
struct ScalarNode : Node {
  int32_t op;
  double s;
  bool lhs;
  Saved saved_x, saved_out;
  ScalarNode(int32_t op_, const View &x_, double s_, bool lhs_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        s(s_),
        lhs(lhs_),
        saved_x(keep(scalar_saves(op_, lhs_), SAVE_X, x_)),
        saved_out(keep(scalar_saves(op_, lhs_), SAVE_OUT, out_)) {
    saves(&saved_x, &saved_out);
  }

  std::vector<View> apply(const View &g) override {
    const Operand x{saved_x, name}, out{saved_out, name};
    switch (op) {
#define BP_AUTOGRAD_SCALAR_(id, functor, cost, saves, grad_x, grad_y, rhs_saves, grad_rhs, lhs_saves, grad_lhs) \
  case BP_OP_##id: return {lhs ? View(grad_lhs) : View(grad_rhs)};
      BP_KERNEL_BINARY_OPS(BP_AUTOGRAD_SCALAR_)
#undef BP_AUTOGRAD_SCALAR_
      default: fail(BP_ERR_INTERNAL, std::string("autograd: no gradient formula for ") + name);
    }
  }
};

struct UnaryNode : Node {
  int32_t op;
  Saved saved_x, saved_out;
  UnaryNode(int32_t op_, const View &x_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        saved_x(keep(unary_saves(op_), SAVE_X, x_)),
        saved_out(keep(unary_saves(op_), SAVE_OUT, out_)) {
    saves(&saved_x, &saved_out);
  }

  std::vector<View> apply(const View &g) override {
    const Operand x{saved_x, name}, out{saved_out, name};
    switch (op) {
#define BP_AUTOGRAD_UNARY_(id, functor, cost, saves, grad) \
  case BP_OP_##id: return {grad};
      BP_KERNEL_UNARY_OPS(BP_AUTOGRAD_UNARY_)
#undef BP_AUTOGRAD_UNARY_
      default: fail(BP_ERR_INTERNAL, std::string("autograd: no gradient formula for ") + name);
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
  View out = dispatch::binary(op, a, b, nullptr);
  if (binary_saves(op) == NOT_DIFFERENTIABLE || !is_float(out.dtype)) return out;
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
  View out = dispatch::binary_scalar(op, a, scalar, scalar_is_lhs, nullptr, scalar_kind);
  if (scalar_saves(op, scalar_is_lhs) == NOT_DIFFERENTIABLE || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty()) {
    std::optional<View> ta;
    const View &ca = as_dtype(a, out.dtype, ta);
    attach(out, std::make_shared<ScalarNode>(op, ca, scalar, scalar_is_lhs, out), std::move(edges));
  }
  return out;
}

View unary(int32_t op, const View &a) {
  View out = dispatch::unary(op, a, nullptr);
  if (unary_saves(op) == NOT_DIFFERENTIABLE || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty()) {
    std::optional<View> ta;
    const View &ca = as_dtype(a, out.dtype, ta);
    attach(out, std::make_shared<UnaryNode>(op, ca, out), std::move(edges));
  }
  return out;
}

View where(const View &cond, const View &a, const View &b) {
  View out = dispatch::where(cond, a, b, nullptr);
  if (!is_float(out.dtype)) return out;
  if (Edges edges = recording({&cond, &a, &b}); !edges.empty())
    attach(out, std::make_shared<WhereNode>(cond), std::move(edges));
  return out;
}

View cast(const View &a, int32_t dtype) {
  View out = dispatch::cast(a, dtype);
  if (!is_float(dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<CastNode>(), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
