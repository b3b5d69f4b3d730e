/*
 * backplane_kernels/random.h — the counter-based random stream every backend
 * draws (specified in backplane/plugin.h), so one seed gives the same values
 * on every device. C99; also compiles as C++ and CUDA (host and device).
 */
#ifndef BACKPLANE_KERNELS_RANDOM_H
#define BACKPLANE_KERNELS_RANDOM_H

#include <stdint.h>

#if defined(__CUDACC__)
#define BP_RANDOM_FN static inline __host__ __device__
#else
#define BP_RANDOM_FN static inline
#endif

/* splitmix64 of the j-th counter: r(j) in plugin.h. */
BP_RANDOM_FN uint64_t bp_random_bits(uint64_t seed, uint64_t j) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (j + 1u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* u(j) in [0, 1) with 53 random bits. */
BP_RANDOM_FN double bp_random_unit_f64(uint64_t seed, uint64_t j) {
  return (double)(bp_random_bits(seed, j) >> 11) * (1.0 / 9007199254740992.0);
}

/* u(j) in [0, 1) with 24 random bits. */
BP_RANDOM_FN float bp_random_unit_f32(uint64_t seed, uint64_t j) {
  return (float)(bp_random_bits(seed, j) >> 40) * (1.0f / 16777216.0f);
}

#endif /* BACKPLANE_KERNELS_RANDOM_H */
