/* conv.cl — the OpenCL C of the convolution family (CONV, CONV_TRANSPOSE,
 * CONV_WEIGHT_GRAD): the column matrices that CLBlast's GEMM contracts with
 * the weights, and the kernels that take GEMM results back into strided
 * views. Compiled after the program prelude (kernel_source.cpp), which
 * defines T (the compute type: float for float16 and bfloat16), S (the
 * stored type), LD and SV (load a stored value, store one rounded once).
 * The struct mirrors ClConvLayout in conv.cpp field for field.
 *
 * Columns and GEMM results are dense, rows outermost, then the batch items
 * of the launch, then the output positions: col[(row * count + b) * out_size
 * + o], so one GEMM per group covers every batch item of the launch. */
typedef struct {
  /* Spatial extents of x, y and the kernel, and the window (past r: 1, 1,
   * 1, 1, 1, 0; `kernel` is a keyword of OpenCL C). */
  long in_ext[3], out_ext[3], taps_ext[3], stride[3], dilation[3], pad[3];
  long act_stride[5]; /* the strided view's strides: batch, channel, spatial (0 past r) */
  long act_offset;    /* element offset of its [first batch item, first channel of the group, 0...] */
  long channels;      /* channels of the group in that view */
  long taps, in_size, out_size, count; /* products of kernel, in, out; batch items of the launch */
  long bias_stride, bias_offset, has_bias;
  long n; /* work-items */
} bp_conv_layout;

/* Element offset in the strided view of batch item b, channel c and spatial
 * position (s0, s1, s2). */
inline long bp_conv_at(const bp_conv_layout *L, long b, long c, long s0, long s1, long s2) {
  return L->act_offset + b * L->act_stride[0] + c * L->act_stride[1] + s0 * L->act_stride[2] +
         s1 * L->act_stride[3] + s2 * L->act_stride[4];
}

/* col[(c, tap), b, o] = x[b, c, o stride - pad + tap dilation], 0 in the
 * padding. One work-item per line of col: its (c, tap), b and first spatial
 * position o0, for every o1 and o2. Taking the index apart costs a dozen
 * 64-bit divisions, which per element took as long as the GEMM that reads
 * col (PoCL, small images); per line they are paid once for a row of the
 * image. */
__kernel void conv_im2col(__global T *col, __global const S *x, bp_conv_layout L) {
  const long i = get_global_id(0);
  if (i >= L.n) return;
  const long o0 = i % L.out_ext[0], b = i / L.out_ext[0] % L.count, row = i / (L.out_ext[0] * L.count);
  const long c = row / L.taps, tap = row % L.taps;
  const long k2 = tap % L.taps_ext[2], k1 = tap / L.taps_ext[2] % L.taps_ext[1], k0 = tap / (L.taps_ext[1] * L.taps_ext[2]);
  const long line = L.out_ext[1] * L.out_ext[2];
  __global T *dst = col + (row * L.count + b) * L.out_size + o0 * line;
  const long p0 = o0 * L.stride[0] - L.pad[0] + k0 * L.dilation[0];
  if (p0 < 0 || p0 >= L.in_ext[0]) {
    for (long j = 0; j < line; ++j) dst[j] = (T)0;
    return;
  }
  const long at = bp_conv_at(&L, b, c, p0, 0, 0);
  for (long o1 = 0; o1 < L.out_ext[1]; ++o1) {
    const long p1 = o1 * L.stride[1] - L.pad[1] + k1 * L.dilation[1];
    const int inside = p1 >= 0 && p1 < L.in_ext[1];
    for (long o2 = 0; o2 < L.out_ext[2]; ++o2) {
      const long p2 = o2 * L.stride[2] - L.pad[2] + k2 * L.dilation[2];
      dst[o1 * L.out_ext[2] + o2] = inside && p2 >= 0 && p2 < L.in_ext[2]
                                        ? LD(x[at + p1 * L.act_stride[3] + p2 * L.act_stride[4]])
                                        : (T)0;
    }
  }
}

/* y[b, c, o] = tmp[c, b, o] + bias[c], rounded once into the strided y. */
__kernel void conv_store(__global S *y, __global const T *tmp, __global const S *bias, bp_conv_layout L) {
  const long i = get_global_id(0);
  if (i >= L.n) return;
  const long o = i % L.out_size, b = i / L.out_size % L.count, c = i / (L.out_size * L.count);
  const long o2 = o % L.out_ext[2], o1 = o / L.out_ext[2] % L.out_ext[1], o0 = o / (L.out_ext[1] * L.out_ext[2]);
  T v = tmp[i];
  if (L.has_bias) v += LD(bias[L.bias_offset + c * L.bias_stride]);
  y[bp_conv_at(&L, b, c, o0, o1, o2)] = SV(v);
}

/* dx[b, c, p] = bias[c] + the sum of col[(c, tap), b, o] over the taps and
 * output positions whose window reads p (o stride - pad + tap dilation =
 * p): a gather per element of dx, so no two work-items write one element. */
__kernel void conv_col2im(__global S *dx, __global const T *col, __global const S *bias, bp_conv_layout L) {
  const long i = get_global_id(0);
  if (i >= L.n) return;
  const long p = i % L.in_size, b = i / L.in_size % L.count, c = i / (L.in_size * L.count);
  const long p2 = p % L.in_ext[2], p1 = p / L.in_ext[2] % L.in_ext[1], p0 = p / (L.in_ext[1] * L.in_ext[2]);
  T sum = L.has_bias ? LD(bias[L.bias_offset + c * L.bias_stride]) : (T)0;
  for (long k0 = 0; k0 < L.taps_ext[0]; ++k0) {
    const long t0 = p0 + L.pad[0] - k0 * L.dilation[0];
    if (t0 < 0 || t0 % L.stride[0] != 0 || t0 / L.stride[0] >= L.out_ext[0]) continue;
    for (long k1 = 0; k1 < L.taps_ext[1]; ++k1) {
      const long t1 = p1 + L.pad[1] - k1 * L.dilation[1];
      if (t1 < 0 || t1 % L.stride[1] != 0 || t1 / L.stride[1] >= L.out_ext[1]) continue;
      for (long k2 = 0; k2 < L.taps_ext[2]; ++k2) {
        const long t2 = p2 + L.pad[2] - k2 * L.dilation[2];
        if (t2 < 0 || t2 % L.stride[2] != 0 || t2 / L.stride[2] >= L.out_ext[2]) continue;
        const long row = c * L.taps + (k0 * L.taps_ext[1] + k1) * L.taps_ext[2] + k2;
        const long o = (t0 / L.stride[0] * L.out_ext[1] + t1 / L.stride[1]) * L.out_ext[2] + t2 / L.stride[2];
        sum += col[(row * L.count + b) * L.out_size + o];
      }
    }
  }
  dx[bp_conv_at(&L, b, c, p0, p1, p2)] = SV(sum);
}
