/*
 * backplane/kernels/topk.hpp — TOPK's order (semantics in
 * backplane/plugin.h) as unsigned keys, shared by the host and CUDA
 * backends (since 1.6). Header-only C++17, host and nvcc device code.
 *
 * topk_key(x, largest) maps an element to an unsigned integer of its own
 * width whose ascending order is plugin.h's order of the elements: equal
 * keys exactly for the elements plugin.h ties (-0 and +0; every NaN), so a
 * stable sort of the keys (a radix sort, or any sort of (key, position)
 * pairs) is TOPK's result. Floats: the IEEE bits with the sign bit set for
 * positive values and every bit flipped for negative ones, which orders
 * them as numbers; -0 becomes +0's key and every NaN the largest key, so
 * NaN sorts after +inf. Signed integers: the sign bit flipped. Unsigned
 * integers and bool: themselves. Descending (largest) is the complement of
 * the ascending key: the order reversed, NaN first, ties still tied.
 */
#ifndef BACKPLANE_KERNELS_TOPK_HPP
#define BACKPLANE_KERNELS_TOPK_HPP

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "backplane/plugin_sdk.hpp"

#if !defined(BP_HD)
#if defined(__CUDACC__)
#define BP_HD __host__ __device__
#else
#define BP_HD
#endif
#endif

namespace bp_kernels {

template <int bytes>
struct topk_unsigned;
template <>
struct topk_unsigned<1> {
  using type = uint8_t;
};
template <>
struct topk_unsigned<2> {
  using type = uint16_t;
};
template <>
struct topk_unsigned<4> {
  using type = uint32_t;
};
template <>
struct topk_unsigned<8> {
  using type = uint64_t;
};

/* The key type of element type T: unsigned, T's width. */
template <class T>
using topk_key_t = typename topk_unsigned<int(sizeof(T))>::type;

/* The bits of +inf in a float type of this key width (float16's, float32's,
 * float64's; bfloat16's differ and are given by the caller). BP_HD: device
 * code (topk_key in a CUDA kernel) calls it too. */
template <class K>
BP_HD constexpr K topk_float_inf_bits() {
  return sizeof(K) == 2 ? K(0x7c00u) : sizeof(K) == 4 ? K(0x7f800000u) : K(0x7ff0000000000000ull);
}

template <class T>
constexpr bool topk_is_float = std::is_floating_point<T>::value || std::is_same<T, bp_plugin::float16>::value ||
                               std::is_same<T, bp_plugin::bfloat16>::value;

template <class T>
BP_HD inline topk_key_t<T> topk_key(T x, bool largest) {
  using K = topk_key_t<T>;
  constexpr K sign = K(K(1) << (8 * sizeof(K) - 1));
  K bits;
  memcpy(&bits, &x, sizeof bits);
  K key;
  if constexpr (topk_is_float<T>) {
    constexpr K inf = std::is_same<T, bp_plugin::bfloat16>::value ? K(0x7f80u) : topk_float_inf_bits<K>();
    const K magnitude = K(bits & K(~sign));
    if (magnitude > inf)
      key = K(~K(0));  // NaN, any sign or payload
    else if (magnitude == 0)
      key = sign;  // -0 and +0
    else
      key = (bits & sign) ? K(~bits) : K(bits | sign);
  } else if constexpr (std::is_signed<T>::value) {
    key = K(bits ^ sign);
  } else {
    key = bits;  // unsigned integers and bool (0 or 1)
  }
  return largest ? K(~key) : key;
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_TOPK_HPP */
