/*
 * indexing.cl — the Index family: GATHER_ND, SCATTER_ND and
 * SCATTER_ADD_ND (ClIndexLayout in kernel_source.hpp), one work-item per
 * element of the rows tensor. An index row naming a position outside the
 * indexed tensor is skipped, as plugin.h lets a device backend do: no
 * access leaves the views. Sections (README.md):
 *
 *   BP_INDEX_DEFINITIONS: the layout and bp_index_offsets; once, first
 *   BP_ATOMIC_ADD: bp_atomic_add, for SCATTER_ADD_ND; only where the
 *     device implements it (64-bit forms need cl_khr_int64_base_atomics:
 *     supports.cpp)
 *   BP_KERNEL_GATHER_ND, _SCATTER_ND, _SCATTER_ADD_ND: work-item i's
 *     element is at a in the indexed tensor and at b in the rows tensor;
 *     OP(a, b) moves it from `src`, the one of the two that is no output.
 *     Rows naming one element more than once: for SCATTER_ND they race and
 *     one wins, as plugin.h allows; SCATTER_ADD_ND's bp_atomic_add makes
 *     each addition one indivisible step.
 */

#ifdef BP_INDEX_DEFINITIONS
typedef struct {
  long extent[8];
  long indexed_axis[8];
  long row_shape[8];
  long row_indexed[8];
  long row_rows[8];
  long k, m, row_numel;
  long rows_n, index_n, index_j;
  long indexed_offset, rows_offset, index_offset;
} bp_index_layout;

/* Offsets of element i (C order) of the rows tensor and of the indexed
   element it pairs with; 0 when its index row is out of range. */
inline int bp_index_offsets(const bp_index_layout *L, __global const long *index, long i, long *indexed,
                            long *rows) {
  const long n = i / L->row_numel;
  long e = i % L->row_numel;
  long a = L->indexed_offset, b = L->rows_offset + n * L->rows_n;
  const long at = L->index_offset + n * L->index_n;
  for (int j = 0; j < (int)L->k; ++j) {
    const long v = index[at + j * L->index_j];
    if (v < 0 || v >= L->extent[j]) return 0;
    a += v * L->indexed_axis[j];
  }
  for (int d = (int)L->m - 1; d >= 0; --d) {
    const long c = e % L->row_shape[d];
    e /= L->row_shape[d];
    a += c * L->row_indexed[d];
    b += c * L->row_rows[d];
  }
  *indexed = a;
  *rows = b;
  return 1;
}
#endif

/* bp_atomic_add(o, a, v): o[a] += v as one atomic step. Integers use the
 * unsigned atomic add, whose wrap-around is two's complement's; floats,
 * which OpenCL C 1.2 cannot add atomically, a compare-and-swap loop on
 * their bits (compared as integers, so a NaN ends the loop like any
 * value). 8- and 16-bit elements have no atomics of their own: the loop
 * swaps the aligned 32-bit word that holds the element (buffers are
 * allocated in whole words, buffer.cpp), and a half is rounded after each
 * term, as plugin.h allows SCATTER_ADD_ND. */
#ifdef BP_ATOMIC_ADD
#if defined(BP_T_INT64) || defined(BP_T_FLOAT64)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#if defined(BP_T_INT32)
inline void bp_atomic_add(__global S *o, long a, T v) { atomic_add((volatile __global uint *)(o + a), (uint)v); }
#elif defined(BP_T_INT64)
inline void bp_atomic_add(__global S *o, long a, T v) { atom_add((volatile __global ulong *)(o + a), (ulong)v); }
#elif defined(BP_T_FLOAT32) || defined(BP_T_FLOAT64)
#if defined(BP_T_FLOAT32)
#define BP_WORD uint
#define BP_CMPXCHG atomic_cmpxchg
#define BP_AS_WORD as_uint
#define BP_AS_REAL as_float
#else
#define BP_WORD ulong
#define BP_CMPXCHG atom_cmpxchg
#define BP_AS_WORD as_ulong
#define BP_AS_REAL as_double
#endif
inline void bp_atomic_add(__global S *o, long a, T v) {
  volatile __global BP_WORD *bits = (volatile __global BP_WORD *)(o + a);
  BP_WORD seen = *bits, was;
  do {
    was = seen;
    seen = BP_CMPXCHG(bits, was, BP_AS_WORD(BP_AS_REAL(was) + v));
  } while (seen != was);
}
#else
inline void bp_atomic_add(__global S *o, long a, T v) {
  const long byte = a * (long)sizeof(S);
  volatile __global uint *word = (volatile __global uint *)o + byte / 4;
#ifdef __ENDIAN_LITTLE__
  const uint shift = (uint)(byte % 4) * 8u;
#else
  const uint shift = (uint)(4 - sizeof(S) - byte % 4) * 8u;
#endif
  const uint mask = (sizeof(S) == 1 ? 0xffu : 0xffffu) << shift;
  uint seen = *word, was;
  do {
    was = seen;
    const S old = (S)((was & mask) >> shift);
#if BP_T_IS_FLOAT
    const S sum = SV(LD(old) + v);
#else
    const S sum = (S)((UT)old + (UT)v);
#endif
    seen = atomic_cmpxchg(word, was, (was & ~mask) | (((uint)sum << shift) & mask));
  } while (seen != was);
}
#endif
#endif

#ifdef BP_KERNEL_GATHER_ND
#define OP(a, b) o[b] = src[a]
#endif
#ifdef BP_KERNEL_SCATTER_ND
#define OP(a, b) o[a] = src[b]
#endif
#ifdef BP_KERNEL_SCATTER_ADD_ND
#define OP(a, b) bp_atomic_add(o, a, LD(src[b]))
#endif

#if defined(BP_KERNEL_GATHER_ND) || defined(BP_KERNEL_SCATTER_ND) || defined(BP_KERNEL_SCATTER_ADD_ND)
__kernel void BP_NAME(__global S *o, __global const long *index, __global const S *src, bp_index_layout L,
                      long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    long a, b;
    if (bp_index_offsets(&L, index, i, &a, &b)) OP(a, b);
  }
}
#undef OP
#endif
