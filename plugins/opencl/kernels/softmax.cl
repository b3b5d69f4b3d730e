/*
 * softmax.cl — SOFTMAX and LOG_SOFTMAX (plugin.h), the OpenCL C of the
 * Softmax program family: embedded at build time (plugins/opencl/CMakeLists.txt)
 * and appended to the prelude of kernel_source.cpp, whose T, S, ACC, LD
 * and SV it uses (a float16 or bfloat16 row computes in float and rounds
 * once, in SV).
 *
 * One work-group per row (a grid-stride loop when there are more rows than
 * groups): its work-items stride over the row for the maximum, combine in
 * local memory, then likewise for the sum of exp(x - m) in ACC, and write.
 * No special case for the rows plugin.h gives NaN: with a NaN, a +inf or
 * nothing but -inf in the row, x - m or the sum is NaN, and so is every
 * element. No barrier sits inside a branch (see reduction.cl's
 * LOGSUMEXP). BP_SOFTMAX_GROUP_MAX, the largest work-group, is defined
 * before this text (softmax.cpp's kSoftmaxGroupMax).
 */
inline ACC bp_softmax_max(ACC a, ACC b) { return b > a ? b : a; }

/* part: the kernel's BP_SOFTMAX_GROUP_MAX partial results (OpenCL C 1.2
 * declares __local arrays at kernel scope only). */
inline void bp_softmax_rows(__global S *o, __global const S *x, const bp_rows_layout *L, int log_form,
                            __local ACC *part) {
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long r = get_group_id(0); r < L->n_rows; r += get_num_groups(0)) {
    long in, out;
    bp_row_start(L, r, &in, &out);
    ACC m = -INFINITY;
    for (long j = lid; j < L->len; j += lsize) m = bp_softmax_max(m, (ACC)LD(x[in + j * L->in_step]));
    part[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = bp_softmax_max(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const T mt = (T)part[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read m before part is reused */
    ACC s = 0;
    for (long j = lid; j < L->len; j += lsize) s += (ACC)exp(LD(x[in + j * L->in_step]) - mt);
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] += part[lid + h];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ACC sum = part[0];
    const T inv = (T)((ACC)1 / sum), ls = (T)log(sum);
    for (long j = lid; j < L->len; j += lsize) {
      const T t = LD(x[in + j * L->in_step]) - mt;
      o[out + j * L->out_step] = SV(log_form ? t - ls : exp(t) * inv);
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read part before the next row */
  }
}

__kernel void softmax(__global S *o, __global const S *x, bp_rows_layout L) {
  __local ACC part[BP_SOFTMAX_GROUP_MAX];
  bp_softmax_rows(o, x, &L, 0, part);
}

__kernel void log_softmax(__global S *o, __global const S *x, bp_rows_layout L) {
  __local ACC part[BP_SOFTMAX_GROUP_MAX];
  bp_softmax_rows(o, x, &L, 1, part);
}
