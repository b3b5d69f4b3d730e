/*
 * backplane/vocabulary.h — the one list of Backplane's numbers and names
 * (since 1.1).
 *
 * Every status, element type, operator, collective and reduction is written
 * exactly once, here, as an X-macro list. The enums of types.h, every name table, every family,
 * arity or dtype rule of the core, of `bp check`, of the plugin SDK and of
 * the C++ and Python bindings are generated from these lists, so that adding
 * an operator is one line here plus its kernels (docs/adding-an-operator.md).
 *
 * How to use a list: define a macro taking the list's columns and pass its
 * name, e.g.
 *
 *     #define NAME_OF(id, value, name, family, dtypes, out) case value: return name;
 *     switch (op) { BP_OP_LIST(NAME_OF) }
 *
 * Published values never change and are never reused. A list only grows
 * (append-only within a major version); code that walks a list must accept
 * entries it did not know when it was written. The columns of each list are
 * fixed for major version 1, so a macro written for a list keeps working.
 *
 * Plain C99, no declarations: types.h includes this file and turns the lists
 * into enums and lookup functions.
 */
#ifndef BACKPLANE_VOCABULARY_H
#define BACKPLANE_VOCABULARY_H

/*
 * Status codes: X(id, value, doc). The enumerator is BP_<id> (BP_OK,
 * BP_ERR_SHAPE, ...) and bp_status_name() returns "BP_<id>".
 */
#define BP_STATUS_LIST(X)                                                                    \
  X(OK, 0, "success")                                                                        \
  X(ERR_INVALID_ARGUMENT, 1, "NULL pointer, bad op or other enum value (a dtype: ERR_DTYPE), or bad option") \
  X(ERR_INVALID_HANDLE, 2, "zero, released or never-issued tensor handle, or bad device id") \
  X(ERR_DEVICE_MISMATCH, 3, "operator inputs live on different devices")                     \
  X(ERR_UNKNOWN_DEVICE, 4, "a device name or index that does not exist")                     \
  X(ERR_UNSUPPORTED, 5, "the owning backend does not implement this operator or dtype")      \
  X(ERR_SHAPE, 6, "shapes cannot broadcast, bad axis or bad rank")                           \
  X(ERR_DTYPE, 7, "element type not allowed for this operator, or a number that is no dtype") \
  X(ERR_OUT_OF_MEMORY, 8, "a host or device allocation failed")                               \
  X(ERR_CONFIG, 9, "the TOML configuration is malformed or invalid")                         \
  X(ERR_PLUGIN, 10, "a backend could not be loaded or initialised")                          \
  X(ERR_BACKEND, 11, "a backend call failed (driver error, ...)")                            \
  X(ERR_STATE, 12, "call not valid now (e.g. bp_init twice)")                                \
  X(ERR_INTERNAL, 13, "a bug in Backplane; the message says where")                          \
  X(ERR_INDEX, 14, "an index outside the extent of its axis (since 1.1)")                   \
  X(ERR_PEER, 15, "a peer process of a collective did not arrive in time (since 1.2)")    \
  X(ERR_IO, 16, "a file could not be opened, read or written (since 1.6)")                   \
  X(ERR_FORMAT, 17, "a file's contents are not in its format: truncated or malformed (since 1.6)")

/*
 * Element types: X(id, value, name, size, kind). The enumerator is BP_<id>
 * (BP_FLOAT32, ...), `name` is what messages and bindings call it, `size` is
 * bytes per element and `kind` a BP_DTYPE_KIND_* (types.h). Bool is one byte
 * holding 0 or 1. Value 0 is BP_DTYPE_INVALID, never a real type.
 * FLOAT16 is IEEE 754 binary16; BFLOAT16 is the upper half of a binary32
 * (8 exponent bits, 7 fraction bits); INT8, UINT8 and INT16 are two's
 * complement and unsigned integers (values 6..10 since 1.4). How they
 * compute and convert is written in plugin.h, how they promote in
 * types.h (bp_vocab_promote).
 */
