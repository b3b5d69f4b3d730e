/*
 * normalize.cl — the Normalize family: LAYER_NORM and RMS_NORM (plugin.h)
 * along the last axis (ClNormLayout in src/normalize.cpp), float dtypes.
 * One work-group per row (a grid-stride loop over rows, at most
 * BP_GROUP_MAX work-items, which kernel_source.cpp defines): its
 * work-items share the row's elements in each pass, the mean, then the
 * squared deviations from it (or the squares), each a BP_SUM_* sum in ACC
 * combined in local memory; then y. No barrier sits in a branch. Sections
 * (README.md):
 *
 *   BP_NORMALIZE  the kernel (kernel_source.cpp names it bp_normalize:
 *     normalize is an OpenCL C builtin); flags say which of weight, bias,
 *     mean and rstd are present (BP_NORM_*, kWeight.. in normalize.cpp)
 */

#ifdef BP_NORMALIZE
#define BP_NORM_WEIGHT 1
#define BP_NORM_BIAS 2
#define BP_NORM_MEAN 4
#define BP_NORM_RSTD 8
#define BP_NORM_LAYER 16

/* The statistics' storage type: float32, float64 for float64 x. */
#if defined(BP_T_FLOAT64)
typedef double STAT;
#else
typedef float STAT;
#endif

typedef struct {
  long lead_shape[7];
  long lead_x[7];
  long lead_y[7];
  long lead_mean[7];
  long lead_rstd[7];
  long lead_rank, rows, n;
  long x_offset, y_offset, mean_offset, rstd_offset, w_offset, b_offset;
  long x_step, y_step, w_step, b_step;
  long flags;
} bp_norm_layout;

/* The row's sum over the work-group: every work-item gets it. */
inline ACC bp_norm_total(__local ACC *part, ACC s, ACC c) {
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  BP_GROUP_COMBINE(part, lid, lsize, BP_SUM_RESULT(s, c), BP_SUM_COMBINE)
  const ACC total = part[0];
  barrier(CLK_LOCAL_MEM_FENCE); /* read by all before part is reused */
  return total;
}

__kernel void BP_NAME(__global S *y, __global STAT *mean_out, __global STAT *rstd_out, __global const S *x,
                      __global const S *w, __global const S *b, bp_norm_layout L, ACC eps) {
  __local ACC part[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  const int layer = (L.flags & BP_NORM_LAYER) != 0;
  for (long r = get_group_id(0); r < L.rows; r += get_num_groups(0)) {
    long xo = L.x_offset, yo = L.y_offset, mo = L.mean_offset, ro = L.rstd_offset, g = r;
    for (int d = (int)L.lead_rank - 1; d >= 0; --d) {
      const long e = g % L.lead_shape[d];
      g /= L.lead_shape[d];
      xo += e * L.lead_x[d];
      yo += e * L.lead_y[d];
      mo += e * L.lead_mean[d];
      ro += e * L.lead_rstd[d];
    }
    ACC s = 0, c = 0;
    const long first_pass = layer ? L.n : 0;
    for (long j = lid; j < first_pass; j += lsize) {
      const ACC v = (ACC)LD(x[xo + j * L.x_step]);
      BP_SUM_ADD(s, c, v);
    }
    const ACC sum = bp_norm_total(part, s, c);
    const ACC mean = layer ? (L.n > 0 ? sum / (ACC)L.n : (ACC)NAN) : (ACC)0;
    s = 0;
    c = 0;
    for (long j = lid; j < L.n; j += lsize) {
      const ACC d = (ACC)LD(x[xo + j * L.x_step]) - mean;
      const ACC v = d * d;
      BP_SUM_ADD(s, c, v);
    }
    const ACC spread = bp_norm_total(part, s, c);
    const ACC var = L.n > 0 ? spread / (ACC)L.n : (ACC)NAN;
    const ACC rstd = (ACC)1 / sqrt(var + eps);
    for (long j = lid; j < L.n; j += lsize) {
      ACC v = ((ACC)LD(x[xo + j * L.x_step]) - mean) * rstd;
      if (L.flags & BP_NORM_WEIGHT) v = v * (ACC)LD(w[L.w_offset + j * L.w_step]);
      if (L.flags & BP_NORM_BIAS) v = v + (ACC)LD(b[L.b_offset + j * L.b_step]);
      y[yo + j * L.y_step] = SV((T)v);
    }
    if (lid == 0 && (L.flags & BP_NORM_MEAN)) mean_out[mo] = (STAT)mean;
    if (lid == 0 && (L.flags & BP_NORM_RSTD)) rstd_out[ro] = (STAT)rstd;
  }
}
#undef BP_NORM_WEIGHT
#undef BP_NORM_BIAS
#undef BP_NORM_MEAN
#undef BP_NORM_RSTD
#undef BP_NORM_LAYER
#endif
