/*
 * backplane/kernels/op_table.h — the elementwise operators, one row each.
 * Every place that says what an elementwise operator computes is generated
 * from these rows: the functors (elementwise.hpp), the eager and fused
 * kernels of cpu-openblas, the CUDA kernels and the NVRTC source of fused
 * CUDA programs (through the functor's name), OpenCL's kernels (through
 * BP_EW_<id>), and the autograd formulas of the core. Adding an operator is
 * one row here and its math (docs/adding-an-operator.md).
 *
 * What a row does not repeat has one home elsewhere: the operator's value,
 * family, dtype set and output dtype are the vocabulary's (BP_OP_LIST in
 * backplane/vocabulary.h); the math is BP_EW_<id>'s
 * (backplane/kernels/elementwise_ops.h), from which elementwise.hpp
 * generates the functor named here.
 *
 * Plain preprocessor lists, like the vocabulary's: a user defines
 * X(...) and expands the list, reading the columns it needs. The gradient
 * columns are expressions only the core's autograd expands
 * (core/autograd/elementwise.cpp: g is the output's gradient, x and y the
 * operands, out the result, s a scalar operand; mul, div, neg, scale, fn,
 * ... its helpers), so a backend never sees their names.
 */
#ifndef BACKPLANE_KERNELS_OP_TABLE_H
#define BACKPLANE_KERNELS_OP_TABLE_H

/*
 * Unary operators: X(id, functor, cost, saves, grad).
 * - id: BP_OP_<id>.
 * - functor: the name of bp_kernels::<functor>, generated from BP_EW_<id> and
 *   applied in the dtype's compute type.
 * - cost: Cheap or Transcendental: how much one element costs, which sizes
 *   a CPU thread's share.
 * - saves: what `grad` reads (SAVE_X, SAVE_OUT, or SAVE_NOTHING), kept
 *   alive by the graph; NOT_DIFFERENTIABLE for an operator that records
 *   no gradient (its grad is no_gradient()).
 * - grad: d out / d x times g.
 */
#define BP_KERNEL_UNARY_OPS(X)                                                                              \
  X(NEG, Neg, Cheap, SAVE_NOTHING, neg(g))                                                                  \
  X(ABS, Abs, Cheap, SAVE_X, mul(g, sign(x, g)))                                                            \
  X(EXP, Exp, Transcendental, SAVE_OUT, mul(g, out))                                                        \
  X(LOG, Log, Transcendental, SAVE_X, div(g, x))                                                            \
  X(SQRT, Sqrt, Cheap, SAVE_OUT, div(scale(g, 0.5), out))                                                   \
  X(TANH, Tanh, Transcendental, SAVE_OUT, mul(g, one_minus(mul(out, out))))                                 \
  X(SIGMOID, Sigmoid, Transcendental, SAVE_OUT, mul(g, mul(out, one_minus(out))))                           \
  X(RELU, Relu, Cheap, SAVE_X, select_where(cmp_scalar(BP_OP_GT, x, 0.0), g, zeros(g, g.dtype)))           \
  X(SQUARE, Square, Cheap, SAVE_X, mul(g, scale(x, 2.0)))                                                   \
  X(SIN, Sin, Transcendental, SAVE_X, mul(g, fn(BP_OP_COS, x)))                                             \
  X(COS, Cos, Transcendental, SAVE_X, neg(mul(g, fn(BP_OP_SIN, x))))                                        \
  X(BITWISE_NOT, BitwiseNot, Cheap, NOT_DIFFERENTIABLE, no_gradient())                                     \
  /* 2 / sqrt(pi) exp(-x^2) */                                                                              \
  X(ERF, Erf, Transcendental, SAVE_X, mul(g, scale(fn(BP_OP_EXP, neg(mul(x, x))), 1.1283791670955126)))     \
  X(EXPM1, Expm1, Transcendental, SAVE_OUT, mul(g, shift(out, 1.0)))                                        \
  X(LOG1P, Log1p, Transcendental, SAVE_X, div(g, shift(x, 1.0)))                                            \
  /* -x^(-3/2) / 2 = -out^3 / 2 */                                                                          \
  X(RSQRT, Rsqrt, Cheap, SAVE_OUT, scale(mul(g, mul(out, mul(out, out))), -0.5))                            \
  /* piecewise constant: a zero gradient, as PyTorch's */                                                   \
  X(FLOOR, Floor, Cheap, SAVE_NOTHING, zeros(g, g.dtype))                                                   \
  X(CEIL, Ceil, Cheap, SAVE_NOTHING, zeros(g, g.dtype))                                                     \
  X(ROUND, Round, Cheap, SAVE_NOTHING, zeros(g, g.dtype))                                                   \
  X(SIGN, Sign, Cheap, SAVE_NOTHING, zeros(g, g.dtype))

