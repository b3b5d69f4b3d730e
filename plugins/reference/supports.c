/*
 * supports.c — the capability table: which (op, dtype, out_dtype) triples
 * this backend implements. supports() answers from it and execute() refuses
 * whatever it excludes, so the two can never disagree.
 *
 * `dtype` and `out_dtype` mean what plugin.h says for supports(): the input
 * dtype (for WHERE the dtype of the two value inputs, for creation ops the
 * output dtype) and the output dtype. The rules follow plugin.h's operator
 * semantics: the reference implements every combination they allow.
 */
#include "reference.h"

ref_family ref_op_family(int32_t op) {
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_DIV: case BP_OP_POW:
    case BP_OP_MAXIMUM: case BP_OP_MINIMUM:
      return REF_FAMILY_BINARY;
    case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE:
      return REF_FAMILY_COMPARE;
    case BP_OP_WHERE:
      return REF_FAMILY_WHERE;
    case BP_OP_NEG: case BP_OP_ABS: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT:
    case BP_OP_TANH: case BP_OP_SIGMOID: case BP_OP_RELU:
      return REF_FAMILY_UNARY;
    case BP_OP_SUM: case BP_OP_MEAN: case BP_OP_MAX: case BP_OP_MIN: case BP_OP_ARGMAX:
    case BP_OP_NORM:
      return REF_FAMILY_REDUCE;
    case BP_OP_MATMUL:
      return REF_FAMILY_MATMUL;
    case BP_OP_COPY:
      return REF_FAMILY_COPY;
    case BP_OP_FILL: case BP_OP_ARANGE: case BP_OP_RANDOM_UNIFORM: case BP_OP_RANDOM_NORMAL:
      return REF_FAMILY_CREATE;
    default:
      return REF_FAMILY_UNKNOWN;
  }
}

/* float32, float64, int32, int64: the "numeric" dtypes (everything but bool). */
static int is_numeric(int32_t dtype) { return ref_dtype_is_float(dtype) || ref_dtype_is_integer(dtype); }

int ref_implements(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (!ref_dtype_is_valid(dtype) || !ref_dtype_is_valid(out_dtype)) return 0;
  switch (op) {
    /* Arithmetic keeps the dtype; bool has no arithmetic. DIV is float only. */
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_POW:
    case BP_OP_MAXIMUM: case BP_OP_MINIMUM:
    case BP_OP_NEG: case BP_OP_ABS: case BP_OP_RELU:
    case BP_OP_MATMUL:
      return is_numeric(dtype) && out_dtype == dtype;
    case BP_OP_DIV:
    case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT: case BP_OP_TANH: case BP_OP_SIGMOID:
      return ref_dtype_is_float(dtype) && out_dtype == dtype;
    /* Comparisons take any dtype, bool included, and write bool. */
    case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE:
      return out_dtype == BP_BOOL;
    /* WHERE selects values of any dtype; the condition is always bool. */
    case BP_OP_WHERE:
      return out_dtype == dtype;
    /* SUM keeps a float dtype; integers and bool sum into int64. */
    case BP_OP_SUM:
      return ref_dtype_is_float(dtype) ? out_dtype == dtype : out_dtype == BP_INT64;
    case BP_OP_MEAN: case BP_OP_NORM:
      return ref_dtype_is_float(dtype) && out_dtype == dtype;
    case BP_OP_MAX: case BP_OP_MIN:
      return is_numeric(dtype) && out_dtype == dtype;
    case BP_OP_ARGMAX:
      return is_numeric(dtype) && out_dtype == BP_INT64;
    /* COPY converts between any two dtypes. */
    case BP_OP_COPY:
      return 1;
    /* Creation ops: dtype is the output dtype, so the two must agree. */
    case BP_OP_FILL:
      return out_dtype == dtype;
    case BP_OP_ARANGE:
      return is_numeric(dtype) && out_dtype == dtype;
    case BP_OP_RANDOM_UNIFORM: case BP_OP_RANDOM_NORMAL:
      return ref_dtype_is_float(dtype) && out_dtype == dtype;
    default:
      return 0;
  }
}

bp_status ref_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype,
                       int32_t *answer) {
  bp_status status = ref_check_device("supports", device);
  if (status != BP_OK) return status;
  if (answer == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  /* An op or dtype number this plugin does not know (one a newer core
   * added) is a question with the answer "no", not an error. */
  *answer = ref_implements(op, dtype, out_dtype);
  return BP_OK;
}
