/*
 * reduction.cl — the Reduce family (ClReduceLayout in kernel_source.hpp):
 * work-group g handles outputs g, g + groups, ...; its work-items stride
 * over the reduced elements, then combine in local memory (at most
 * BP_GROUP_MAX of them, which kernel_source.cpp defines). Sections
 * (README.md):
 *
 *   BP_REDUCE_DEFINITIONS  the layout and its offsets; once, first
 *   BP_KERNEL_REDUCE_SUM, _MEAN, _NORM, _PROD: a fold. TERM maps an
 *     element to what is folded in, ADD(s, c, v) folds v into s (with
 *     compensation c for sums) starting from INIT, RESULT(s, c) and
 *     COMBINE(a, b) as BP_SUM_*, FINISH(acc, n) makes the output; SUM and
 *     PROD write OUT_T (int64 for integers and bool)
 *   BP_KERNEL_REDUCE_LOGSUMEXP: plugin.h's LOGSUMEXP
 *   BP_KERNEL_REDUCE_MAX, _MIN: the extreme, NaN winning
 *   BP_KERNEL_REDUCE_ARGMAX, _ARGMIN: its first index in C order
 *   BP_KERNEL_REDUCE_VAR: plugin.h's VAR, its correction an argument
 */

#ifdef BP_REDUCE_DEFINITIONS
typedef struct {
  long keep_shape[8];
  long keep_in[8];
  long keep_out[8];
  long red_shape[8];
  long red_in[8];
  long keep_rank, red_rank, in_offset, out_offset, n_out, n_red;
} bp_reduce_layout;

inline void bp_keep_offsets(const bp_reduce_layout *L, long g, long *in, long *out) {
  long i = L->in_offset, o = L->out_offset;
  for (int d = (int)L->keep_rank - 1; d >= 0; --d) {
    const long e = g % L->keep_shape[d];
    g /= L->keep_shape[d];
    i += e * L->keep_in[d];
    o += e * L->keep_out[d];
  }
  *in = i;
  *out = o;
}

/* Offset of the j-th reduced element, C order (what ARGMAX reports). */
inline long bp_red_offset(const bp_reduce_layout *L, long j) {
  if (L->red_rank == 1) return j * L->red_in[0];
  long off = 0;
  for (int d = (int)L->red_rank - 1; d >= 0; --d) {
    const long e = j % L->red_shape[d];
    j /= L->red_shape[d];
    off += e * L->red_in[d];
  }
  return off;
}

/* The outputs of this work-group (of the kernel's layout L), each with
 * `in` and `out` the offsets of its first input element and of itself;
 * lid and lsize are the work-item's place in the group and the group's
 * size. */
#define BP_EACH_OUTPUT(in, out)                                       \
  const int lid = (int)get_local_id(0);                               \
  const int lsize = (int)get_local_size(0);                           \
  for (long g_ = get_group_id(0), in = 0, out = 0;                    \
       g_ < L.n_out && (bp_keep_offsets(&L, g_, &in, &out), 1); g_ += get_num_groups(0))

/* What loses to every value of T: the start of MAX and MIN. */
#if defined(BP_T_INT32)
#define BP_T_LOWEST INT_MIN
#define BP_T_HIGHEST INT_MAX
#elif defined(BP_T_INT64)
#define BP_T_LOWEST LONG_MIN
#define BP_T_HIGHEST LONG_MAX
#elif defined(BP_T_INT8)
#define BP_T_LOWEST CHAR_MIN
#define BP_T_HIGHEST CHAR_MAX
#elif defined(BP_T_UINT8)
#define BP_T_LOWEST 0
#define BP_T_HIGHEST UCHAR_MAX
#elif defined(BP_T_INT16)
#define BP_T_LOWEST SHRT_MIN
#define BP_T_HIGHEST SHRT_MAX
#else
#define BP_T_LOWEST (-INFINITY)
#define BP_T_HIGHEST INFINITY
#endif
#endif

