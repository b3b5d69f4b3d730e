/*
 * scan.cl — the Scan family (ClScanLayout in kernel_source.hpp). Section
 * (README.md): BP_KERNEL_CUMSUM, one work-item per row: the running sum in
 * ACC (BP_SUM_*, common.cl: compensated for floats, wrapping for integers),
 * so each output element is rounded once from its own sum, into OUT_T
 * (int64 for integers and bool).
 */

#ifdef BP_KERNEL_CUMSUM
typedef struct {
  long row_shape[7];
  long row_in[7];
  long row_out[7];
  long row_rank, in_offset, out_offset, n_rows, len, in_step, out_step;
} bp_scan_layout;

__kernel void BP_NAME(__global OUT_S *o, __global const S *x, bp_scan_layout L) {
  for (long r = get_global_id(0); r < L.n_rows; r += get_global_size(0)) {
    long in = L.in_offset, out = L.out_offset, g = r;
    for (int d = (int)L.row_rank - 1; d >= 0; --d) {
      const long e = g % L.row_shape[d];
      g /= L.row_shape[d];
      in += e * L.row_in[d];
      out += e * L.row_out[d];
    }
    ACC s = 0, c = 0;
    for (long j = 0; j < L.len; ++j) {
      const ACC v = (ACC)LD(x[in + j * L.in_step]);
      BP_SUM_ADD(s, c, v);
      o[out + j * L.out_step] = OSV((OUT_T)BP_SUM_RESULT(s, c));
    }
  }
}
#endif
