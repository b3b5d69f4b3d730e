/*
 * fused.c — execute_fused: a fused elementwise program, interpreted one
 * element at a time.
 *
 * plugin.h defines a program's result as what running its instructions one
 * by one through execute() would leave in the outputs. The surest way to
 * honour that bit for bit is to compute each instruction of an element with
 * the very functions execute's kernels use (elementwise.c calls
 * ref_binary, ref_compare, ref_unary and ref_convert from element_math.c
 * and dtype.c; the scalar operand converts through ref_from_f64 as there),
 * each result kept in its own dtype in a ref_value: a value holds exactly
 * what a temporary of that dtype would.
 *
 * Like execute, the whole call is checked first (bp_sdk_check_fused), then
 * every (op, dtype, out_dtype) is put to supports(), and only then is
 * anything written. Every value of an element is computed before any
 * output element is stored, so an output that is the very view of an input
 * (in place) reads the input's old element.
 */
#include "reference.h"

/* Element `index` of every input, then of every instruction, in `values`. */
static void compute_element(const bp_fused_program *program, const ref_value *scalars, const int64_t *index,
                            ref_value *values) {
  const int32_t n_inputs = program->n_inputs;
  int32_t i, k;
  for (i = 0; i < n_inputs; ++i) values[i] = ref_get(&program->inputs[i], index);
  for (k = 0; k < program->n_instrs; ++k) {
    const bp_fused_instr *in = &program->instrs[k];
    const ref_value *a = in->args[0] >= 0 ? &values[in->args[0]] : NULL;
    ref_value x, y, result;
    switch (bp_vocab_op_family(in->op)) {
      case BP_OP_FAMILY_BINARY:
      case BP_OP_FAMILY_COMPARE:
        switch (in->scalar_mode) {
          case BP_SCALAR_RHS: x = *a; y = scalars[k]; break;
          case BP_SCALAR_LHS: x = scalars[k]; y = *a; break;
          default: x = *a; y = values[in->args[1]]; break;
        }
        if (bp_vocab_op_family(in->op) == BP_OP_FAMILY_COMPARE)
          result = ref_from_i64(ref_compare(in->op, in->dtype, x, y), BP_BOOL);
        else
          result = ref_binary(in->op, in->dtype, x, y);
        break;
      case BP_OP_FAMILY_WHERE:
        result = a->b8 ? values[in->args[1]] : values[in->args[2]];
        break;
      case BP_OP_FAMILY_UNARY:
        result = ref_unary(in->op, in->dtype, *a);
        break;
      default: /* BP_OP_FAMILY_COPY: bp_sdk_check_fused admits no other family */
        result = ref_convert(*a, in->dtype, in->out_dtype);
        break;
    }
    values[n_inputs + k] = result;
  }
}

bp_status ref_execute_fused(int32_t device, const bp_fused_program *program) {
  bp_sdk_fused_info info; /* the program's element count and every value's dtype */
  bp_sdk_check check;
  ref_value scalars[BP_FUSED_MAX_INSTRS];
  ref_value values[BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS];
  ref_walk w;
  int32_t j, k;
  bp_status status = ref_check_device("execute_fused", device);
  if (status != BP_OK) return status;
  if (bp_sdk_check_fused(program, ref_buffer_bytes, NULL, &info, &check) != BP_OK)
    return ref_fail(check.status, "%s", check.message);
  for (k = 0; k < program->n_instrs; ++k) {
    const bp_fused_instr *in = &program->instrs[k];
    int32_t answer = 0;
    status = ref_supports(device, in->op, in->dtype, in->out_dtype, &answer);
    if (status != BP_OK) return status;
    if (!answer)
      return ref_fail(BP_ERR_UNSUPPORTED, "execute_fused: fused instruction %d: %s %s -> %s is not implemented",
                      (int)k, bp_vocab_op_name(in->op), bp_vocab_dtype_name(in->dtype),
                      bp_vocab_dtype_name(in->out_dtype));
    /* As ref_run_binary converts attrs.scalar: once, to the operands' dtype. */
    scalars[k] = ref_from_f64(in->scalar, in->dtype);
  }

  for (ref_walk_start(&w, program->outputs[0].rank, program->outputs[0].shape); !w.done; ref_walk_next(&w)) {
    compute_element(program, scalars, w.index, values);
    for (j = 0; j < program->n_outputs; ++j) ref_set(&program->outputs[j], w.index, values[program->output_values[j]]);
  }
  return BP_OK;
}
