/*
 * backplane/kernels/topk.cl — TOPK in OpenCL C (semantics in
 * backplane/plugin.h; since 1.6), for any row length.
 *
 * A program that includes this text first defines S (how an element is
 * stored) and TOPK_KEY(v), the ulong key of a stored element: the unsigned
 * image of plugin.h's ascending order of backplane/kernels/topk.hpp
 * (equal exactly for the elements plugin.h ties), widened to 64 bits.
 * bp_topk_float_key gives a float's from its bits.
 *
 * Each row is sorted whole by a bottom-up merge sort of (key, position)
 * pairs in global memory, one launch of topk_merge per doubling of the
 * sorted runs, with a work-item per element: an element's place in the
 * merged run is its place in its own run plus the number of elements of
 * the other run that come before it, found by binary search. A run on the
 * left holds lower positions than the one it merges with, so counting the
 * other run's smaller keys for a left element and its smaller or equal
 * ones for a right element keeps ties in position order: the sort is
 * stable. topk_write then copies the first k of each row to the outputs.
 * For k up to TOPK_FEWEST, topk_few instead reads each row once with one
 * work-item, keeping the k first keys seen so far in order: an element
 * goes in only when its key is below the k-th's, so a later element never
 * passes an equal one (stable too).
 */

/* The layout of a TOPK call: the row axes (every axis but the last, extent
 * 1 dropped) with the strides of the input, values and indices, each
 * view's offset, and the strides along the last axis. Mirrors ClTopkLayout
 * (plugins/opencl/src/topk.hpp) field for field. */
typedef struct {
  long row_shape[7];
  long row_stride[3][7]; /* input, values, indices */
  long offset[3];
  long step[3];
  long row_rank, n_rows, n, k;
} bp_topk_layout;

/* A float's key from its `width` bits, inf the bits of +inf: positive
 * values with the sign bit set, negative ones with every bit flipped (so
 * that they order as numbers), -0 as +0 and every NaN the largest key. */
inline ulong bp_topk_float_key(ulong bits, int width, ulong inf) {
  const ulong sign = (ulong)1 << (width - 1);
  const ulong all = width == 64 ? ~(ulong)0 : (sign << 1) - 1;
  const ulong magnitude = bits & (sign - 1);
  if (magnitude > inf) return ~(ulong)0;
  if (magnitude == 0) return sign;
  return (bits & sign) ? (~bits & all) : (bits | sign);
}

/* Element offset of row r's first element in view v (0 input, 1 values,
 * 2 indices). */
inline long bp_topk_row(const bp_topk_layout *L, long r, int v) {
  long offset = L->offset[v];
  for (int d = (int)L->row_rank - 1; d >= 0; --d) {
    offset += (r % L->row_shape[d]) * L->row_stride[v][d];
    r /= L->row_shape[d];
  }
  return offset;
}

/* Every element's key (complemented for the largest first: the order
 * reversed, NaN first) and position, row after row, dense. */
__kernel void topk_keys(__global ulong *keys, __global long *positions, __global const S *in, bp_topk_layout L,
                        int largest) {
  const long total = L.n_rows * L.n;
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
    const long r = i / L.n, j = i - r * L.n;
    const ulong key = TOPK_KEY(in[bp_topk_row(&L, r, 0) + j * L.step[0]]);
    keys[i] = largest ? ~key : key;
    positions[i] = j;
  }
}

/* One pass: in every row, the sorted runs [b, b + width) and [b + width,
 * b + 2 width) (cut at the row's end n) merged into one. */
__kernel void topk_merge(__global ulong *keys_out, __global long *positions_out, __global const ulong *keys,
                         __global const long *positions, long n, long total, long width) {
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
    const long row = i / n * n, j = i - row;
    const long start = j / (2 * width) * (2 * width);
    const long mid = min(start + width, n), end = min(start + 2 * width, n);
    const ulong key = keys[i];
    const int left = j < mid;
    /* The other run's elements that come first: keys below this one (a
     * left element), or at most this one (a right element). */
    long lo = left ? mid : start, hi = left ? end : mid;
    while (lo < hi) {
      const long m = lo + (hi - lo) / 2;
      const ulong other = keys[row + m];
      if (left ? other < key : other <= key)
        lo = m + 1;
      else
        hi = m;
    }
    const long before = lo - (left ? mid : start);
    const long to = row + start + (j - (left ? start : mid)) + before;
    keys_out[to] = key;
    positions_out[to] = positions[i];
  }
}

/* The k first of each row by one pass (k <= TOPK_FEWEST), straight into
 * the outputs. */
#define TOPK_FEWEST 32
__kernel void topk_few(__global S *values, __global long *indices, __global const S *in, bp_topk_layout L,
                       int largest) {
  for (long r = get_global_id(0); r < L.n_rows; r += get_global_size(0)) {
    ulong keys[TOPK_FEWEST];
    long positions[TOPK_FEWEST];
    const long from = bp_topk_row(&L, r, 0);
    for (long j = 0; j < L.n; ++j) {
      const ulong key = largest ? ~TOPK_KEY(in[from + j * L.step[0]]) : TOPK_KEY(in[from + j * L.step[0]]);
      if (j >= L.k && !(key < keys[L.k - 1])) continue;
      long i = j < L.k ? j : L.k - 1;
      for (; i > 0 && key < keys[i - 1]; --i) {
        keys[i] = keys[i - 1];
        positions[i] = positions[i - 1];
      }
      keys[i] = key;
      positions[i] = j;
    }
    const long v = bp_topk_row(&L, r, 1), x = bp_topk_row(&L, r, 2);
    for (long j = 0; j < L.k; ++j) {
      values[v + j * L.step[1]] = in[from + positions[j] * L.step[0]];
      indices[x + j * L.step[2]] = positions[j];
    }
  }
}

/* The first k (key, position) pairs of every row: the positions and the
 * elements they name, as stored. */
__kernel void topk_write(__global S *values, __global long *indices, __global const S *in,
                         __global const long *positions, bp_topk_layout L) {
  const long total = L.n_rows * L.k;
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
    const long r = i / L.k, j = i - r * L.k;
    const long p = positions[r * L.n + j];
    values[bp_topk_row(&L, r, 1) + j * L.step[1]] = in[bp_topk_row(&L, r, 0) + p * L.step[0]];
    indices[bp_topk_row(&L, r, 2) + j * L.step[2]] = p;
  }
}