/* The folds' parameters. */
#if defined(BP_KERNEL_REDUCE_SUM) || defined(BP_KERNEL_REDUCE_MEAN) || defined(BP_KERNEL_REDUCE_NORM)
#define INIT 0
#define ADD(s, c, v) BP_SUM_ADD(s, c, v)
#define RESULT(s, c) BP_SUM_RESULT(s, c)
#define COMBINE(a, b) BP_SUM_COMBINE(a, b)
#endif
#ifdef BP_KERNEL_REDUCE_SUM
#define TERM(x) ((ACC)(x))
#define FINISH(s, n) ((OUT_T)(s))
#endif
#ifdef BP_KERNEL_REDUCE_MEAN
#define TERM(x) ((ACC)(x))
#define FINISH(s, n) ((T)((s) / (ACC)(n)))
#endif
#ifdef BP_KERNEL_REDUCE_NORM
#define TERM(x) ((ACC)(x) * (ACC)(x))
#define FINISH(s, n) ((T)sqrt(s))
#endif
#ifdef BP_KERNEL_REDUCE_PROD
/* In the sum's accumulator and output dtype; integer products wrap. */
#define INIT 1
#define TERM(x) ((ACC)(x))
#if BP_T_IS_FLOAT
#define ADD(s, c, v) \
  { s = s * v; }
#define COMBINE(a, b) ((a) * (b))
#else
#define ADD(s, c, v) \
  { s = (ACC)((ulong)s * (ulong)v); }
#define COMBINE(a, b) ((ACC)((ulong)(a) * (ulong)(b)))
#endif
#define RESULT(s, c) (s)
#define FINISH(s, n) ((OUT_T)(s))
#endif

