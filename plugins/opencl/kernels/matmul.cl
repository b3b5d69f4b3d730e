/*
 * matmul.cl — the Matmul family: integer matmul (ClMatmulLayout in
 * kernel_source.hpp), one work-item per output element, wrapping like the
 * elementwise integer operators (in UT). Float matmul goes to CLBlast.
 * Section (README.md): BP_KERNEL_MATMUL.
 */

#ifdef BP_KERNEL_MATMUL
typedef struct {
  long batch_shape[6];
  long batch_stride[3][6];
  long batch_rank, M, N, K;
  long a_row, a_col, b_row, b_col, o_row, o_col;
  long offset[3];
} bp_matmul_layout;

__kernel void BP_NAME(__global T *o, __global const T *a, __global const T *b, bp_matmul_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    const long col = i % L.N;
    const long row = (i / L.N) % L.M;
    long batch = i / (L.N * L.M);
    long oo = L.offset[0], ao = L.offset[1], bo = L.offset[2];
    for (int d = (int)L.batch_rank - 1; d >= 0; --d) {
      const long e = batch % L.batch_shape[d];
      batch /= L.batch_shape[d];
      oo += e * L.batch_stride[0][d];
      ao += e * L.batch_stride[1][d];
      bo += e * L.batch_stride[2][d];
    }
    ao += row * L.a_row;
    bo += col * L.b_col;
    UT acc = 0;
    for (long k = 0; k < L.K; ++k) acc += (UT)a[ao + k * L.a_col] * (UT)b[bo + k * L.b_row];
    o[oo + row * L.o_row + col * L.o_col] = (T)acc;
  }
}
#endif
