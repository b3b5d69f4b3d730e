/*
 * collective.cl — the Collective family: a collective's reduction on the
 * device that holds participant `own`'s share (at own_at): the other n - 1
 * shares arrived, in participant order, in `others`, numel elements
 * apart. Each element is combined in participant order 0..n-1 (a float
 * sum is the sequential one) and written at out_at; `out` may be the very
 * same elements as `own` (in place): each work-item reads its element
 * before writing it. Sections (README.md), one per reduction of plugin.h:
 *
 *   BP_KERNEL_COLLECTIVE_SUM: adds (integers wrap, as the elementwise ADD
 *     does)
 *   BP_KERNEL_COLLECTIVE_MEAN: the sum divided by n (integers: the wrapped
 *     sum in long, truncated toward zero as C divides)
 *   BP_KERNEL_COLLECTIVE_MAX, _MIN: elementwise (on bool: or, and)
 */

#if defined(BP_KERNEL_COLLECTIVE_SUM) || defined(BP_KERNEL_COLLECTIVE_MEAN)
#if BP_T_IS_FLOAT
#define OP(a, b) ((a) + (b))
#else
#define OP(a, b) ((T)((UT)(a) + (UT)(b)))
#endif
#endif
#ifdef BP_KERNEL_COLLECTIVE_MAX
#define OP(a, b) ((b) > (a) ? (b) : (a))
#endif
#ifdef BP_KERNEL_COLLECTIVE_MIN
#define OP(a, b) ((b) < (a) ? (b) : (a))
#endif
#if defined(BP_KERNEL_COLLECTIVE_MEAN) && BP_T_IS_FLOAT
#define FINISH(acc, n) ((acc) / (T)(n))
#elif defined(BP_KERNEL_COLLECTIVE_MEAN)
#define FINISH(acc, n) ((T)((long)(acc) / (n)))
#else
#define FINISH(acc, n) (acc)
#endif

#if defined(BP_KERNEL_COLLECTIVE_SUM) || defined(BP_KERNEL_COLLECTIVE_MEAN) || defined(BP_KERNEL_COLLECTIVE_MAX) || \
    defined(BP_KERNEL_COLLECTIVE_MIN)
__kernel void BP_NAME(__global S *out, long out_at, __global const S *own, long own_at, long own_index,
                      __global const S *others, long n, long numel) {
  for (long e = get_global_id(0); e < numel; e += get_global_size(0)) {
    T acc = LD(own_index == 0 ? own[own_at + e] : others[e]);
    for (long j = 1; j < n; ++j) {
      const T v = LD(j == own_index ? own[own_at + e] : others[(j < own_index ? j : j - 1) * numel + e]);
      acc = OP(acc, v);
    }
    out[out_at + e] = SV(FINISH(acc, n));
  }
}
#undef OP
#endif
#undef FINISH
