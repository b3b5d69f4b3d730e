// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: one thread per element of the
// rows tensor (index row n, position within its slice), the slice found by
// backplane/kernels/indexing.hpp. An index row with a value outside its axis
// is skipped, as plugin.h allows a device backend, so no thread ever touches
// memory outside the views. Index rows naming one element twice make two
// threads store whole elements to it: one of the values wins, which plugin.h
// leaves unspecified; SCATTER_ADD_ND adds with atomics instead, so every
// row counts (floats in the output's dtype, in whatever order the threads
// come: plugin.h's Accumulation rule). The 8- and 16-bit dtypes have no
// atomic add of their own: a compare-and-swap loop on the aligned 32-bit
// word holding the element adds in the compute type and narrows, rounding
// a half after each term (which plugin.h allows SCATTER_ADD_ND).
#include <cstdint>
#include <string>
#include <type_traits>

#include "backplane/kernels/indexing.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "narrow_types.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

// The element offset of index row n's slice in the indexed tensor; false
// when the row is out of range.
__device__ inline bool slice_of(const IndexShape &s, const int64_t *index, int64_t n, int64_t &offset) {
  return bp_kernels::slice_offset(index + n * s.index_strides[0], s.index_strides[1], s.k, s.indexed_shape,
                                  s.indexed_strides, &offset) < 0;
}

// Atomic out += value, wrapping for integers: the hardware adds two's
// complement bits, so the unsigned forms give signed sums too.
__device__ inline void atomic_add(float *to, float value) { atomicAdd(to, value); }
__device__ inline void atomic_add(double *to, double value) { atomicAdd(to, value); }
__device__ inline void atomic_add(int32_t *to, int32_t value) {
  atomicAdd(reinterpret_cast<unsigned int *>(to), static_cast<unsigned int>(value));
}
__device__ inline void atomic_add(int64_t *to, int64_t value) {
  static_assert(sizeof(int64_t) == sizeof(unsigned long long), "atomicAdd's 64-bit integer");
  atomicAdd(reinterpret_cast<unsigned long long *>(to), static_cast<unsigned long long>(value));
}

// The element's bits within its word, as an unsigned number.
template <class T>
__device__ inline unsigned int bits_of(T x) {
  if constexpr (sizeof(T) == 1) return static_cast<uint8_t>(x);
  else return static_cast<uint16_t>(x);
}
template <class T>
__device__ inline T from_bits(unsigned int bits) {
  if constexpr (sizeof(T) == 1) return static_cast<T>(static_cast<uint8_t>(bits));
  else return static_cast<T>(static_cast<uint16_t>(bits));
}

// Device buffers are at least 4-byte aligned and 4-byte sized (the
// allocator's granule), so the word lies inside the element's buffer; an
// element never straddles two words.
template <class T, std::enable_if_t<is_narrow<T>, int> = 0>
__device__ inline void atomic_add(T *to, T value) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(to);
  unsigned int *word = reinterpret_cast<unsigned int *>(address & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(address & 3u) * 8u;
  const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  const compute_t<T> term = widen(value);
  unsigned int seen = *word, expected;
  do {
    expected = seen;
    const T sum = narrow<T>(widen(from_bits<T>((expected & mask) >> shift)) + term);
    seen = atomicCAS(word, expected, (expected & ~mask) | (bits_of(sum) << shift));
  } while (seen != expected);
}

enum class IndexMode { Gather, Scatter, ScatterAdd };

// Element i of the index's rows times their slices: GATHER_ND copies it from
// the indexed `src` into row n of `out`, SCATTER_ND from row n of `src` into
// the indexed `out`, SCATTER_ADD_ND adds it there.
template <IndexMode mode, class T>
__global__ void __launch_bounds__(kThreads)
    index_kernel(const __grid_constant__ IndexShape s, const int64_t *index, const T *src, T *out) {
  const int64_t per_row = s.slice.numel, total = s.rows * per_row;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t n = i / per_row;
    int64_t at, offset[2];
    if (!slice_of(s, index, n, at)) continue;
    element_offsets(s.slice, i - n * per_row, offset);
    if constexpr (mode == IndexMode::Gather) out[n * s.rows_stride + offset[0]] = src[at + offset[1]];
    else if constexpr (mode == IndexMode::Scatter) out[at + offset[1]] = src[n * s.rows_stride + offset[0]];
    else atomic_add(&out[at + offset[1]], src[n * s.rows_stride + offset[0]]);
  }
}

// index_kernel for the dtypes of the vocabulary's dtype set `set`.
template <IndexMode mode, int32_t set>
void launch_index(const Launch &launch, int32_t dtype, const IndexShape &shape, void *out, const void *src,
                  const void *index, const char *name) {
  dispatch_set<set>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_kernel<mode, T><<<grid_for(launch, shape.rows * shape.slice.numel), kThreads, 0, launch.stream>>>(
        shape, static_cast<const int64_t *>(index), static_cast<const T *>(src), static_cast<T *>(out));
    check_launch(name, launch.device);
  });
}

}  // namespace

void launch_gather_nd(const Launch &launch, int32_t dtype, const IndexShape &shape, void *out, const void *data,
                      const void *index) {
  const std::string name = kernel_name(BP_OP_GATHER_ND, dtype);
  launch_index<IndexMode::Gather, BP_DTYPE_SET_ALL>(launch, dtype, shape, out, data, index, name.c_str());
}

void launch_scatter_nd(const Launch &launch, int32_t op, int32_t dtype, const IndexShape &shape, void *out,
                       const void *index, const void *values) {
  const std::string name = kernel_name(op, dtype);
  if (op == BP_OP_SCATTER_ADD_ND)
    return launch_index<IndexMode::ScatterAdd, BP_DTYPE_SET_NUMERIC>(launch, dtype, shape, out, values, index,
                                                                     name.c_str());
  launch_index<IndexMode::Scatter, BP_DTYPE_SET_ALL>(launch, dtype, shape, out, values, index, name.c_str());
}

}  // namespace bp_cuda
