/* VAR (plugin.h), spliced into the reduction program after the sums'
 * macros (kernel_source.cpp): two passes over the reduced set, the sum and
 * then the squared deviations from the mean, each compensated with ADD and
 * RESULT in ACC and combined in local memory as for SUM; m2 is divided by
 * max(0, n - correction). As in LOGSUMEXP, no barrier sits in a branch. */
__kernel void reduce_var(__global S *o, __global const S *x, bp_reduce_layout L, long correction) {
  __local ACC part[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long g = get_group_id(0); g < L.n_out; g += get_num_groups(0)) {
    long in, out;
    bp_keep_offsets(&L, g, &in, &out);
    ACC s = 0, c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC v = (ACC)LD(x[in + bp_red_offset(&L, j)]);
      ADD(s, c, v);
    }
    part[lid] = RESULT(s, c);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = COMBINE(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ACC mean = L.n_red > 0 ? part[0] / (ACC)L.n_red : (ACC)0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read the sum before part is reused */
    s = 0;
    c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC d = (ACC)LD(x[in + bp_red_offset(&L, j)]) - mean;
      const ACC v = d * d;
      ADD(s, c, v);
    }
    part[lid] = RESULT(s, c);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = COMBINE(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    const long divisor = L.n_red - correction;
    if (lid == 0) o[out] = SV((T)(part[0] / (divisor > 0 ? (ACC)divisor : (ACC)0)));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