#define BP_DTYPE_LIST(X)                              \
  X(FLOAT32, 1, "float32", 4, BP_DTYPE_KIND_FLOAT)    \
  X(FLOAT64, 2, "float64", 8, BP_DTYPE_KIND_FLOAT)    \
  X(INT32, 3, "int32", 4, BP_DTYPE_KIND_SIGNED_INT)   \
  X(INT64, 4, "int64", 8, BP_DTYPE_KIND_SIGNED_INT)   \
  X(BOOL, 5, "bool", 1, BP_DTYPE_KIND_BOOL)           \
  X(FLOAT16, 6, "float16", 2, BP_DTYPE_KIND_FLOAT)    \
  X(BFLOAT16, 7, "bfloat16", 2, BP_DTYPE_KIND_FLOAT)  \
  X(INT8, 8, "int8", 1, BP_DTYPE_KIND_SIGNED_INT)     \
  X(UINT8, 9, "uint8", 1, BP_DTYPE_KIND_UNSIGNED_INT) \
  X(INT16, 10, "int16", 2, BP_DTYPE_KIND_SIGNED_INT)

/*
 * Operator families: X(id, value, name, arity). The enumerator is
 * BP_OP_FAMILY_<id>; `arity` is the number of tensor inputs a plugin's
 * execute() receives (a BINARY operator with a scalar operand receives one).
 * How each family uses its inputs is written in plugin.h.
 */
#define BP_OP_FAMILY_LIST(X)     \
  X(BINARY, 1, "binary", 2)      \
  X(COMPARE, 2, "compare", 2)    \
  X(WHERE, 3, "where", 3)        \
  X(UNARY, 4, "unary", 1)        \
  X(REDUCE, 5, "reduce", 1)      \
  X(MATMUL, 6, "matmul", 2)      \
  X(COPY, 7, "copy", 1)          \
  X(CREATE, 8, "create", 0)      \
  X(GATHER, 9, "gather", 2)      \
  X(SCATTER, 10, "scatter", 2)   \
  X(SCAN, 11, "scan", 1)          \
  X(SOFTMAX, 12, "softmax", 1)     \
  X(NORMALIZE, 13, "normalize", 3) \
  X(TOPK, 14, "topk", 1)           \
  X(ATTENTION, 15, "attention", 4) \
  X(CONV, 16, "conv", 3) \
  X(POOL, 17, "pool", 1)           \
  X(POOL_GRAD, 18, "pool_grad", 2)

/*
 * Families whose operators write more than one tensor (since 1.6):
 * X(id, outputs), id a family of the list above. execute()'s `output` then
 * points at the first of `outputs` views, in the order plugin.h gives for
 * the family; a family not listed here writes one. A family's `arity` above
 * counts every input it may take: plugin.h says which of them may be absent
 * (a view of dtype BP_DTYPE_INVALID).
 */
#define BP_OP_FAMILY_OUTPUTS_LIST(X) \
  X(NORMALIZE, 3)                    \
  X(TOPK, 2)                           \
  X(POOL, 2)

/*
 * Operators: X(id, value, name, family, dtypes, out).
 * - The enumerator is BP_OP_<id>; `name` is the operator in messages, traces
 *   and the bindings ("add").
 * - `family` is a BP_OP_FAMILY_* (above).
 * - `dtypes` is the BP_DTYPE_SET_* of input dtypes the ABI defines the
 *   operator for (for WHERE: the two value inputs; for creation operators:
 *   the output; for GATHER: the data, input 0; for SCATTER: the values,
 *   input 1). The user API converts other inputs first (backplane.h).
 * - `out` is the BP_OUT_* rule that gives the output dtype from the input
 *   dtype (types.h).
 * The exact semantics are written in plugin.h.
 */
#define BP_OP_LIST(X) BP_OP_LIST_1_0_TO_1_4(X) BP_OP_LIST_1_5(X) BP_OP_LIST_1_6(X)

/*
 * The operators are grouped by the minor version that brought them, so that
 * an operator's line says when it came as well (bp_vocab_op_since in
 * types.h): the core never asks a plugin built for an older minor version
 * about an operator of a newer group (such a plugin cannot know its
 * number). The first group's operators came in 1.0 to 1.4 (plugin.h marks
 * which) and are asked of every plugin; a new operator joins the newest
 * group. Within a group, families stay together in value order.
 */
