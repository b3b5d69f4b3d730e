/*
 * execute.c — the one entry point for every operator. It checks the whole
 * call (device, operator, attributes, number of inputs, each view, dtypes,
 * shapes) and only then runs a kernel, so that the kernels need no
 * defensive code at all.
 *
 * The core promises a problem "with no choices left in it"; the reference
 * still verifies that promise, because catching a core bug here, with a
 * message that says what was wrong, is much of what a reference is for.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

/* True when the core's attrs struct (struct_size bytes) contains `field`. */
#define REF_ATTRS_HAS(attrs, field) \
  (offsetof(bp_op_attrs, field) + sizeof((attrs)->field) <= (attrs)->struct_size)

/* A full-size copy of the caller's attributes: fields past its struct_size
 * (from an older core) read as zero, their 1.0 default, and are never read
 * from the caller's memory. */
static bp_op_attrs read_attrs(const bp_op_attrs *given) {
  bp_op_attrs attrs;
  memset(&attrs, 0, sizeof attrs);
  attrs.struct_size = sizeof attrs;
  if (REF_ATTRS_HAS(given, scalar_mode)) attrs.scalar_mode = given->scalar_mode;
  if (REF_ATTRS_HAS(given, scalar)) attrs.scalar = given->scalar;
  if (REF_ATTRS_HAS(given, scalar2)) attrs.scalar2 = given->scalar2;
  if (REF_ATTRS_HAS(given, seed)) attrs.seed = given->seed;
  return attrs;
}

/* How many inputs `op` takes (plugin.h, at bp_plugin_api.execute). */
static bp_status expected_inputs(int32_t op, ref_family family, const bp_op_attrs *attrs,
                                 int32_t *count) {
  switch (family) {
    case REF_FAMILY_BINARY:
    case REF_FAMILY_COMPARE:
      if (attrs->scalar_mode == BP_SCALAR_NONE) {
        *count = 2;
      } else if (attrs->scalar_mode == BP_SCALAR_RHS || attrs->scalar_mode == BP_SCALAR_LHS) {
        *count = 1; /* the other operand is attrs.scalar */
      } else {
        return ref_fail(BP_ERR_INVALID_ARGUMENT,
                        "execute: %s: attrs.scalar_mode is %d, which is not a bp_scalar_mode",
                        ref_op_name(op), (int)attrs->scalar_mode);
      }
      return BP_OK;
    case REF_FAMILY_WHERE: *count = 3; return BP_OK;
    case REF_FAMILY_MATMUL: *count = 2; return BP_OK;
    case REF_FAMILY_CREATE: *count = 0; return BP_OK;
    default: *count = 1; return BP_OK; /* unary ops, reductions, COPY */
  }
}

/* Checks that the inputs' dtypes agree where the operator needs them to,
 * then asks the capability table, exactly as supports() would be asked. */
static bp_status check_dtypes(int32_t op, ref_family family, const bp_plugin_tensor *inputs,
                              int32_t n_inputs, const bp_plugin_tensor *output) {
  int32_t dtype;
  if (family == REF_FAMILY_CREATE) {
    dtype = output->dtype; /* creation ops: supports() names the output dtype twice */
  } else if (family == REF_FAMILY_WHERE) {
    if (inputs[0].dtype != BP_BOOL)
      return ref_fail(BP_ERR_DTYPE, "execute: where: input 0 (the condition) must be bool, not %s",
                      ref_dtype_name(inputs[0].dtype));
    if (inputs[2].dtype != inputs[1].dtype)
      return ref_fail(BP_ERR_DTYPE,
                      "execute: where: inputs 1 and 2 must have one dtype, but they are %s and %s",
                      ref_dtype_name(inputs[1].dtype), ref_dtype_name(inputs[2].dtype));
    dtype = inputs[1].dtype;
  } else {
    /* Binary ops, comparisons and MATMUL take two inputs of one dtype. */
    if (n_inputs == 2 && inputs[1].dtype != inputs[0].dtype)
      return ref_fail(BP_ERR_DTYPE,
                      "execute: %s: both inputs must have one dtype, but they are %s and %s",
                      ref_op_name(op), ref_dtype_name(inputs[0].dtype),
                      ref_dtype_name(inputs[1].dtype));
    dtype = inputs[0].dtype;
  }

  if (!ref_implements(op, dtype, output->dtype)) {
    if (family == REF_FAMILY_CREATE)
      return ref_fail(BP_ERR_UNSUPPORTED,
                      "execute: the " REF_NAME " backend does not implement %s with a %s output",
                      ref_op_name(op), ref_dtype_name(output->dtype));
    return ref_fail(BP_ERR_UNSUPPORTED,
                    "execute: the " REF_NAME " backend does not implement %s of %s with a %s output",
                    ref_op_name(op), ref_dtype_name(dtype), ref_dtype_name(output->dtype));
  }
  return BP_OK;
}

