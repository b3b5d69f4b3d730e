/*
 * backplane/kernels/random.h — the counter-based random stream every backend
 * draws (specified in backplane/plugin.h), so one seed gives the same values
 * on every device. C99; also compiles as C++, CUDA (host and device) and
 * OpenCL C, whose backend embeds this file's text at build time. OpenCL C
 * sees bp_random_unit_f64 only where the program defines BP_RANDOM_F64
 * (a device without float64 cannot compile it).
 */
#ifndef BACKPLANE_KERNELS_RANDOM_H
#define BACKPLANE_KERNELS_RANDOM_H

#if defined(__OPENCL_VERSION__)
#define BP_RANDOM_FN inline
#define BP_RANDOM_U64 ulong
#else
#include <stdint.h>
#define BP_RANDOM_U64 uint64_t
#if defined(__CUDACC__)
#define BP_RANDOM_FN static inline __host__ __device__
#else
#define BP_RANDOM_FN static inline
#endif
#endif

/* splitmix64 of the j-th counter: r(j) in plugin.h. (A hexadecimal UL
 * constant too wide for unsigned long is unsigned long long in C99.) */
BP_RANDOM_FN BP_RANDOM_U64 bp_random_bits(BP_RANDOM_U64 seed, BP_RANDOM_U64 j) {
  BP_RANDOM_U64 z = seed + 0x9E3779B97F4A7C15UL * (j + 1u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

/* u(j) in [0, 1) with 24 random bits. */
BP_RANDOM_FN float bp_random_unit_f32(BP_RANDOM_U64 seed, BP_RANDOM_U64 j) {
  return (float)(bp_random_bits(seed, j) >> 40) * (1.0f / 16777216.0f);
}

#if !defined(__OPENCL_VERSION__) || defined(BP_RANDOM_F64)
/* u(j) in [0, 1) with 53 random bits. */
BP_RANDOM_FN double bp_random_unit_f64(BP_RANDOM_U64 seed, BP_RANDOM_U64 j) {
  return (double)(bp_random_bits(seed, j) >> 11) * (1.0 / 9007199254740992.0);
}
#endif

#endif /* BACKPLANE_KERNELS_RANDOM_H */
