/*
 * scan.cl — the Scan family (bp_rows_layout, common.cl). Section
 * (README.md): BP_KERNEL_CUMSUM, one work-item per row: the running sum in
 * ACC (BP_SUM_*, common.cl: compensated for floats, wrapping for integers),
 * so each output element is rounded once from its own sum, into OUT_T
 * (int64 for integers and bool).
 */

#ifdef BP_KERNEL_CUMSUM
__kernel void BP_NAME(__global OUT_S *o, __global const S *x, bp_rows_layout L) {
  for (long r = get_global_id(0); r < L.n_rows; r += get_global_size(0)) {
    long in, out;
    bp_row_start(&L, r, &in, &out);
    ACC s = 0, c = 0;
    for (long j = 0; j < L.len; ++j) {
      const ACC v = (ACC)LD(x[in + j * L.in_step]);
      BP_SUM_ADD(s, c, v);
      o[out + j * L.out_step] = OSV((OUT_T)BP_SUM_RESULT(s, c));
    }
  }
}
#endif