#if defined(BP_KERNEL_REDUCE_SUM) || defined(BP_KERNEL_REDUCE_MEAN) || defined(BP_KERNEL_REDUCE_NORM) || defined(BP_KERNEL_REDUCE_PROD)
__kernel void BP_NAME(__global OUT_S *o, __global const S *x, bp_reduce_layout L) {
  __local ACC part[BP_GROUP_MAX];
  BP_EACH_OUTPUT(in, out) {
    ACC s = INIT, c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC v = TERM(LD(x[in + bp_red_offset(&L, j)]));
      ADD(s, c, v);
    }
    BP_GROUP_COMBINE(part, lid, lsize, RESULT(s, c), COMBINE)
    if (lid == 0) o[out] = OSV(FINISH(part[0], L.n_red));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#undef INIT
#undef TERM
#undef ADD
#undef RESULT
#undef COMBINE
#undef FINISH
#endif

/* MAX, MIN: OP(best, x) keeps the winner; x replaces best only when
 * strictly better, or a NaN replacing a number (as in the reference: ties
 * keep the earlier element, and a NaN once kept stays). IDENTITY loses to
 * anything. */
#ifdef BP_KERNEL_REDUCE_MAX
#define IDENTITY BP_T_LOWEST
#define OP(best, x) (IS_NAN(best) ? (best) : (IS_NAN(x) || (x) > (best)) ? (x) : (best))
#endif
#ifdef BP_KERNEL_REDUCE_MIN
#define IDENTITY BP_T_HIGHEST
#define OP(best, x) (IS_NAN(best) ? (best) : (IS_NAN(x) || (x) < (best)) ? (x) : (best))
#endif

#if defined(BP_KERNEL_REDUCE_MAX) || defined(BP_KERNEL_REDUCE_MIN)
__kernel void BP_NAME(__global S *o, __global const S *x, bp_reduce_layout L) {
  __local T part[BP_GROUP_MAX];
  BP_EACH_OUTPUT(in, out) {
    T best = IDENTITY;
    for (long j = lid; j < L.n_red; j += lsize) best = OP(best, LD(x[in + bp_red_offset(&L, j)]));
    BP_GROUP_COMBINE(part, lid, lsize, best, OP)
    if (lid == 0) o[out] = SV(part[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#undef IDENTITY
#undef OP
#endif

/* ARGMAX and ARGMIN: the first maximum (OP(v, best) is v > best) or
 * minimum (v < best) in C order; a NaN counts as either (the first NaN
 * wins). Index -1 marks a work-item that saw no element. */
#ifdef BP_KERNEL_REDUCE_ARGMAX
#define OP(v, best) ((v) > (best))
#endif
#ifdef BP_KERNEL_REDUCE_ARGMIN
#define OP(v, best) ((v) < (best))
#endif

#if defined(BP_KERNEL_REDUCE_ARGMAX) || defined(BP_KERNEL_REDUCE_ARGMIN)
inline int BP_CAT(BP_NAME, _better)(T v, long i, T best, long best_i) {
  if (i < 0) return 0;
  if (best_i < 0) return 1;
  if (IS_NAN(best)) return IS_NAN(v) && i < best_i;
  if (IS_NAN(v)) return 1;
  return OP(v, best) || (v == best && i < best_i);
}

__kernel void BP_NAME(__global long *o, __global const S *x, bp_reduce_layout L) {
  __local T part_v[BP_GROUP_MAX];
  __local long part_i[BP_GROUP_MAX];
  BP_EACH_OUTPUT(in, out) {
    T best = 0;
    long best_i = -1;
    for (long j = lid; j < L.n_red; j += lsize) {
      const T v = LD(x[in + bp_red_offset(&L, j)]);
      if (BP_CAT(BP_NAME, _better)(v, j, best, best_i)) {
        best = v;
        best_i = j;
      }
    }
    part_v[lid] = best;
    part_i[lid] = best_i;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h && BP_CAT(BP_NAME, _better)(part_v[lid + h], part_i[lid + h], part_v[lid], part_i[lid])) {
        part_v[lid] = part_v[lid + h];
        part_i[lid] = part_i[lid + h];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) o[out] = part_i[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#undef OP
#endif

/* LOGSUMEXP (plugin.h): the maximum m of the reduced set first (a NaN
 * wins, as for MAX), then the sum of exp(x - m) in ACC (BP_SUM_*), and
 * m + log(sum). A maximum that is not finite is the result itself: NaN,
 * +inf, or -inf (nothing but -inf, or the empty set). No barrier sits
 * inside a branch (PoCL 2.10 hung on one that every work-item took the
 * same way): for an m that is not finite the sum runs too, over no terms. */
#ifdef BP_KERNEL_REDUCE_LOGSUMEXP
inline ACC BP_CAT(BP_NAME, _max)(ACC best, ACC x) { return (isnan(best) || x <= best) ? best : x; }

__kernel void BP_NAME(__global S *o, __global const S *x, bp_reduce_layout L) {
  __local ACC part[BP_GROUP_MAX];
  BP_EACH_OUTPUT(in, out) {
    ACC m = -INFINITY;
    for (long j = lid; j < L.n_red; j += lsize) m = BP_CAT(BP_NAME, _max)(m, (ACC)LD(x[in + bp_red_offset(&L, j)]));
    BP_GROUP_COMBINE(part, lid, lsize, m, BP_CAT(BP_NAME, _max))
    m = part[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read m before part is reused */
    const long terms = isfinite(m) ? L.n_red : 0;
    ACC s = 0, c = 0;
    for (long j = lid; j < terms; j += lsize) {
      const ACC v = exp((ACC)LD(x[in + bp_red_offset(&L, j)]) - m);
      BP_SUM_ADD(s, c, v);
    }
    BP_GROUP_COMBINE(part, lid, lsize, BP_SUM_RESULT(s, c), BP_SUM_COMBINE)
    if (lid == 0) o[out] = SV((T)(isfinite(m) ? m + log(part[0]) : m));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#endif

/* VAR (plugin.h): two passes over the reduced set, the sum and then the
 * squared deviations from the mean, each a BP_SUM_* sum in ACC; m2 is
 * divided by max(0, n - correction). As in LOGSUMEXP, no barrier sits in a
 * branch. */
#ifdef BP_KERNEL_REDUCE_VAR
__kernel void BP_NAME(__global S *o, __global const S *x, bp_reduce_layout L, long correction) {
  __local ACC part[BP_GROUP_MAX];
  BP_EACH_OUTPUT(in, out) {
    ACC s = 0, c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC v = (ACC)LD(x[in + bp_red_offset(&L, j)]);
      BP_SUM_ADD(s, c, v);
    }
    BP_GROUP_COMBINE(part, lid, lsize, BP_SUM_RESULT(s, c), BP_SUM_COMBINE)
    const ACC mean = L.n_red > 0 ? part[0] / (ACC)L.n_red : (ACC)0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read the sum before part is reused */
    s = 0;
    c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC d = (ACC)LD(x[in + bp_red_offset(&L, j)]) - mean;
      const ACC v = d * d;
      BP_SUM_ADD(s, c, v);
    }
    BP_GROUP_COMBINE(part, lid, lsize, BP_SUM_RESULT(s, c), BP_SUM_COMBINE)
    const long divisor = L.n_red - correction;
    if (lid == 0) o[out] = SV((T)(part[0] / (divisor > 0 ? (ACC)divisor : (ACC)0)));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#endif