/* "[2, 3]": a shape, for messages. */
static const char *format_shape(const bp_plugin_tensor *t, char *text, size_t capacity) {
  size_t used = 0;
  int32_t d;
  used += (size_t)snprintf(text, capacity, "[");
  for (d = 0; d < t->rank && used < capacity; ++d)
    used += (size_t)snprintf(text + used, capacity - used, "%s%lld", d ? ", " : "",
                             (long long)t->shape[d]);
  if (used < capacity) snprintf(text + used, capacity - used, "]");
  return text;
}

static bp_status shape_error(int32_t op, const char *what, const bp_plugin_tensor *a,
                             const char *a_role, const bp_plugin_tensor *b, const char *b_role) {
  char a_text[200], b_text[200];
  return ref_fail(BP_ERR_SHAPE, "execute: %s: %s (%s has shape %s, %s has shape %s)",
                  ref_op_name(op), what, a_role, format_shape(a, a_text, sizeof a_text), b_role,
                  format_shape(b, b_text, sizeof b_text));
}

/* Elementwise ops: the core broadcasts, so every input has the output's shape. */
static bp_status check_elementwise_shapes(int32_t op, const bp_plugin_tensor *inputs,
                                          int32_t n_inputs, const bp_plugin_tensor *output) {
  int32_t i;
  for (i = 0; i < n_inputs; ++i) {
    if (!ref_same_shape(&inputs[i], output)) {
      char role[32];
      snprintf(role, sizeof role, "input %d", (int)i);
      return shape_error(op, "every input must have the output's shape", &inputs[i], role,
                         output, "the output");
    }
  }
  return BP_OK;
}

/* Reductions: same rank; each output extent is 1 (reduced) or the input's (kept). */
static bp_status check_reduce_shapes(int32_t op, const bp_plugin_tensor *input,
                                     const bp_plugin_tensor *output) {
  int32_t d;
  if (input->rank != output->rank)
    return shape_error(op, "the output must have the input's rank", input, "the input", output,
                       "the output");
  for (d = 0; d < input->rank; ++d)
    if (output->shape[d] != 1 && output->shape[d] != input->shape[d])
      return shape_error(op, "each output extent must be 1 (reduced) or the input's (kept)",
                         input, "the input", output, "the output");
  return BP_OK;
}

/* MATMUL: a[..., M, K] times b[..., K, N] gives out[..., M, N], one rank >= 2,
 * one set of batch extents. */
