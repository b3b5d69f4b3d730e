/*
 * creation.cl — the Create family: fill, arange and the random streams of
 * plugin.h, elementwise-shaped (BP_WALK and BP_AT, common.cl). Sections
 * (README.md):
 *
 *   BP_KERNEL_FILL: every element s, stored as by SV
 *   BP_KERNEL_ARANGE: start + i * step in float64, converted by OP (COPY's
 *     conversion from float64, convert_body)
 *   BP_RANDOM_UNIT: bp_unit(seed, j), the stream's j-th draw in [0, 1),
 *     backplane/kernels/random.h's (which the program holds before it),
 *     float64's where T is double (the halves round float32's draws);
 *     once, before the two below
 *   BP_KERNEL_RANDOM_UNIFORM: low + (high - low) * u(i)
 *   BP_KERNEL_RANDOM_NORMAL: Box-Muller in T,
 *     mean + std * sqrt(-2 ln(1 - u(2i))) * cos(2 pi u(2i+1))
 */

#ifdef BP_KERNEL_FILL
__kernel void BP_NAME(__global S *o, bp_layout L, long n, T s) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = SV(s);
  }
}
#endif

#ifdef BP_KERNEL_ARANGE
__kernel void BP_NAME(__global S *o, bp_layout L, long n, double start, double step) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const double v = start + (double)i * step;
    o[BP_AT(0)] = SV(OP(v));
  }
}
#endif

#ifdef BP_RANDOM_UNIT
#ifdef BP_T_FLOAT64
inline double bp_unit(ulong seed, ulong j) { return bp_random_unit_f64(seed, j); }
#define BP_TWO_PI (2.0 * M_PI)
#else
inline float bp_unit(ulong seed, ulong j) { return bp_random_unit_f32(seed, j); }
#define BP_TWO_PI (2.0f * M_PI_F)
#endif
#endif

#ifdef BP_KERNEL_RANDOM_UNIFORM
__kernel void BP_NAME(__global S *o, bp_layout L, long n, ulong seed, T low, T high) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = SV(low + (high - low) * bp_unit(seed, (ulong)i));
  }
}
#endif

#ifdef BP_KERNEL_RANDOM_NORMAL
__kernel void BP_NAME(__global S *o, bp_layout L, long n, ulong seed, T mean, T std) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T u1 = bp_unit(seed, 2UL * (ulong)i);
    const T u2 = bp_unit(seed, 2UL * (ulong)i + 1UL);
    o[BP_AT(0)] = SV(mean + std * sqrt((T)-2 * log((T)1 - u1)) * cos(BP_TWO_PI * u2));
  }
}
#endif
