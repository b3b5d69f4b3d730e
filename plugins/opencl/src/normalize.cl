/* LAYER_NORM and RMS_NORM (plugin.h) along the last axis, after the
 * program prelude (kernel_source.cpp: T, S, ACC, LD, SV) and STAT, the
 * statistics' storage type. One work-group per row (a grid-stride loop over
 * rows): its work-items share the row's elements in each pass, the mean,
 * then the squared deviations from it (or the squares), each summed with
 * compensation in ACC and combined in local memory; then y. No barrier sits
 * in a branch. The kernel is bp_normalize: normalize is an OpenCL C builtin. */
#define BP_NORM_WEIGHT 1
#define BP_NORM_BIAS 2
#define BP_NORM_MEAN 4
#define BP_NORM_RSTD 8
#define BP_NORM_LAYER 16

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

#define ADD(s, c, v) { const ACC t_ = s + v; c += fabs(s) >= fabs(v) ? (s - t_) + v : (v - t_) + s; s = t_; }
#define RESULT(s, c) (isfinite(s) ? s + c : s)

/* The row's sum over the work-group: every work-item gets it. */
inline ACC bp_norm_total(__local ACC *part, ACC s, ACC c) {
  const int lid = (int)get_local_id(0);
  part[lid] = RESULT(s, c);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = (int)get_local_size(0) / 2; h > 0; h /= 2) {
    if (lid < h) part[lid] = part[lid] + part[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const ACC total = part[0];
  barrier(CLK_LOCAL_MEM_FENCE); /* read by all before part is reused */
  return total;
}

__kernel void bp_normalize(__global S *y, __global STAT *mean_out, __global STAT *rstd_out, __global const S *x,
                        __global const S *w, __global const S *b, bp_norm_layout L, ACC eps) {
  __local ACC part[{{GROUP_MAX}}];
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
      ADD(s, c, v);
    }
    const ACC sum = bp_norm_total(part, s, c);
    const ACC mean = layer ? (L.n > 0 ? sum / (ACC)L.n : (ACC)NAN) : (ACC)0;
    s = 0;
    c = 0;
    for (long j = lid; j < L.n; j += lsize) {
      const ACC d = (ACC)LD(x[xo + j * L.x_step]) - mean;
      const ACC v = d * d;
      ADD(s, c, v);
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