static bp_status check_matmul_shapes(const bp_plugin_tensor *a, const bp_plugin_tensor *b,
                                     const bp_plugin_tensor *out) {
  const int32_t r = out->rank;
  int32_t d;
  if (r < 2 || a->rank != r || b->rank != r)
    return ref_fail(BP_ERR_SHAPE,
                    "execute: matmul: a, b and the output need one rank >= 2, got %d, %d and %d",
                    (int)a->rank, (int)b->rank, (int)r);
  for (d = 0; d < r - 2; ++d)
    if (a->shape[d] != out->shape[d] || b->shape[d] != out->shape[d])
      return shape_error(BP_OP_MATMUL, "batch extents differ (the core broadcasts them)", a, "a",
                         b, "b");
  if (a->shape[r - 1] != b->shape[r - 2])
    return shape_error(BP_OP_MATMUL, "a's columns must match b's rows", a, "a", b, "b");
  if (out->shape[r - 2] != a->shape[r - 2] || out->shape[r - 1] != b->shape[r - 1])
    return shape_error(BP_OP_MATMUL, "the output must have a's rows and b's columns", a, "a", out,
                       "the output");
  return BP_OK;
}

bp_status ref_execute(int32_t device, int32_t op, const bp_op_attrs *given_attrs,
                      const bp_plugin_tensor *inputs, int32_t n_inputs,
                      const bp_plugin_tensor *output) {
  const ref_family family = ref_op_family(op);
  bp_op_attrs attrs;
  int32_t expected = 0, i;
  bp_status status = ref_check_device("execute", device);
  if (status != BP_OK) return status;

  /* An operator number this plugin does not know (perhaps one that a newer
   * ABI added) is unsupported here, just as supports() says. */
  if (family == REF_FAMILY_UNKNOWN)
    return ref_fail(BP_ERR_UNSUPPORTED,
                    "execute: op %d is not an operator the " REF_NAME " backend knows (ABI %d.%d)",
                    (int)op, BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  if (given_attrs == NULL)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s: attrs is NULL", ref_op_name(op));
  if (output == NULL)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s: output is NULL", ref_op_name(op));
  attrs = read_attrs(given_attrs);

  status = expected_inputs(op, family, &attrs, &expected);
  if (status != BP_OK) return status;
  if (n_inputs != expected)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s takes %d input(s) here, but got %d",
                    ref_op_name(op), (int)expected, (int)n_inputs);
  if (n_inputs > 0 && inputs == NULL)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s: inputs is NULL", ref_op_name(op));

  for (i = 0; i < n_inputs; ++i) {
    char role[32];
    snprintf(role, sizeof role, "input %d", (int)i);
    status = ref_check_tensor(&inputs[i], role, device, 0);
    if (status != BP_OK) return status;
  }
  status = ref_check_tensor(output, "output", device, 1);
  if (status != BP_OK) return status;

  status = check_dtypes(op, family, inputs, n_inputs, output);
  if (status != BP_OK) return status;

  switch (family) {
    case REF_FAMILY_BINARY:
    case REF_FAMILY_COMPARE:
      status = check_elementwise_shapes(op, inputs, n_inputs, output);
      if (status == BP_OK) ref_run_binary(op, &attrs, inputs, output);
      return status;
    case REF_FAMILY_WHERE:
      status = check_elementwise_shapes(op, inputs, n_inputs, output);
      if (status == BP_OK) ref_run_where(inputs, output);
      return status;
    case REF_FAMILY_UNARY:
      status = check_elementwise_shapes(op, inputs, n_inputs, output);
      if (status == BP_OK) ref_run_unary(op, &inputs[0], output);
      return status;
    case REF_FAMILY_COPY:
      status = check_elementwise_shapes(op, inputs, n_inputs, output);
      if (status == BP_OK) ref_run_copy(&inputs[0], output);
      return status;
    case REF_FAMILY_REDUCE:
      status = check_reduce_shapes(op, &inputs[0], output);
      if (status == BP_OK) status = ref_run_reduce(op, &inputs[0], output);
      return status;
    case REF_FAMILY_MATMUL:
      status = check_matmul_shapes(&inputs[0], &inputs[1], output);
      if (status == BP_OK) ref_run_matmul(&inputs[0], &inputs[1], output);
      return status;
    default: /* REF_FAMILY_CREATE */
      ref_run_create(op, &attrs, output);
      return BP_OK;
  }
}
