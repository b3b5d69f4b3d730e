/*
 * elementwise.c — operators that compute each output element from the
 * input elements at the same index: binary ops and comparisons, WHERE, the
 * unary ops and COPY.
 *
 * The core has already broadcast every input to the output's shape (stride
 * 0 on broadcast axes), so one walk over the output's indices, reading each
 * input through its own strides, handles every layout. Each element is read
 * before it is written, so an output that is the very same view as an input
 * (in-place) is fine.
 */
#include "reference.h"

void ref_run_binary(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                    const bp_plugin_tensor *output) {
  const int32_t dtype = inputs[0].dtype;
  const int is_comparison = bp_vocab_op_family(op) == BP_OP_FAMILY_COMPARE;
  /* A scalar operand takes the tensor's dtype, converted as COPY converts a
   * float64 (so 2.0 becomes the int32 2). */
  const ref_value scalar = ref_from_f64(attrs->scalar, dtype);
  ref_walk w;

  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w)) {
    ref_value a, b, result;
    switch (attrs->scalar_mode) {
      case BP_SCALAR_RHS: a = ref_get(&inputs[0], w.index); b = scalar; break;
      case BP_SCALAR_LHS: a = scalar; b = ref_get(&inputs[0], w.index); break;
      default: a = ref_get(&inputs[0], w.index); b = ref_get(&inputs[1], w.index); break;
    }
    if (is_comparison)
      result = ref_from_i64(ref_compare(op, dtype, a, b), BP_BOOL);
    else
      result = ref_binary(op, dtype, a, b);
    ref_set(output, w.index, result);
  }
}

void ref_run_where(const bp_plugin_tensor *inputs, const bp_plugin_tensor *output) {
  const bp_plugin_tensor *condition = &inputs[0], *if_true = &inputs[1], *if_false = &inputs[2];
  ref_walk w;
  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w)) {
    const bp_plugin_tensor *chosen = ref_get(condition, w.index).b8 ? if_true : if_false;
    ref_set(output, w.index, ref_get(chosen, w.index));
  }
}

void ref_run_unary(int32_t op, const bp_plugin_tensor *input, const bp_plugin_tensor *output) {
  ref_walk w;
  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w))
    ref_set(output, w.index, ref_unary(op, input->dtype, ref_get(input, w.index)));
}

void ref_run_copy(const bp_plugin_tensor *input, const bp_plugin_tensor *output) {
  ref_walk w;
  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w))
    ref_set(output, w.index, ref_convert(ref_get(input, w.index), input->dtype, output->dtype));
}
