/*
 * execute.c — the one entry point for every operator. It checks the whole
 * call first and only then runs a kernel, so that the kernels need no
 * defensive code at all.
 *
 * The core promises a problem "with no choices left in it"; the reference
 * still verifies that promise, because catching a core bug here, with a
 * message that says what was wrong, is much of what a reference is for.
 * The checks themselves are the plugin SDK's bp_sdk_check_execute()
 * (backplane/plugin_sdk.h), which applies exactly the rules of plugin.h:
 *
 *   - the operator is one the vocabulary knows (else BP_ERR_UNSUPPORTED);
 *   - attrs is present, its scalar_mode a bp_scalar_mode, and the number of
 *     inputs the operator's family takes (else BP_ERR_INVALID_ARGUMENT);
 *   - every view is well formed and lies inside a live buffer of this plugin
 *     (ref_buffer_bytes tells it which buffers those are), and no output
 *     element overlaps another (BP_ERR_INVALID_ARGUMENT, or BP_ERR_SHAPE for
 *     a bad rank or extent);
 *   - the shapes fit the operator (BP_ERR_SHAPE), the inputs' dtypes agree
 *     (BP_ERR_DTYPE) and the (input, output) dtype pair is one the ABI
 *     defines (BP_ERR_UNSUPPORTED).
 *
 * What is left to a plugin is the device index, checked first, and whether
 * it implements the pair: the reference implements every pair the ABI
 * defines (supports.c), so nothing more is refused here.
 */
#include <string.h>

#include "reference.h"

/* A full-size copy of the caller's attributes: fields past its struct_size
 * (from an older core) read as zero, their 1.0 default, and are never read
 * from the caller's memory. */
static bp_op_attrs read_attrs(const bp_op_attrs *given) {
  bp_op_attrs attrs;
  memset(&attrs, 0, sizeof attrs);
  attrs.struct_size = sizeof attrs;
  if (BP_SDK_FITS(given, scalar_mode)) attrs.scalar_mode = given->scalar_mode;
  if (BP_SDK_FITS(given, scalar)) attrs.scalar = given->scalar;
  if (BP_SDK_FITS(given, scalar2)) attrs.scalar2 = given->scalar2;
  if (BP_SDK_FITS(given, seed)) attrs.seed = given->seed;
  if (BP_SDK_FITS(given, option)) attrs.option = given->option;
  return attrs;
}

bp_status ref_execute(int32_t device, int32_t op, const bp_op_attrs *given_attrs,
                      const bp_plugin_tensor *inputs, int32_t n_inputs,
                      const bp_plugin_tensor *output) {
  bp_sdk_execute_info info; /* the operator's family, the dtype supports() is asked with, ... */
  bp_sdk_check check;       /* on failure: the status and a message naming op and argument */
  bp_op_attrs attrs;
  bp_status status = ref_check_device("execute", device);
  if (status != BP_OK) return status;

  if (bp_sdk_check_execute(op, given_attrs, inputs, n_inputs, output,
                           ref_buffer_bytes, NULL, &info, &check) != BP_OK)
    return ref_fail(check.status, "%s", check.message);
  attrs = read_attrs(given_attrs);

  switch (info.family) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE:
      ref_run_binary(op, &attrs, inputs, output);
      return BP_OK;
    case BP_OP_FAMILY_WHERE:
      ref_run_where(inputs, output);
      return BP_OK;
    case BP_OP_FAMILY_UNARY:
      ref_run_unary(op, &inputs[0], output);
      return BP_OK;
    case BP_OP_FAMILY_COPY:
      ref_run_copy(&inputs[0], output);
      return BP_OK;
    case BP_OP_FAMILY_REDUCE:
      return ref_run_reduce(op, &attrs, &inputs[0], output);
    case BP_OP_FAMILY_MATMUL:
      ref_run_matmul(&inputs[0], &inputs[1], output);
      return BP_OK;
    case BP_OP_FAMILY_CREATE:
      ref_run_create(op, &attrs, output);
      return BP_OK;
    case BP_OP_FAMILY_SCAN:
      ref_run_scan(&inputs[0], output);
      return BP_OK;
    case BP_OP_FAMILY_GATHER:
      return ref_run_gather(&inputs[0], &inputs[1], output);
    case BP_OP_FAMILY_SCATTER:
      return ref_run_scatter(op, &inputs[0], &inputs[1], output);
    case BP_OP_FAMILY_SOFTMAX:
      ref_run_softmax(op, &inputs[0], output);
      return BP_OK;
    case BP_OP_FAMILY_TOPK:
      return ref_run_topk(&attrs, &inputs[0], output);
    case BP_OP_FAMILY_NORMALIZE:
      ref_run_normalize(op, &attrs, inputs, output);
      return BP_OK;
    case BP_OP_FAMILY_ATTENTION:
      return ref_run_attention(&attrs, inputs, output);
    case BP_OP_FAMILY_CONV: /* reads its window from the caller's attrs (params) */
      return ref_run_conv(op, given_attrs, inputs, output);
    case BP_OP_FAMILY_POOL: /* the window was checked with the views */
      ref_run_pool(op, bp_sdk_window_params(given_attrs), &inputs[0], output);
      return BP_OK;
    case BP_OP_FAMILY_POOL_GRAD:
      return ref_run_pool_grad(op, bp_sdk_window_params(given_attrs), &inputs[0], &inputs[1], output);
    default:
      /* A family a newer vocabulary.h added, with no kernels here yet. */
      return ref_fail(BP_ERR_UNSUPPORTED, "%s: the " REF_NAME " backend has no kernels for family %d",
                      bp_vocab_op_name(op), (int)info.family);
  }
}
