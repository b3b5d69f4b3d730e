/*
 * matmul.c — batched matrix product: out[..., i, j] = sum_k a[..., i, k] * b[..., k, j].
 *
 * All three tensors have the same rank >= 2 and the same batch extents
 * (broadcast batch axes arrive with stride 0), and a transpose is just a
 * view with swapped strides; so one walk over the output's full index,
 * batch axes included, reaches every case. For each output element the
 * indices into a and b are the output's index with the contracted axis
 * replaced by k.
 */
#include "reference.h"

void ref_run_matmul(const bp_plugin_tensor *a, const bp_plugin_tensor *b,
                    const bp_plugin_tensor *output) {
  const int32_t rank = output->rank;
  const int32_t row_axis = rank - 2, column_axis = rank - 1;
  const int64_t inner = a->shape[column_axis]; /* K */
  const int32_t dtype = output->dtype;
  int64_t a_index[BP_MAX_RANK], b_index[BP_MAX_RANK];
  ref_walk w;

  for (ref_walk_start(&w, rank, output->shape); !w.done; ref_walk_next(&w)) {
    ref_sum total;         /* floats: compensated float64, products exact for float32 and the halves */
    uint64_t integer_total = 0; /* integers: wrapping, like ADD and MUL */
    int64_t k;
    int32_t d;

    for (d = 0; d < rank; ++d) a_index[d] = b_index[d] = w.index[d];
    ref_sum_start(&total);
    for (k = 0; k < inner; ++k) {
      ref_value x, y;
      a_index[column_axis] = k; /* a[..., i, k] */
      b_index[row_axis] = k;    /* b[..., k, j] */
      x = ref_get(a, a_index);
      y = ref_get(b, b_index);
      if (ref_dtype_is_float(dtype))
        ref_sum_add(&total, ref_to_f64(x, dtype) * ref_to_f64(y, dtype));
      else
        integer_total += (uint64_t)ref_to_i64(x, dtype) * (uint64_t)ref_to_i64(y, dtype);
    }
    /* A narrower integer result is the low bits of the int64 one: wrapping
     * in 64 bits and truncating equals wrapping in its own width all along. */
    ref_set(output, w.index,
            ref_dtype_is_float(dtype) ? ref_from_f64(ref_sum_result(&total), dtype)
                                      : ref_from_i64(ref_wrap_i64(integer_total), dtype));
  }
}
