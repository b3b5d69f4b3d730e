/*
 * backplane/kernels/pool.cl — MAX_POOL, AVG_POOL and their gradients in
 * OpenCL C (semantics in backplane/plugin.h), the spelling of
 * backplane/kernels/pool.hpp for the OpenCL backend, which embeds this text
 * after its prelude (T, S, LD, SV, ACC, IS_NAN for the program's dtype) and
 * defines BP_POOL_FLOAT for the float dtypes.
 *
 * Windows of 1 or 2 spatial axes arrive as 3 whose leading axes have
 * extent 1. One work-item per output element (the forward) or per dx
 * element (the gradients, which gather from the windows that reach it:
 * no atomics, and each sum's order is fixed).
 */
typedef struct {
  long size[3], out[3], window[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
  long full_stride[3], pooled_stride[3], index_stride[3];
  long full_plane[2], pooled_plane[2], index_plane[2]; /* the n and c strides */
  long full_offset, pooled_offset, index_offset;
  long channels, n, include_pad, with_index;
} bp_pool_layout;

/* Element i of the walked view (the pooled one for the forward, dx for the
 * gradients, whose extents are `ext`): its n * C + c plane and position. */
inline void bp_pool_split(const bp_pool_layout *L, const long *ext, long i, long *plane, long *p) {
  p[2] = i % ext[2];
  i /= ext[2];
  p[1] = i % ext[1];
  i /= ext[1];
  p[0] = i % ext[0];
  *plane = i / ext[0];
}

/* The kernel positions [*b, *e) of output position o along axis d whose
 * taps lie inside the input. */
inline void bp_pool_taps(const bp_pool_layout *L, int d, long o, long *b, long *e) {
  const long start = o * L->stride[d] - L->pad_begin[d], dil = L->dilation[d];
  const long first = start >= 0 ? 0 : (-start + dil - 1) / dil;
  long end = start >= L->size[d] ? 0 : (L->size[d] - start + dil - 1) / dil;
  if (end > L->window[d]) end = L->window[d];
  *b = first;
  *e = end > first ? end : first;
}

/* Output element i's window: its plane and position o, the taps [b, e)
 * inside the input along each axis, the input position start of tap 0;
 * returns the offset of the input plane it reads. */
inline long bp_pool_window(const bp_pool_layout *L, long i, long *plane, long *o, long *b, long *e, long *start) {
  bp_pool_split(L, L->out, i, plane, o);
  for (int d = 0; d < 3; ++d) {
    bp_pool_taps(L, d, o[d], &b[d], &e[d]);
    start[d] = o[d] * L->stride[d] - L->pad_begin[d];
  }
  return L->full_offset + *plane / L->channels * L->full_plane[0] + *plane % L->channels * L->full_plane[1];
}

__kernel void max_pool(__global S *y, __global long *index, __global const S *x, bp_pool_layout L) {
  for (long i = get_global_id(0); i < L.n; i += get_global_size(0)) {
    long plane, o[3], b[3], e[3], start[3];
    const long xo = bp_pool_window(&L, i, &plane, o, b, e, start);
    const long n = plane / L.channels, c = plane % L.channels;
    int found = 0, nan = 0;
    T best = (T)0;
    S raw = (S)0;
    long at = 0;
    for (long k0 = b[0]; k0 < e[0] && !nan; ++k0) {
      const long p0 = start[0] + k0 * L.dilation[0];
      for (long k1 = b[1]; k1 < e[1] && !nan; ++k1) {
        const long p1 = start[1] + k1 * L.dilation[1];
        for (long k2 = b[2]; k2 < e[2] && !nan; ++k2) {
          const long p2 = start[2] + k2 * L.dilation[2];
          const S s = x[xo + p0 * L.full_stride[0] + p1 * L.full_stride[1] + p2 * L.full_stride[2]];
          const T v = LD(s);
          nan = IS_NAN(v);
          if (!found || nan || v > best) {
            found = 1;
            best = v;
            raw = s;
            at = (p0 * L.size[1] + p1) * L.size[2] + p2;
          }
        }
      }
    }
    y[L.pooled_offset + n * L.pooled_plane[0] + c * L.pooled_plane[1] + o[0] * L.pooled_stride[0] +
      o[1] * L.pooled_stride[1] + o[2] * L.pooled_stride[2]] = raw;
    if (L.with_index)
      index[L.index_offset + n * L.index_plane[0] + c * L.index_plane[1] + o[0] * L.index_stride[0] +
            o[1] * L.index_stride[1] + o[2] * L.index_stride[2]] = at;
  }
}

#if BP_POOL_FLOAT

/* AVG_POOL's divisor along one axis: the taps in [low, high). */
inline long bp_pool_count_in(const bp_pool_layout *L, int d, long o, long low, long high) {
  const long start = o * L->stride[d] - L->pad_begin[d], dil = L->dilation[d];
  long first, last;
  if (high <= low) return 0;
  first = start >= low ? 0 : (low - start + dil - 1) / dil;
  if (start + (L->window[d] - 1) * dil < high)
    last = L->window[d] - 1;
  else if (start >= high)
    return 0;
  else
    last = (high - 1 - start) / dil;
  return last >= first ? last - first + 1 : 0;
}

inline long bp_pool_divisor(const bp_pool_layout *L, const long *o) {
  long count = 1;
  for (int d = 0; d < 3; ++d)
    count *= L->include_pad ? bp_pool_count_in(L, d, o[d], -L->pad_begin[d], L->size[d] + L->pad_end[d])
                            : bp_pool_count_in(L, d, o[d], 0, L->size[d]);
  return count;
}

__kernel void avg_pool(__global S *y, __global const S *x, bp_pool_layout L) {
  for (long i = get_global_id(0); i < L.n; i += get_global_size(0)) {
    long plane, o[3], b[3], e[3], start[3];
    const long xo = bp_pool_window(&L, i, &plane, o, b, e, start);
    const long n = plane / L.channels, c = plane % L.channels;
    ACC sum = (ACC)0;
    for (long k0 = b[0]; k0 < e[0]; ++k0)
      for (long k1 = b[1]; k1 < e[1]; ++k1)
        for (long k2 = b[2]; k2 < e[2]; ++k2)
          sum += (ACC)LD(x[xo + (start[0] + k0 * L.dilation[0]) * L.full_stride[0] +
                           (start[1] + k1 * L.dilation[1]) * L.full_stride[1] +
                           (start[2] + k2 * L.dilation[2]) * L.full_stride[2]]);
    const long count = bp_pool_divisor(&L, o);
    y[L.pooled_offset + n * L.pooled_plane[0] + c * L.pooled_plane[1] + o[0] * L.pooled_stride[0] +
      o[1] * L.pooled_stride[1] + o[2] * L.pooled_stride[2]] = SV((T)(count == 0 ? (ACC)0 : sum / (ACC)count));
  }
}

/* One dx element from every window reaching input position p: the kernel
 * positions k (rising) of each axis with (p + pad_begin - k * dilation) a
 * multiple of the stride and the output position inside [0, out). index:
 * MAX_POOL_GRAD's indices (dy[o] where they name p), or NULL for
 * AVG_POOL_GRAD (dy[o] / n(o)). */
inline ACC bp_pool_gather(const bp_pool_layout *L, __global const S *dy, __global const long *index, long dyo,
                          long io, const long *p) {
  const long flat = (p[0] * L->size[1] + p[1]) * L->size[2] + p[2];
  ACC sum = (ACC)0;
  for (long k0 = 0; k0 < L->window[0]; ++k0) {
    const long q0 = p[0] + L->pad_begin[0] - k0 * L->dilation[0];
    if (q0 < 0) break;
    if (q0 % L->stride[0] != 0 || q0 / L->stride[0] >= L->out[0]) continue;
    for (long k1 = 0; k1 < L->window[1]; ++k1) {
      const long q1 = p[1] + L->pad_begin[1] - k1 * L->dilation[1];
      if (q1 < 0) break;
      if (q1 % L->stride[1] != 0 || q1 / L->stride[1] >= L->out[1]) continue;
      for (long k2 = 0; k2 < L->window[2]; ++k2) {
        const long q2 = p[2] + L->pad_begin[2] - k2 * L->dilation[2];
        if (q2 < 0) break;
        if (q2 % L->stride[2] != 0 || q2 / L->stride[2] >= L->out[2]) continue;
        const long o[3] = {q0 / L->stride[0], q1 / L->stride[1], q2 / L->stride[2]};
        const ACC g = (ACC)LD(dy[dyo + o[0] * L->pooled_stride[0] + o[1] * L->pooled_stride[1] +
                                 o[2] * L->pooled_stride[2]]);
        if (index) {
          if (index[io + o[0] * L->index_stride[0] + o[1] * L->index_stride[1] + o[2] * L->index_stride[2]] == flat)
            sum += g;
        } else {
          sum += g / (ACC)bp_pool_divisor(L, o);
        }
      }
    }
  }
  return sum;
}

inline void bp_pool_grad(__global S *dx, __global const S *dy, __global const long *index, const bp_pool_layout *L) {
  for (long i = get_global_id(0); i < L->n; i += get_global_size(0)) {
    long plane, p[3];
    bp_pool_split(L, L->size, i, &plane, p);
    const long n = plane / L->channels, c = plane % L->channels;
    const long dyo = L->pooled_offset + n * L->pooled_plane[0] + c * L->pooled_plane[1];
    const long io = L->index_offset + n * L->index_plane[0] + c * L->index_plane[1];
    const ACC sum = bp_pool_gather(L, dy, index, dyo, io, p);
    dx[L->full_offset + n * L->full_plane[0] + c * L->full_plane[1] + p[0] * L->full_stride[0] +
       p[1] * L->full_stride[1] + p[2] * L->full_stride[2]] = SV((T)sum);
  }
}

__kernel void max_pool_grad(__global S *dx, __global const S *dy, __global const long *index, bp_pool_layout L) {
  bp_pool_grad(dx, dy, index, &L);
}

__kernel void avg_pool_grad(__global S *dx, __global const S *dy, bp_pool_layout L) {
  bp_pool_grad(dx, dy, 0, &L);
}

#endif /* BP_POOL_FLOAT */
