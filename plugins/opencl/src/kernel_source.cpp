// kernel_source.cpp — OpenCL C generated per (family, dtype) from templates.
//
// A template is OpenCL C with {{KEY}} placeholders (kernel name, output
// type); the operator itself is the macro OP, #defined just before each
// instantiation. So one template per operator *shape* (binary, unary,
// reduction, ...) serves every operator and every dtype, and what a kernel
// computes is one readable line in the tables below.
#include "kernel_source.hpp"

#include <map>
#include <sstream>

#include "backplane/kernels/op_table.h"
#include "dtype.hpp"
#include "embedded_texts.hpp"
#include "supports.hpp"

namespace bp_ocl {

namespace {

// ---------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------

// Every program starts with this. The structs mirror ClLayout and friends in
// kernel_source.hpp. FP_CONTRACT OFF: no fused multiply-add behind our back,
// so arange and the random streams round exactly like the C backends.
const char *const kPrelude = R"CL(
{{FP64_PRAGMA}}
#pragma OPENCL FP_CONTRACT OFF
typedef {{T}} T;
typedef {{S}} S;    /* how a T is stored: ushort (its bits) for float16 and bfloat16 */
typedef {{UT}} UT;  /* unsigned, at least as wide as an integer T: arithmetic that wraps */
typedef {{ACC}} ACC; /* what reductions accumulate in */
{{HALVES}}
#define LD(v) {{LD}}  /* a stored S as the T it holds */
#define SV(v) {{SV}}  /* a T as stored, rounded once for the halves */

typedef struct {
  long shape[8];
  long stride[4][8];
  long offset[4];
  long rank;
} bp_layout;

/* Element offsets of operands 0..3 of the element at C-order position i. */
inline void bp_offsets(const bp_layout *L, long i, long *off) {
  for (int k = 0; k < 4; ++k) off[k] = L->offset[k];
  for (int d = (int)L->rank - 1; d >= 0; --d) {
    const long e = i % L->shape[d];
    i /= L->shape[d];
    for (int k = 0; k < 4; ++k) off[k] += e * L->stride[k][d];
  }
}
)CL";

// How the two variants of an elementwise kernel find element i of operand k.
const char *const kWalk1d = R"CL(
#define BP_WALK
#define BP_AT(k) (L.offset[k] + i * L.stride[k][0])
)CL";
const char *const kWalkNd = R"CL(
#define BP_WALK long off_[4]; bp_offsets(&L, i, off_);
#define BP_AT(k) off_[k]
)CL";
const char *const kWalkEnd = "#undef BP_WALK\n#undef BP_AT\n";

// mode: 0 = two tensors, 1 = out = OP(a, s), 2 = out = OP(s, a); in the
// scalar modes the host passes the one tensor as both a and b.
const char *const kBinary = R"CL(
__kernel void {{NAME}}(__global {{OUT}} *o, __global const S *a, __global const S *b,
                       bp_layout L, long n, int mode, T s) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T x = mode == 2 ? s : LD(a[BP_AT(1)]);
    const T y = mode == 1 ? s : LD(b[BP_AT(2)]);
    o[BP_AT(0)] = OSV(OP(x, y));
  }
}
)CL";

const char *const kWhere = R"CL(
__kernel void {{NAME}}(__global S *o, __global const uchar *c, __global const S *a,
                       __global const S *b, bp_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = OP(c[BP_AT(1)], a[BP_AT(2)], b[BP_AT(3)]);
  }
}
)CL";

// One operand: a unary operator (the output in the program's dtype) or
// COPY into any dtype.
const char *const kMap1 = R"CL(
__kernel void {{NAME}}(__global {{OUT}} *o, __global const S *a, bp_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T x = LD(a[BP_AT(1)]);
    o[BP_AT(0)] = OSV(OP(x));
  }
}
)CL";

const char *const kFill = R"CL(
__kernel void {{NAME}}(__global S *o, bp_layout L, long n, T s) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = SV(s);
  }
}
)CL";

// plugin.h: start + i * step in float64, converted as by COPY.
const char *const kArange = R"CL(
__kernel void {{NAME}}(__global S *o, bp_layout L, long n, double start, double step) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const double v = start + (double)i * step;
    o[BP_AT(0)] = SV(OP(v));
  }
}
)CL";

// The counter-based stream of plugin.h (splitmix64): random.h itself, with
// its float64 draw only where the kernel is float64's.
const char *const kUnitF32 = R"CL(
inline float bp_unit(ulong seed, ulong j) { return bp_random_unit_f32(seed, j); }
#define BP_TWO_PI (2.0f * M_PI_F)
)CL";

const char *const kUnitF64 = R"CL(
inline double bp_unit(ulong seed, ulong j) { return bp_random_unit_f64(seed, j); }
#define BP_TWO_PI (2.0 * M_PI)
)CL";