#define BP_OP_LIST_1_0_TO_1_4(X)                                                                   \
  X(ADD, 1, "add", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(SUB, 2, "sub", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(MUL, 3, "mul", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(DIV, 4, "div", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(POW, 5, "pow", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(MAXIMUM, 6, "maximum", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                 \
  X(MINIMUM, 7, "minimum", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                 \
  X(EQ, 8, "eq", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                              \
  X(NE, 9, "ne", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                              \
  X(LT, 10, "lt", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                             \
  X(LE, 11, "le", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                             \
  X(GT, 12, "gt", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                             \
  X(GE, 13, "ge", BP_OP_FAMILY_COMPARE, BP_DTYPE_SET_ALL, BP_OUT_BOOL)                             \
  X(WHERE, 14, "where", BP_OP_FAMILY_WHERE, BP_DTYPE_SET_ALL, BP_OUT_SAME)                         \
  X(FLOOR_DIVIDE, 15, "floor_divide", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)      \
  X(REMAINDER, 16, "remainder", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)            \
  X(BITWISE_AND, 17, "bitwise_and", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_INTEGRAL, BP_OUT_SAME)       \
  X(BITWISE_OR, 18, "bitwise_or", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_INTEGRAL, BP_OUT_SAME)         \
  X(BITWISE_XOR, 19, "bitwise_xor", BP_OP_FAMILY_BINARY, BP_DTYPE_SET_INTEGRAL, BP_OUT_SAME)       \
  X(NEG, 20, "neg", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(ABS, 21, "abs", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                         \
  X(EXP, 22, "exp", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(LOG, 23, "log", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(SQRT, 24, "sqrt", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                         \
  X(TANH, 25, "tanh", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                         \
  X(SIGMOID, 26, "sigmoid", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                   \
  X(RELU, 27, "relu", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                       \
  X(SQUARE, 28, "square", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                   \
  X(SIN, 29, "sin", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(COS, 30, "cos", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(BITWISE_NOT, 31, "bitwise_not", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_INTEGRAL, BP_OUT_SAME)        \
  X(SUM, 40, "sum", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_ALL, BP_OUT_SUM)                             \
  X(MEAN, 41, "mean", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                        \
  X(MAX, 42, "max", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                        \
  X(MIN, 43, "min", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                        \
  X(ARGMAX, 44, "argmax", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_NUMERIC, BP_OUT_INT64)                 \
  X(NORM, 45, "norm", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                        \
  X(PROD, 46, "prod", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_NUMERIC, BP_OUT_SUM)                       \
  X(ARGMIN, 47, "argmin", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_NUMERIC, BP_OUT_INT64)                 \
  X(LOGSUMEXP, 48, "logsumexp", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)              \
  X(MATMUL, 60, "matmul", BP_OP_FAMILY_MATMUL, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                  \
  X(COPY, 70, "copy", BP_OP_FAMILY_COPY, BP_DTYPE_SET_ALL, BP_OUT_ANY)                             \
  X(FILL, 80, "fill", BP_OP_FAMILY_CREATE, BP_DTYPE_SET_ALL, BP_OUT_SAME)                          \
  X(ARANGE, 81, "arange", BP_OP_FAMILY_CREATE, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                  \
  X(RANDOM_UNIFORM, 82, "random_uniform", BP_OP_FAMILY_CREATE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)    \
  X(RANDOM_NORMAL, 83, "random_normal", BP_OP_FAMILY_CREATE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)      \
  X(CUMSUM, 90, "cumsum", BP_OP_FAMILY_SCAN, BP_DTYPE_SET_ALL, BP_OUT_SUM)                         \
  X(GATHER_ND, 100, "gather_nd", BP_OP_FAMILY_GATHER, BP_DTYPE_SET_ALL, BP_OUT_SAME)               \
  X(SCATTER_ND, 101, "scatter_nd", BP_OP_FAMILY_SCATTER, BP_DTYPE_SET_ALL, BP_OUT_SAME)            \
  X(SCATTER_ADD_ND, 102, "scatter_add_nd", BP_OP_FAMILY_SCATTER, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)

/* Since 1.5. */
#define BP_OP_LIST_1_5(X)                                                                          \
  X(ERF, 32, "erf", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                           \
  X(EXPM1, 33, "expm1", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                       \
  X(LOG1P, 34, "log1p", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                       \
  X(RSQRT, 35, "rsqrt", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                       \
  X(FLOOR, 36, "floor", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                     \
  X(CEIL, 37, "ceil", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                       \
  X(ROUND, 38, "round", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)                     \
  X(SIGN, 39, "sign", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)

/* Since 1.6. */
#define BP_OP_LIST_1_6(X)                                                                          \
  X(VAR, 50, "var", BP_OP_FAMILY_REDUCE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                          \
  X(SOFTMAX, 110, "softmax", BP_OP_FAMILY_SOFTMAX, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                \
  X(LOG_SOFTMAX, 111, "log_softmax", BP_OP_FAMILY_SOFTMAX, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)        \
  X(LAYER_NORM, 112, "layer_norm", BP_OP_FAMILY_NORMALIZE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)        \
  X(RMS_NORM, 113, "rms_norm", BP_OP_FAMILY_NORMALIZE, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)            \
  X(TOPK, 114, "topk", BP_OP_FAMILY_TOPK, BP_DTYPE_SET_ALL, BP_OUT_SAME)                           \
  X(ATTENTION, 116, "attention", BP_OP_FAMILY_ATTENTION, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)          \
  X(CONV, 120, "conv", BP_OP_FAMILY_CONV, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                         \
  X(CONV_TRANSPOSE, 121, "conv_transpose", BP_OP_FAMILY_CONV, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)     \
  X(CONV_WEIGHT_GRAD, 122, "conv_weight_grad", BP_OP_FAMILY_CONV, BP_DTYPE_SET_FLOAT, BP_OUT_SAME) \
  X(MAX_POOL, 125, "max_pool", BP_OP_FAMILY_POOL, BP_DTYPE_SET_NUMERIC, BP_OUT_SAME)               \
  X(AVG_POOL, 126, "avg_pool", BP_OP_FAMILY_POOL, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)                 \
  X(MAX_POOL_GRAD, 127, "max_pool_grad", BP_OP_FAMILY_POOL_GRAD, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)  \
  X(AVG_POOL_GRAD, 128, "avg_pool_grad", BP_OP_FAMILY_POOL_GRAD, BP_DTYPE_SET_FLOAT, BP_OUT_SAME)  \
  X(ISNAN, 140, "isnan", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_BOOL)                      \
  X(ISINF, 141, "isinf", BP_OP_FAMILY_UNARY, BP_DTYPE_SET_FLOAT, BP_OUT_BOOL)

/*
 * Collectives (since 1.2): X(id, value, name). The enumerator is
 * BP_COLLECTIVE_<id>. What each does is written in plugin.h (the plugin's
 * collective entry) and collectives.h (the user API).
 */
#define BP_COLLECTIVE_LIST(X)                   \
  X(ALL_REDUCE, 1, "all_reduce")                \
  X(BROADCAST, 2, "broadcast")                  \
  X(ALL_GATHER, 3, "all_gather")                \
  X(REDUCE_SCATTER, 4, "reduce_scatter")

/*
 * How a collective combines its tensors (since 1.2): X(id, value, name,
 * dtypes). The enumerator is BP_REDUCE_<id>; `dtypes` is the
 * BP_DTYPE_SET_* the reduction is defined for (MAX and MIN of bool are
 * logical or and and; SUM and MEAN refuse bool).
 */
#define BP_REDUCE_OP_LIST(X)                    \
  X(SUM, 1, "sum", BP_DTYPE_SET_NUMERIC)        \
  X(MEAN, 2, "mean", BP_DTYPE_SET_NUMERIC)      \
  X(MAX, 3, "max", BP_DTYPE_SET_ALL)            \
  X(MIN, 4, "min", BP_DTYPE_SET_ALL)

#endif /* BACKPLANE_VOCABULARY_H */
