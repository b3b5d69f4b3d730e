// kernel_source.hpp — the interface between host code and generated kernels:
// program families, kernel names, and the argument structs (whose host
// definitions here and OpenCL C ones in the family files of kernels/ must
// match field for field).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "backplane/types.h"

namespace bp_ocl {

// One program per (family, input dtype) and device, compiled on first use.
enum class Family {
  Elementwise,  // binary, comparison, unary and where kernels on one dtype
  Copy,         // conversions from one dtype to each dtype
  Create,       // fill, arange, random_uniform, random_normal of one dtype
  Reduce,       // sum, mean, norm, prod, logsumexp, max, min, argmax, argmin, var over one dtype
  Matmul,       // integer matmul (float matmul goes to CLBlast)
  Scan,         // cumsum of one input dtype
  Index,        // gather_nd, scatter_nd and scatter_add_nd of one data dtype
  Collective,   // the reductions of collective(): sum, mean, max, min of one dtype
  Softmax,      // softmax and log_softmax of one dtype
  Normalize,    // layer_norm and rms_norm of one dtype
  Topk,         // topk's keys, merge passes and writes for one input dtype
  Conv,         // im2col, col2im and the stores of the convolutions of one dtype
  Pool          // max_pool, avg_pool and their gradients of one dtype (pool.cpp)
};

const char *family_name(Family family);

// What a device offers that decides which kernels it gets (supports.cpp).
struct SourceOptions {
  bool fp64 = false;           // the device takes double (cl_khr_fp64) and it is enabled
  bool int64_atomics = false;  // cl_khr_int64_base_atomics: 64-bit atom_add and atom_cmpxchg
};

// The OpenCL C of one program: every kernel of `family` for input dtype
// `dtype` that supports.cpp declares for a device with these options, from
// the family's file in kernels/ (plugins/opencl/README.md).
std::string kernel_source(Family family, int32_t dtype, const SourceOptions &options);

// Kernels are named after the operator: kernel_stem(op) is its vocabulary
// name ("add", "exp", ...), with "reduce_" before reductions (so "max" stays
// clear of OpenCL C's builtin); COPY has one kernel per output dtype,
// copy_stem(out_dtype) ("copy_to_float32", ...).
std::string kernel_stem(int32_t op);
std::string copy_stem(int32_t out_dtype);

// What one element of an elementwise operator is, as OpenCL C: the
// expression of the operands x (and y) for a binary, comparison or unary
// `op` ("" when it has none), of c, x and y for WHERE, and of x for COPY's
// conversion from `from` to `to`. The operators' are the macros of
// backplane/kernels/elementwise_ops.h (one per operator of op_table.h), which
// elementwise_ops(dtype) defines (through elementwise.cl) for `dtype`'s
// kind, and elementwise_ops_end ends. Operands and results are in compute types (dtype_cl_type:
// float for the halves, which the store then rounds), except WHERE's, which
// selects stored values as they are. They use T and UT (the compute type and
// an unsigned type that wraps like it), IS_NAN (nan_test_macro), the
// functions elementwise_ops defines, whose names are kElementwiseHelpers, and
// half_conversions_source's. Every kernel that computes an operator uses
// these, so op-by-op and fused kernels agree bit for bit.
std::string binary_body(int32_t op);
std::string unary_body(int32_t op);
std::string where_body();
std::string convert_body(int32_t from, int32_t to);
std::string elementwise_ops(int32_t dtype);
std::string elementwise_ops_end(int32_t dtype);
constexpr const char *kElementwiseHelpers[] = {"bp_ipow", "bp_ifloordiv", "bp_iremainder", "bp_fremainder",
                                               "bp_fpow"};
std::string unsigned_type(int32_t dtype);
std::string nan_test_macro(int32_t dtype);  // "#define IS_NAN(x) ...\n"

// Elementwise and creation kernels come as a pair: "<stem>_1d" takes one
// stride per operand (any view that collapses to one axis: contiguous,
// scalar-broadcast, evenly strided) and "<stem>_nd" walks up to 8 axes.
// Both take this layout; operand 0 is the output, 1..3 the inputs.
struct ClLayout {
  cl_long shape[BP_MAX_RANK];
  cl_long stride[4][BP_MAX_RANK];  // in elements
  cl_long offset[4];               // in elements
  cl_long rank;
};
static_assert(sizeof(ClLayout) == 45 * sizeof(cl_long), "ClLayout must have no padding");

// Reductions: one work-group per output element; `keep` axes index the
// outputs, `red` axes (C order) the elements reduced into each.
struct ClReduceLayout {
  cl_long keep_shape[BP_MAX_RANK];
  cl_long keep_in[BP_MAX_RANK];
  cl_long keep_out[BP_MAX_RANK];
  cl_long red_shape[BP_MAX_RANK];
  cl_long red_in[BP_MAX_RANK];
  cl_long keep_rank, red_rank, in_offset, out_offset, n_out, n_red;
};
static_assert(sizeof(ClReduceLayout) == 46 * sizeof(cl_long), "ClReduceLayout has padding");

// Kernels of the Collective family: collective_stem(reduce_op) is
// "collective_" and the reduction's vocabulary name ("collective_sum").
std::string collective_stem(int32_t reduce_op);
// Whether the Collective family has a kernel for the reduction.
bool collective_implements(int32_t reduce_op);

// The OpenCL C type reductions and normalisations of `dtype` accumulate in
// (the programs' ACC): float for the halves, double for float32 and
// float64 on a device with fp64, long for integers.
std::string accumulator_type(int32_t dtype, bool fp64);

// Largest work-group a reduction kernel uses (its __local arrays' length).
constexpr size_t kReduceGroupMax = 128;

// Integer matmul: out[b, m, n] = sum_k a[b, m, k] * b[b, k, n]; operand 0 is
// the output, 1 is a, 2 is b.
struct ClMatmulLayout {
  cl_long batch_shape[BP_MAX_RANK - 2];
  cl_long batch_stride[3][BP_MAX_RANK - 2];
  cl_long batch_rank, M, N, K;
  cl_long a_row, a_col, b_row, b_col, o_row, o_col;
  cl_long offset[3];
};
static_assert(sizeof(ClMatmulLayout) == 37 * sizeof(cl_long), "ClMatmulLayout has padding");

// Rows along the last axis (CUMSUM, SOFTMAX, LOG_SOFTMAX; rows_layout() in
// view.hpp fills it): the `row` axes (every axis but the last, extent 1
// dropped) index the rows; each row is `len` elements, in_step and out_step
// apart. bp_rows_layout in kernels/common.cl mirrors it field for field.
struct ClRowsLayout {
  cl_long row_shape[BP_MAX_RANK - 1];
  cl_long row_in[BP_MAX_RANK - 1];
  cl_long row_out[BP_MAX_RANK - 1];
  cl_long row_rank, in_offset, out_offset, n_rows, len, in_step, out_step;
};
static_assert(sizeof(ClRowsLayout) == 28 * sizeof(cl_long), "ClRowsLayout has padding");

// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: the `indexed` tensor (gather's
// data, scatter's output) of shape [s0..sk-1, r...], the `rows` tensor
// (gather's output, scatter's values) of shape [N, r...], and the int64
// index [N, k]. One work-item per element of `rows`; the k index axes and
// the m axes r... have their strides in each tensor.
struct ClIndexLayout {
  cl_long extent[BP_MAX_RANK];       // s0..sk-1: index column j must be in [0, extent[j])
  cl_long indexed_axis[BP_MAX_RANK]; // indexed strides of the k indexed axes
  cl_long row_shape[BP_MAX_RANK];    // r...
  cl_long row_indexed[BP_MAX_RANK];  // indexed strides of r...
  cl_long row_rows[BP_MAX_RANK];     // rows strides of r...
  cl_long k, m, row_numel;           // row_numel: product of r... (1 when m is 0)
  cl_long rows_n, index_n, index_j;  // strides of rows' axis 0 and of the index
  cl_long indexed_offset, rows_offset, index_offset;
};
static_assert(sizeof(ClIndexLayout) == 49 * sizeof(cl_long), "ClIndexLayout has padding");

// MAX_POOL, AVG_POOL and their gradients (backplane/kernels/pool.cl, whose
// bp_pool_layout this mirrors): 3 spatial axes, the leading ones of extent
// 1 for smaller windows; `full` is x or dx, `pooled` y or dy.
struct ClPoolLayout {
  cl_long size[3], out[3], window[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
  cl_long full_stride[3], pooled_stride[3], index_stride[3];
  cl_long full_plane[2], pooled_plane[2], index_plane[2];
  cl_long full_offset, pooled_offset, index_offset;
  cl_long channels, n, include_pad, with_index;
};
static_assert(sizeof(ClPoolLayout) == 43 * sizeof(cl_long), "ClPoolLayout has padding");

// The Pool family's program text for `dtype` (pool.cpp).
std::string pool_source(int32_t dtype);

}  // namespace bp_ocl