const char *const kUniform = R"CL(
__kernel void {{NAME}}(__global S *o, bp_layout L, long n, ulong seed, T low, T high) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = SV(low + (high - low) * bp_unit(seed, (ulong)i));
  }
}
)CL";

// Box-Muller in T: mean + std * sqrt(-2 ln(1 - u(2i))) * cos(2 pi u(2i+1)).
const char *const kNormal = R"CL(
__kernel void {{NAME}}(__global S *o, bp_layout L, long n, ulong seed, T mean, T std) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T u1 = bp_unit(seed, 2UL * (ulong)i);
    const T u2 = bp_unit(seed, 2UL * (ulong)i + 1UL);
    o[BP_AT(0)] = SV(mean + std * sqrt((T)-2 * log((T)1 - u1)) * cos(BP_TWO_PI * u2));
  }
}
)CL";

// Reductions: group g handles outputs g, g + groups, ...; its work-items
// stride over the reduced elements, then combine in local memory.
const char *const kReducePrelude = R"CL(
#define BP_GROUP_MAX {{GROUP_MAX}}
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
)CL";

// SUM, MEAN, NORM and PROD: TERM maps an element to what is folded in,
// FINISH(acc, n) makes the output; ADD(s, c, v) folds v into s (for sums
// with compensation c), starting from INIT.
const char *const kReduceSum = R"CL(
__kernel void {{NAME}}(__global {{OUT}} *o, __global const S *x, bp_reduce_layout L) {
  __local ACC part[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long g = get_group_id(0); g < L.n_out; g += get_num_groups(0)) {
    long in, out;
    bp_keep_offsets(&L, g, &in, &out);
    ACC s = INIT, c = 0;
    for (long j = lid; j < L.n_red; j += lsize) {
      const ACC v = TERM(LD(x[in + bp_red_offset(&L, j)]));
      ADD(s, c, v);
    }
    part[lid] = RESULT(s, c);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = COMBINE(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) o[out] = OSV(FINISH(part[0], L.n_red));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
)CL";

// MAX, MIN: OP(best, x) keeps the winner (NaN wins), IDENTITY loses to anything.
const char *const kReduceExtreme = R"CL(
__kernel void {{NAME}}(__global S *o, __global const S *x, bp_reduce_layout L) {
  __local T part[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long g = get_group_id(0); g < L.n_out; g += get_num_groups(0)) {
    long in, out;
    bp_keep_offsets(&L, g, &in, &out);
    T best = IDENTITY;
    for (long j = lid; j < L.n_red; j += lsize) best = OP(best, LD(x[in + bp_red_offset(&L, j)]));
    part[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = OP(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) o[out] = SV(part[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
)CL";

// ARGMAX and ARGMIN: first maximum (OP(v, best) is v > best) or minimum
// (v < best) in C order; a NaN counts as either (the first NaN wins). Index
// -1 marks a work-item that saw no element.
const char *const kReduceArgmax = R"CL(
inline int {{NAME}}_better(T v, long i, T best, long best_i) {
  if (i < 0) return 0;
  if (best_i < 0) return 1;
  if (IS_NAN(best)) return IS_NAN(v) && i < best_i;
  if (IS_NAN(v)) return 1;
  return OP(v, best) || (v == best && i < best_i);
}

__kernel void {{NAME}}(__global long *o, __global const S *x, bp_reduce_layout L) {
  __local T part_v[BP_GROUP_MAX];
  __local long part_i[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long g = get_group_id(0); g < L.n_out; g += get_num_groups(0)) {
    long in, out;
    bp_keep_offsets(&L, g, &in, &out);
    T best = 0;
    long best_i = -1;
    for (long j = lid; j < L.n_red; j += lsize) {
      const T v = LD(x[in + bp_red_offset(&L, j)]);
      if ({{NAME}}_better(v, j, best, best_i)) {
        best = v;
        best_i = j;
      }
    }
    part_v[lid] = best;
    part_i[lid] = best_i;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h && {{NAME}}_better(part_v[lid + h], part_i[lid + h], part_v[lid], part_i[lid])) {
        part_v[lid] = part_v[lid + h];
        part_i[lid] = part_i[lid + h];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) o[out] = part_i[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
)CL";

// LOGSUMEXP (plugin.h): the maximum m of the reduced set first (a NaN wins,
// as for MAX), then the sum of exp(x - m) in ACC with ADD, RESULT and
// COMBINE as for SUM, and m + log(sum). A maximum that is not finite is the
// result itself: NaN, +inf, or -inf (nothing but -inf, or the empty set).
// No barrier sits inside a branch (PoCL 2.10 hung on one that every
// work-item took the same way): for an m that is not finite the sum runs
// too, over no terms.
const char *const kReduceLogSumExp = R"CL(
inline ACC {{NAME}}_max(ACC best, ACC x) { return (isnan(best) || x <= best) ? best : x; }

__kernel void {{NAME}}(__global S *o, __global const S *x, bp_reduce_layout L) {
  __local ACC part[BP_GROUP_MAX];
  const int lid = (int)get_local_id(0);
  const int lsize = (int)get_local_size(0);
  for (long g = get_group_id(0); g < L.n_out; g += get_num_groups(0)) {
    long in, out;
    bp_keep_offsets(&L, g, &in, &out);
    ACC m = -INFINITY;
    for (long j = lid; j < L.n_red; j += lsize) m = {{NAME}}_max(m, (ACC)LD(x[in + bp_red_offset(&L, j)]));
    part[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = {{NAME}}_max(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = part[0];
    barrier(CLK_LOCAL_MEM_FENCE);  /* every work-item has read m before part is reused */
    const long terms = isfinite(m) ? L.n_red : 0;
    ACC s = 0, c = 0;
    for (long j = lid; j < terms; j += lsize) {
      const ACC v = exp((ACC)LD(x[in + bp_red_offset(&L, j)]) - m);
      ADD(s, c, v);
    }
    part[lid] = RESULT(s, c);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = lsize / 2; h > 0; h /= 2) {
      if (lid < h) part[lid] = COMBINE(part[lid], part[lid + h]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) o[out] = SV((T)(isfinite(m) ? m + log(part[0]) : m));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
)CL";

// A collective's reduction on the device that holds participant `own`'s
// share (at own_at): the other n - 1 shares arrived, in participant order,
// in `others`, numel elements apart. Each element is combined in
// participant order 0..n-1 (a float sum is the sequential one) and written
// at out_at; `out` may be the very same elements as `own` (in place): each
// work-item reads its element before writing it.
const char *const kCollective = R"CL(
__kernel void {{NAME}}(__global S *out, long out_at, __global const S *own, long own_at,
                       long own_index, __global const S *others, long n, long numel) {
  for (long e = get_global_id(0); e < numel; e += get_global_size(0)) {
    T acc = LD(own_index == 0 ? own[own_at + e] : others[e]);
    for (long j = 1; j < n; ++j) {
      const T v = LD(j == own_index ? own[own_at + e] : others[(j < own_index ? j : j - 1) * numel + e]);
      acc = OP(acc, v);
    }
    out[out_at + e] = SV(FINISH(acc, n));
  }
}
)CL";

// Integer matmul, one work-item per output element, wrapping like the
// elementwise integer ops.
const char *const kMatmul = R"CL(
typedef struct {
  long batch_shape[6];
  long batch_stride[3][6];
  long batch_rank, M, N, K;
  long a_row, a_col, b_row, b_col, o_row, o_col;
  long offset[3];
} bp_matmul_layout;

__kernel void {{NAME}}(__global T *o, __global const T *a, __global const T *b,
                       bp_matmul_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    const long col = i % L.N;
    const long row = (i / L.N) % L.M;
    long batch = i / (L.N * L.M);
    long oo = L.offset[0], ao = L.offset[1], bo = L.offset[2];
    for (int d = (int)L.batch_rank - 1; d >= 0; --d) {
      const long e = batch % L.batch_shape[d];
      batch /= L.batch_shape[d];
      oo += e * L.batch_stride[0][d];
      ao += e * L.batch_stride[1][d];
      bo += e * L.batch_stride[2][d];
    }
    ao += row * L.a_row;
    bo += col * L.b_col;
    UT acc = 0;
    for (long k = 0; k < L.K; ++k) acc += (UT)a[ao + k * L.a_col] * (UT)b[bo + k * L.b_row];
    o[oo + row * L.o_row + col * L.o_col] = (T)acc;
  }
}
)CL";

// CUMSUM, one work-item per row: the running sum in ACC with ADD and RESULT
// as for SUM (compensated for floats, wrapping for integers), so each
// output element is rounded once from its own sum.
const char *const kCumsum = R"CL(
typedef struct {
  long row_shape[7];
  long row_in[7];
  long row_out[7];
  long row_rank, in_offset, out_offset, n_rows, len, in_step, out_step;
} bp_scan_layout;

__kernel void {{NAME}}(__global {{OUT}} *o, __global const S *x, bp_scan_layout L) {
  for (long r = get_global_id(0); r < L.n_rows; r += get_global_size(0)) {
    long in = L.in_offset, out = L.out_offset, g = r;
    for (int d = (int)L.row_rank - 1; d >= 0; --d) {
      const long e = g % L.row_shape[d];
      g /= L.row_shape[d];
      in += e * L.row_in[d];
      out += e * L.row_out[d];
    }
    ACC s = 0, c = 0;
    for (long j = 0; j < L.len; ++j) {
      const ACC v = (ACC)LD(x[in + j * L.in_step]);
      ADD(s, c, v);
      o[out + j * L.out_step] = OSV(({{OUTT}})RESULT(s, c));
    }
  }
}
)CL";

// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND, one work-item per element of
// the rows tensor.
// An index row naming a position outside the indexed tensor is skipped, as
// plugin.h lets a device backend do: no access leaves the views.
const char *const kIndexPrelude = R"CL(
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
inline int bp_index_offsets(const bp_index_layout *L, __global const long *index, long i,
                            long *indexed, long *rows) {
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
)CL";

// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: work-item i's element is at a
// in the indexed tensor and at b in the rows tensor (bp_index_offsets);
// OP(a, b) moves it from `src`, the one of the two that is no output.
// Rows naming one element more than once: for SCATTER_ND they race and one
// wins, as plugin.h allows; SCATTER_ADD_ND's bp_atomic_add
// (atomic_add_source) makes each addition one indivisible step.
const char *const kIndexNd = R"CL(
__kernel void {{NAME}}(__global S *o, __global const long *index, __global const S *src,
                       bp_index_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    long a, b;
    if (bp_index_offsets(&L, index, i, &a, &b)) OP(a, b);
  }
}
)CL";

// bp_atomic_add of a float of `real` type: a compare-and-swap loop on its
// bits, as the unsigned integer `word` of its size.
std::string float_atomic_add_source(const std::string &word, const std::string &cmpxchg, const std::string &real) {
  return "inline void bp_atomic_add(__global S *o, long a, T v) {\n"
         "  volatile __global " + word + " *bits = (volatile __global " + word + " *)(o + a);\n"
         "  " + word + " seen = *bits, was;\n"
         "  do {\n"
         "    was = seen;\n"
         "    seen = " + cmpxchg + "(bits, was, as_" + word + "(as_" + real + "(was) + v));\n"
         "  } while (seen != was);\n"
         "}\n";
}

// o[a] += v as one atomic step. Integers use the unsigned atomic add, whose
// wrap-around is two's complement's; floats, which OpenCL C 1.2 cannot add
// atomically, a compare-and-swap loop on their bits (compared as integers,
// so a NaN ends the loop like any value). 64-bit forms need
// cl_khr_int64_base_atomics (supports.cpp). 8- and 16-bit elements have no
// atomics of their own: the loop swaps the aligned 32-bit word that holds
// the element (buffers are allocated in whole words, buffer.cpp), and a
// half is rounded after each term, as plugin.h allows SCATTER_ADD_ND.
std::string atomic_add_source(int32_t dtype) {
  switch (dtype) {
    case BP_INT32:
      return "inline void bp_atomic_add(__global S *o, long a, T v) { atomic_add((volatile __global uint *)(o + a), (uint)v); }\n";
    case BP_INT64:
      return "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
             "inline void bp_atomic_add(__global S *o, long a, T v) { atom_add((volatile __global ulong *)(o + a), (ulong)v); }\n";
    case BP_FLOAT32: return float_atomic_add_source("uint", "atomic_cmpxchg", "float");
    case BP_FLOAT64:
      return "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n" +
             float_atomic_add_source("ulong", "atom_cmpxchg", "double");
    default: {
      const std::string sum = dtype_is_float(dtype) ? "SV(LD(old) + v)" : "(S)((UT)old + (UT)v)";
      return R"CL(
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
    const S sum = )CL" + sum + R"CL(;
    seen = atomic_cmpxchg(word, was, (was & ~mask) | (((uint)sum << shift) & mask));
  } while (seen != was);
}
)CL";
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Operator bodies: the macros of backplane/kernels/elementwise_ops.h, shared by
// the op-by-op kernels and the fused ones (fused_source.cpp), so that both
// compute the same bits.
// ---------------------------------------------------------------------------

namespace {

std::string op_macro(int32_t op, const char *operands) {
  switch (op) {
#define BP_OCL_OP_MACRO_(id, ...) \
  case BP_OP_##id: return std::string("BP_EW_" #id "(BP_EW_KIND, ") + operands + ")";
    BP_KERNEL_UNARY_OPS(BP_OCL_OP_MACRO_)
    BP_KERNEL_BINARY_OPS(BP_OCL_OP_MACRO_)
    BP_KERNEL_COMPARE_OPS(BP_OCL_OP_MACRO_)
#undef BP_OCL_OP_MACRO_
    default: return "";
  }
}

const char *kind_macro(int32_t dtype) {
  return dtype_is_float(dtype) ? "BP_KIND_FLOAT" : dtype == BP_BOOL ? "BP_KIND_BOOL" : "BP_KIND_INT";
}

}  // namespace

std::string binary_body(int32_t op) {
  const int32_t family = bp_vocab_op_family(op);
  return family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE ? op_macro(op, "x, y") : "";
}

std::string unary_body(int32_t op) {
  return bp_vocab_op_family(op) == BP_OP_FAMILY_UNARY ? op_macro(op, "x") : "";
}

std::string where_body() { return "BP_EW_WHERE(c, x, y)"; }

std::string elementwise_ops(int32_t dtype) {
  return std::string("#define ") + kind_macro(dtype) + " 1\n" + kElementwiseClText + "\n";
}

std::string elementwise_ops_end(int32_t dtype) {
  return std::string("#undef ") + kind_macro(dtype) + "\n#undef BP_EW_KIND\n";
}

// COPY's conversion (plugin.h: a C cast, except that bool is x != 0 and
// float to integer saturates with NaN to 0, which is what OpenCL's _sat
// conversions do) from a value of `from`'s compute type to `to`'s. A half
// result is a float that the store rounds once: from float64 and from
// 32- and 64-bit integers it is rounded to odd first (half.h), so that the
// two roundings give the value's own nearest half.
std::string convert_body(int32_t from, int32_t to) {
  if (to == BP_BOOL) return "((uchar)((x) != 0))";
  if (dtype_is_float(from) && dtype_is_integer(to))
    return std::string("convert_") + dtype_cl_type(to) + "_sat_rtz(x)";
  if (dtype_is_half(to)) {
    if (from == BP_FLOAT64) return "bp_f32_round_odd_from_f64(x)";
    if (from == BP_INT32 || from == BP_INT64) return "bp_f32_round_odd_from_i64((long)(x))";
  }
  return std::string("((") + dtype_cl_type(to) + ")(x))";
}

std::string unsigned_type(int32_t dtype) {
  switch (dtype) {
    case BP_INT32: return "uint";
    case BP_INT64: return "ulong";
    // 8- and 16-bit integers wrap in uint: uchar or ushort operands would
    // be promoted to int, where a product can overflow.
    case BP_INT8:
    case BP_UINT8:
    case BP_INT16: return "uint";
    default: return dtype_cl_type(dtype);  // floats and bool never wrap
  }
}

std::string nan_test_macro(int32_t dtype) {
  return dtype_is_float(dtype) ? "#define IS_NAN(x) isnan(x)\n" : "#define IS_NAN(x) 0\n";
}

namespace {

// ---------------------------------------------------------------------------
// Assembly
// ---------------------------------------------------------------------------

using Vars = std::map<std::string, std::string>;

std::string render(const std::string &text, const Vars &vars) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    const size_t close = text.find("}}", open);
    out.append(text, pos, open - pos);
    out += vars.at(text.substr(open + 2, close - open - 2));
    pos = close + 2;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

class Source {
 public:
  explicit Source(int32_t dtype) : dtype_(dtype) {}
  void raw(const std::string &text) { out_ << text; }
  // One kernel with OP(...) defined as `body`, writing `out` (0: the
  // program's dtype): {{OUT}} is its storage type, {{OUTT}} its compute
  // type and OSV(v) stores one.
  void kernel(const char *tmpl, const std::string &name, const std::string &op_params,
              const std::string &body, int32_t out = 0) {
    if (out == 0) out = dtype_;
    out_ << "#define OP" << op_params << " " << body << "\n";
    out_ << "#define OSV(v) " << store_expr(out, "v") << "\n";
    out_ << render(tmpl, {{"NAME", name}, {"OUT", dtype_storage_type(out)}, {"OUTT", dtype_cl_type(out)}});
    out_ << "#undef OP\n#undef OSV\n";
  }
  // The _1d and _nd variants of an elementwise-shaped kernel.
  void pair(const char *tmpl, const std::string &stem, const std::string &op_params,
            const std::string &body, int32_t out = 0) {
    raw(kWalk1d);
    kernel(tmpl, stem + "_1d", op_params, body, out);
    raw(kWalkEnd);
    raw(kWalkNd);
    kernel(tmpl, stem + "_nd", op_params, body, out);
    raw(kWalkEnd);
  }
  std::string str() const { return out_.str(); }

 private:
  int32_t dtype_;
  std::ostringstream out_;
};

// The vocabulary's dtypes and operators.
#define BP_OCL_DTYPE_(id, value, name, size, kind) value,
const int32_t kAllDtypes[] = {BP_DTYPE_LIST(BP_OCL_DTYPE_)};
#undef BP_OCL_DTYPE_
#define BP_OCL_OP_(id, value, name, family, dtypes, out) value,
const int32_t kAllOps[] = {BP_OP_LIST(BP_OCL_OP_)};
#undef BP_OCL_OP_
#define BP_OCL_REDUCE_OP_(id, value, name, dtypes) value,
const int32_t kAllReduceOps[] = {BP_REDUCE_OP_LIST(BP_OCL_REDUCE_OP_)};
#undef BP_OCL_REDUCE_OP_

// float16 and bfloat16 sum in float (plugin.h: float32 or wider, rounded
// once): a double sum would need rounding to odd before the final store.
std::string accumulator_type(int32_t dtype, bool fp64) {
  if (dtype_is_half(dtype)) return "float";
  if (dtype_is_float(dtype)) return fp64 ? "double" : "float";
  return "long";  // integer and bool sums are int64 (plugin.h)
}

// Every binary, comparison and unary operator the capability table declares
// for `dtype`; one without an expression above gets no kernel (so execute
// reports the missing kernel by name, and the rest of the program builds).
void elementwise_family(Source &src, int32_t dtype, const SourceOptions &options) {
  src.raw(elementwise_ops(dtype));
  for (int32_t op : kAllOps) {
    const int32_t family = bp_vocab_op_family(op);
    if (family == BP_OP_FAMILY_UNARY) {
      const std::string body = unary_body(op);
      if (!body.empty() && implements(op, dtype, dtype, options))
        src.pair(kMap1, kernel_stem(op), "(x)", body);
    } else if (family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE) {
      const int32_t out = bp_vocab_out_dtype(op, dtype);
      const std::string body = binary_body(op);
      if (!body.empty() && implements(op, dtype, out, options))
        src.pair(kBinary, kernel_stem(op), "(x, y)", body, out);
    }
  }
  if (implements(BP_OP_WHERE, dtype, dtype, options))
    src.pair(kWhere, kernel_stem(BP_OP_WHERE), "(c, x, y)", where_body());
}

void copy_family(Source &src, int32_t dtype, const SourceOptions &options) {
  for (int32_t to : kAllDtypes)
    if (implements(BP_OP_COPY, dtype, to, options))
      src.pair(kMap1, copy_stem(to), "(x)", convert_body(dtype, to), to);
}

void create_family(Source &src, int32_t dtype, const SourceOptions &options) {
  if (implements(BP_OP_FILL, dtype, dtype, options)) src.pair(kFill, kernel_stem(BP_OP_FILL), "", "");
  if (implements(BP_OP_ARANGE, dtype, dtype, options))
    src.pair(kArange, kernel_stem(BP_OP_ARANGE), "(x)", convert_body(BP_FLOAT64, dtype));  // x is start + i * step
  const bool uniform = implements(BP_OP_RANDOM_UNIFORM, dtype, dtype, options);
  const bool normal = implements(BP_OP_RANDOM_NORMAL, dtype, dtype, options);
  if (uniform || normal) {
    if (dtype == BP_FLOAT64) src.raw("#define BP_RANDOM_F64 1\n");
    src.raw(kRandomHText);
    src.raw(dtype == BP_FLOAT64 ? kUnitF64 : kUnitF32);  // halves round float32's draws
  }
  if (uniform) src.pair(kUniform, kernel_stem(BP_OP_RANDOM_UNIFORM), "", "");
  if (normal) src.pair(kNormal, kernel_stem(BP_OP_RANDOM_NORMAL), "", "");
}

std::string lowest(int32_t dtype) {
  switch (dtype) {
    case BP_INT32: return "INT_MIN";
    case BP_INT64: return "LONG_MIN";
    case BP_INT8: return "CHAR_MIN";
    case BP_UINT8: return "0";
    case BP_INT16: return "SHRT_MIN";
    default: return "(-INFINITY)";
  }
}

std::string highest(int32_t dtype) {
  switch (dtype) {
    case BP_INT32: return "INT_MAX";
    case BP_INT64: return "LONG_MAX";
    case BP_INT8: return "CHAR_MAX";
    case BP_UINT8: return "UCHAR_MAX";
    case BP_INT16: return "SHRT_MAX";
    default: return "INFINITY";
  }
}

// ADD(s, c, v), RESULT(s, c) and COMBINE(a, b) of a sum in ACC, for SUM,
// MEAN, NORM and CUMSUM.
void sum_macros(Source &src, int32_t dtype) {
  if (dtype_is_float(dtype)) {
    // Compensated (Neumaier) sums in ACC, like the reference backend; once
    // the sum is Inf or NaN the compensation means nothing and is dropped.
    src.raw(
        "#define ADD(s, c, v) { const ACC t_ = s + v; "
        "c += fabs(s) >= fabs(v) ? (s - t_) + v : (v - t_) + s; s = t_; }\n"
        "#define RESULT(s, c) (isfinite(s) ? s + c : s)\n"
        "#define COMBINE(a, b) ((a) + (b))\n");
  } else {
    // Integer and bool sums are int64 and wrap.
    src.raw(
        "#define ADD(s, c, v) { s = (ACC)((ulong)s + (ulong)v); }\n"
        "#define RESULT(s, c) (s)\n"
        "#define COMBINE(a, b) ((ACC)((ulong)(a) + (ulong)(b)))\n");
  }
}

// The output dtype of SUM and CUMSUM (plugin.h).
int32_t sum_dtype(int32_t dtype) { return dtype_is_float(dtype) ? dtype : BP_INT64; }

// Macros are expanded where a kernel's text stands, so each kernel gets its
// TERM/FINISH/IDENTITY defined right before it.
void reduce_family(Source &src, int32_t dtype, const SourceOptions &options) {
  src.raw(render(kReducePrelude, {{"GROUP_MAX", std::to_string(kReduceGroupMax)}}));
  sum_macros(src, dtype);
  const int32_t sum_out = sum_dtype(dtype);
  src.raw("#define INIT 0\n#define TERM(x) ((ACC)(x))\n");
  src.raw(std::string("#define FINISH(s, n) ((") + dtype_cl_type(sum_out) + ")(s))\n");
  src.kernel(kReduceSum, kernel_stem(BP_OP_SUM), "", "", sum_out);
  if (implements(BP_OP_MEAN, dtype, dtype, options)) {
    src.raw("#undef FINISH\n#define FINISH(s, n) ((T)((s) / (ACC)(n)))\n");
    src.kernel(kReduceSum, kernel_stem(BP_OP_MEAN), "", "");
  }
  if (implements(BP_OP_NORM, dtype, dtype, options)) {
    src.raw("#undef TERM\n#define TERM(x) ((ACC)(x) * (ACC)(x))\n");
    src.raw("#undef FINISH\n#define FINISH(s, n) ((T)sqrt(s))\n");
    src.kernel(kReduceSum, kernel_stem(BP_OP_NORM), "", "");
  }
  if (implements(BP_OP_LOGSUMEXP, dtype, dtype, options))
    src.kernel(kReduceLogSumExp, kernel_stem(BP_OP_LOGSUMEXP), "", "");
  if (implements(BP_OP_PROD, dtype, sum_out, options)) {
    // In the sum's accumulator and output dtype; integer products wrap.
    src.raw("#undef INIT\n#define INIT 1\n#undef TERM\n#define TERM(x) ((ACC)(x))\n"
            "#undef ADD\n#undef RESULT\n#undef COMBINE\n#undef FINISH\n");
    src.raw(dtype_is_float(dtype) ? "#define ADD(s, c, v) { s = s * v; }\n#define COMBINE(a, b) ((a) * (b))\n"
                                  : "#define ADD(s, c, v) { s = (ACC)((ulong)s * (ulong)v); }\n"
                                    "#define COMBINE(a, b) ((ACC)((ulong)(a) * (ulong)(b)))\n");
    src.raw(std::string("#define RESULT(s, c) (s)\n#define FINISH(s, n) ((") + dtype_cl_type(sum_out) + ")(s))\n");
    src.kernel(kReduceSum, kernel_stem(BP_OP_PROD), "", "", sum_out);
  }
  if (!implements(BP_OP_MAX, dtype, dtype, options)) return;  // bool: SUM only
  // x replaces best only when strictly better, or a NaN replacing a number
  // (as in the reference: ties keep the earlier element).
  src.raw("#define IDENTITY " + lowest(dtype) + "\n");
  src.kernel(kReduceExtreme, kernel_stem(BP_OP_MAX), "(best, x)",
             "(IS_NAN(best) ? (best) : (IS_NAN(x) || (x) > (best)) ? (x) : (best))");
  src.raw("#undef IDENTITY\n#define IDENTITY " + highest(dtype) + "\n");
  src.kernel(kReduceExtreme, kernel_stem(BP_OP_MIN), "(best, x)",
             "(IS_NAN(best) ? (best) : (IS_NAN(x) || (x) < (best)) ? (x) : (best))");
  src.kernel(kReduceArgmax, kernel_stem(BP_OP_ARGMAX), "(v, best)", "((v) > (best))");
  src.kernel(kReduceArgmax, kernel_stem(BP_OP_ARGMIN), "(v, best)", "((v) < (best))");
}

void matmul_family(Source &src) { src.kernel(kMatmul, kernel_stem(BP_OP_MATMUL), "", ""); }

void scan_family(Source &src, int32_t dtype) {
  sum_macros(src, dtype);
  src.kernel(kCumsum, kernel_stem(BP_OP_CUMSUM), "", "", sum_dtype(dtype));
}

// plugin.h: SUM adds (integers wrap, as ADD does), MEAN divides the sum by
// n (integers truncate toward zero, which is OpenCL C's division as it is
// C's), MAX and MIN are elementwise, on bool (0 or 1) or and and. "" for a
// reduction this backend does not implement.
std::string collective_body(int32_t reduce_op, int32_t dtype) {
  switch (reduce_op) {
    case BP_REDUCE_SUM:
    case BP_REDUCE_MEAN: return dtype_is_float(dtype) ? "((a) + (b))" : "((T)((UT)(a) + (UT)(b)))";
    case BP_REDUCE_MAX: return "((b) > (a) ? (b) : (a))";
    case BP_REDUCE_MIN: return "((b) < (a) ? (b) : (a))";
    default: return "";
  }
}

void collective_family(Source &src, int32_t dtype) {
  for (int32_t op : kAllReduceOps) {
    const std::string body = collective_body(op, dtype);
    if (body.empty() || !bp_vocab_dtype_in_set(dtype, bp_vocab_reduce_op_dtypes(op))) continue;
    // Integer means divide the (wrapped) sum in long, so n never wraps in T.
    const char *mean = dtype_is_float(dtype) ? "#define FINISH(acc, n) ((acc) / (T)(n))\n"
                                             : "#define FINISH(acc, n) ((T)((long)(acc) / (n)))\n";
    src.raw(op == BP_REDUCE_MEAN ? mean : "#define FINISH(acc, n) (acc)\n");
    src.kernel(kCollective, collective_stem(op), "(a, b)", body);
    src.raw("#undef FINISH\n");
  }
}

void index_family(Source &src, int32_t dtype, const SourceOptions &options) {
  src.raw(kIndexPrelude);
  src.kernel(kIndexNd, kernel_stem(BP_OP_GATHER_ND), "(a, b)", "o[b] = src[a]");
  src.kernel(kIndexNd, kernel_stem(BP_OP_SCATTER_ND), "(a, b)", "o[a] = src[b]");
  if (!implements(BP_OP_SCATTER_ADD_ND, dtype, dtype, options)) return;
  src.raw(atomic_add_source(dtype));
  src.kernel(kIndexNd, kernel_stem(BP_OP_SCATTER_ADD_ND), "(a, b)", "bp_atomic_add(o, a, LD(src[b]))");
}

}  // namespace

std::string kernel_stem(int32_t op) {
  const char *name = bp_plugin::op_name(op);
  return bp_vocab_op_family(op) == BP_OP_FAMILY_REDUCE ? std::string("reduce_") + name : name;
}

std::string collective_stem(int32_t reduce_op) {
  const char *name = bp_vocab_reduce_op_name(reduce_op);
  return std::string("collective_") + (name ? name : "unknown");
}

bool collective_implements(int32_t reduce_op) { return !collective_body(reduce_op, BP_FLOAT32).empty(); }

std::string copy_stem(int32_t out_dtype) {
  return kernel_stem(BP_OP_COPY) + "_to_" + dtype_name(out_dtype);
}

const char *family_name(Family family) {
  switch (family) {
    case Family::Elementwise: return "elementwise";
    case Family::Copy: return "copy";
    case Family::Create: return "creation";
    case Family::Reduce: return "reduction";
    case Family::Matmul: return "matmul";
    case Family::Scan: return "scan";
    case Family::Index: return "indexing";
    case Family::Collective: return "collective";
  }
  return "?";
}

std::string kernel_source(Family family, int32_t dtype, const SourceOptions &options) {
  Source src(dtype);
  src.raw(render(kPrelude, {{"FP64_PRAGMA", options.fp64
                                                ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"
                                                : ""},
                            {"T", dtype_cl_type(dtype)},
                            {"S", dtype_storage_type(dtype)},
                            {"UT", unsigned_type(dtype)},
                            {"ACC", accumulator_type(dtype, options.fp64)},
                            {"HALVES", half_conversions_source(options.fp64)},
                            {"LD", load_expr(dtype, "v")},
                            {"SV", store_expr(dtype, "v")}}));
  src.raw(nan_test_macro(dtype));
  switch (family) {
    case Family::Elementwise: elementwise_family(src, dtype, options); break;
    case Family::Copy: copy_family(src, dtype, options); break;
    case Family::Create: create_family(src, dtype, options); break;
    case Family::Reduce: reduce_family(src, dtype, options); break;
    case Family::Matmul: matmul_family(src); break;
    case Family::Scan: scan_family(src, dtype); break;
    case Family::Index: index_family(src, dtype, options); break;
    case Family::Collective: collective_family(src, dtype); break;
  }
  return src.str();
}

}  // namespace bp_ocl