/*
 * Binary operators whose output has the inputs' dtype:
 * X(id, functor, cost, saves, grad_x, grad_y, rhs_saves, grad_rhs, lhs_saves, grad_lhs).
 * - saves, grad_x, grad_y: op(x, y) of two tensors; saves is SAVE_X,
 *   SAVE_Y and SAVE_OUT or'ed together, or SAVE_NOTHING.
 * - rhs_saves, grad_rhs: op(x, s) for a scalar s, the gradient of x.
 * - lhs_saves, grad_lhs: op(s, x), likewise.
 * NOT_DIFFERENTIABLE in all three saves columns: no gradient is recorded
 * (piecewise constant or integer-only operators).
 */
#define BP_KERNEL_BINARY_OPS(X)                                                                              \
  X(ADD, Add, Cheap, SAVE_NOTHING, g, g, SAVE_NOTHING, g, SAVE_NOTHING, g)                                  \
  X(SUB, Sub, Cheap, SAVE_NOTHING, g, neg(g), SAVE_NOTHING, g, SAVE_NOTHING, neg(g))                        \
  X(MUL, Mul, Cheap, SAVE_X | SAVE_Y, mul(g, y), mul(g, x), SAVE_NOTHING, scale(g, s), SAVE_NOTHING,        \
    scale(g, s))                                                                                            \
  /* x / s; s / x, whose derivative -s / x^2 is -out / x */                                                 \
  X(DIV, Div, Cheap, SAVE_Y | SAVE_OUT, div(g, y), neg(div(mul(g, out), y)), SAVE_NOTHING, scale(g, 1.0 / s), \
    SAVE_X | SAVE_OUT, neg(div(mul(g, out), x)))                                                            \
  /* d/dx x^y = y x^(y-1); d/dy x^y = x^y log x */                                                          \
  X(POW, Pow, Transcendental, SAVE_X | SAVE_Y | SAVE_OUT, mul(g, mul(y, pow(x, shift(y, -1.0)))),           \
    mul(g, mul(out, fn(BP_OP_LOG, x))), SAVE_X, mul(g, scale(pow_scalar(x, s - 1.0), s)), SAVE_OUT,         \
    scale(mul(g, out), std::log(s)))                                                                        \
  /* the larger (smaller) operand takes the gradient; a tie splits it */                                    \
  X(MAXIMUM, Maximum, Cheap, SAVE_X | SAVE_Y, winner(BP_OP_GT, x, y, g), winner(BP_OP_GT, y, x, g), SAVE_X,  \
    winner_scalar(BP_OP_GT, x, s, g), SAVE_X, winner_scalar(BP_OP_GT, x, s, g))                             \
  X(MINIMUM, Minimum, Cheap, SAVE_X | SAVE_Y, winner(BP_OP_LT, x, y, g), winner(BP_OP_LT, y, x, g), SAVE_X,  \
    winner_scalar(BP_OP_LT, x, s, g), SAVE_X, winner_scalar(BP_OP_LT, x, s, g))                             \
  X(FLOOR_DIVIDE, FloorDivide, Cheap, NOT_DIFFERENTIABLE, no_gradient(), no_gradient(), NOT_DIFFERENTIABLE, \
    no_gradient(), NOT_DIFFERENTIABLE, no_gradient())                                                       \
  X(REMAINDER, Remainder, Cheap, NOT_DIFFERENTIABLE, no_gradient(), no_gradient(), NOT_DIFFERENTIABLE,      \
    no_gradient(), NOT_DIFFERENTIABLE, no_gradient())                                                       \
  X(BITWISE_AND, BitwiseAnd, Cheap, NOT_DIFFERENTIABLE, no_gradient(), no_gradient(), NOT_DIFFERENTIABLE,   \
    no_gradient(), NOT_DIFFERENTIABLE, no_gradient())                                                       \
  X(BITWISE_OR, BitwiseOr, Cheap, NOT_DIFFERENTIABLE, no_gradient(), no_gradient(), NOT_DIFFERENTIABLE,     \
    no_gradient(), NOT_DIFFERENTIABLE, no_gradient())                                                       \
  X(BITWISE_XOR, BitwiseXor, Cheap, NOT_DIFFERENTIABLE, no_gradient(), no_gradient(), NOT_DIFFERENTIABLE,   \
    no_gradient(), NOT_DIFFERENTIABLE, no_gradient())

/*
 * Unary predicates, bool out, of the float dtypes (since 1.6; no gradient:
 * piecewise constant): X(id, functor). Each element costs what a Cheap one
 * does. The kernels instantiate bp_kernels::<functor> as those of
 * BP_KERNEL_UNARY_OPS, with a bool output.
 */
#define BP_KERNEL_UNARY_BOOL_OPS(X) \
  X(ISNAN, IsNan)                   \
  X(ISINF, IsInf)

/*
 * Comparisons, bool out, for every dtype (no gradient: piecewise
 * constant): X(id, functor).
 */
#define BP_KERNEL_COMPARE_OPS(X) \
  X(EQ, Eq)                      \
  X(NE, Ne)                      \
  X(LT, Lt)                      \
  X(LE, Le)                      \
  X(GT, Gt)                      \
  X(GE, Ge)

#endif /* BACKPLANE_KERNELS_OP_TABLE_H */
