/*
 * names.c — names of operators and element types, so that every message
 * says "div of int32" rather than "op 4 of dtype 3".
 */
#include "reference.h"

const char *ref_op_name(int32_t op) {
  switch (op) {
    case BP_OP_ADD: return "add";
    case BP_OP_SUB: return "sub";
    case BP_OP_MUL: return "mul";
    case BP_OP_DIV: return "div";
    case BP_OP_POW: return "pow";
    case BP_OP_MAXIMUM: return "maximum";
    case BP_OP_MINIMUM: return "minimum";
    case BP_OP_EQ: return "eq";
    case BP_OP_NE: return "ne";
    case BP_OP_LT: return "lt";
    case BP_OP_LE: return "le";
    case BP_OP_GT: return "gt";
    case BP_OP_GE: return "ge";
    case BP_OP_WHERE: return "where";
    case BP_OP_NEG: return "neg";
    case BP_OP_ABS: return "abs";
    case BP_OP_EXP: return "exp";
    case BP_OP_LOG: return "log";
    case BP_OP_SQRT: return "sqrt";
    case BP_OP_TANH: return "tanh";
    case BP_OP_SIGMOID: return "sigmoid";
    case BP_OP_RELU: return "relu";
    case BP_OP_SUM: return "sum";
    case BP_OP_MEAN: return "mean";
    case BP_OP_MAX: return "max";
    case BP_OP_MIN: return "min";
    case BP_OP_ARGMAX: return "argmax";
    case BP_OP_NORM: return "norm";
    case BP_OP_MATMUL: return "matmul";
    case BP_OP_COPY: return "copy";
    case BP_OP_FILL: return "fill";
    case BP_OP_ARANGE: return "arange";
    case BP_OP_RANDOM_UNIFORM: return "random_uniform";
    case BP_OP_RANDOM_NORMAL: return "random_normal";
    default: return "unknown";
  }
}

const char *ref_dtype_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float32";
    case BP_FLOAT64: return "float64";
    case BP_INT32: return "int32";
    case BP_INT64: return "int64";
    case BP_BOOL: return "bool";
    default: return "invalid";
  }
}
