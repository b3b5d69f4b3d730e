/*
 * backplane/kernels/creation.hpp — the value of element i (its C-order
 * position) for ARANGE, RANDOM_UNIFORM and RANDOM_NORMAL, exactly as
 * backplane/plugin.h specifies them, so every backend writes the same
 * numbers. Header-only C++17, host and nvcc device code. (FILL is one
 * Cast<T> of attrs.scalar.)
 */
#ifndef BACKPLANE_KERNELS_CREATION_HPP
#define BACKPLANE_KERNELS_CREATION_HPP

#include "backplane/kernels/elementwise.hpp"
#include "backplane/kernels/random.h"

namespace bp_kernels {

/* start + i * step, computed in float64, converted as by COPY. */
template <class T>
BP_HD inline T arange_value(double start, double step, int64_t i) {
  return Cast<T>()(start + static_cast<double>(i) * step);
}

/* u(j) of plugin.h in the precision of T (float or double). */
template <class T>
BP_HD inline T random_unit(uint64_t seed, uint64_t j) {
  if constexpr (std::is_same<T, float>::value) return bp_random_unit_f32(seed, j);
  else return bp_random_unit_f64(seed, j);
}

/* low + (high - low) * u(i), in T. */
template <class T>
BP_HD inline T random_uniform_value(double low, double high, uint64_t seed, int64_t i) {
  const T lo = static_cast<T>(low), hi = static_cast<T>(high);
  return lo + (hi - lo) * random_unit<T>(seed, static_cast<uint64_t>(i));
}

/* Box-Muller in T: mean + std * sqrt(-2 ln(1 - u(2i))) * cos(2 pi u(2i+1)). */
template <class T>
BP_HD inline T random_normal_value(double mean, double stddev, uint64_t seed, int64_t i) {
  const uint64_t j = 2u * static_cast<uint64_t>(i);
  const T u1 = random_unit<T>(seed, j), u2 = random_unit<T>(seed, j + 1u);
  const T two_pi = static_cast<T>(6.283185307179586476925286766559);
  return static_cast<T>(mean) +
         static_cast<T>(stddev) * fmath::sqrt(T(-2) * fmath::log(T(1) - u1)) * fmath::cos(two_pi * u2);
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_CREATION_HPP */
