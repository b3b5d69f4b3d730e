// Entry points of the kernel families. execute.cpp has validated every
// argument (dtypes supported, shapes consistent, views inside their
// buffers) before calling them; they only compute.
#pragma once

#include <cstdint>

#include "thread_pool.hpp"
#include "view.hpp"

namespace cpu_backend {

// ADD..MINIMUM, FLOOR_DIVIDE, REMAINDER, BITWISE_AND..XOR and EQ..GE: out = op(a, b), all of out's shape.
void binary_kernel(ThreadPool &pool, int32_t op, const View &a, const View &b, const View &out);
// WHERE: out = cond ? a : b.
void where_kernel(ThreadPool &pool, const View &cond, const View &a, const View &b, const View &out);
// NEG..COS, BITWISE_NOT.
void unary_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out);
// COPY with conversion.
void copy_kernel(ThreadPool &pool, const View &in, const View &out);
// SUM..ARGMIN, LOGSUMEXP, VAR: out's extent-1 axes are reduced; VAR
// divides by their count less `correction` (attrs.scalar).
void reduce_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out, int64_t correction);
// LAYER_NORM, RMS_NORM along the last axis (plugin.h): inputs x, weight,
// bias and outputs y, mean, rstd as execute() got them (absent ones too).
void normalize_kernel(ThreadPool &pool, int32_t op, double eps, const bp_plugin_tensor *inputs,
                      const bp_plugin_tensor *outputs);
// MATMUL: [..., M, K] x [..., K, N] -> [..., M, N].
void matmul_kernel(ThreadPool &pool, const View &a, const View &b, const View &out);
// How MATMUL multiplies a FLOAT16 or BFLOAT16 product (the device
// properties gemm_float16_path, gemm_bfloat16_path and gemm_half_path).
const char *gemm_half_path(int32_t dtype);
// FILL, ARANGE, RANDOM_*: scalar, scalar2 and seed as in bp_op_attrs.
void create_kernel(ThreadPool &pool, int32_t op, double scalar, double scalar2, uint64_t seed, const View &out);
// CUMSUM: along the last axis of the views.
void scan_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out);
// SOFTMAX, LOG_SOFTMAX: each row along the last axis of the views.
void softmax_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out);
// How a float32 row of it runs (the device property softmax_path).
const char *softmax_path();
// The copy of LAYER_NORM's and RMS_NORM's row loop this CPU runs
// ("avx512f", "avx2", "baseline"; the device property norm_path).
const char *norm_path();
// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND (index [N, k] int64): BP_ERR_INDEX
// for an index outside its axis, raised before anything is written.
void gather_nd_kernel(ThreadPool &pool, const View &data, const View &index, const View &out);
void scatter_nd_kernel(ThreadPool &pool, int32_t op, const View &index, const View &values, const View &out);
// TOPK: along the last axis, the first k (values' last extent) of each row
// in plugin.h's order into values and their positions into indices.
void topk_kernel(ThreadPool &pool, const View &in, const View &values, const View &indices, bool largest);

// ATTENTION: q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv], mask (dtype
// BP_DTYPE_INVALID when absent) -> out [..., Lq, Dv] (attention.cpp).
void attention_kernel(ThreadPool &pool, const View &q, const View &k, const View &v, const View &mask, double scale,
                      bool causal, const View &out);
// How it computes (the device property attention_path).
const char *attention_path();

// MAX_POOL and AVG_POOL (x [N, C, S...] -> y [N, C, O...]; indices, for
// MAX_POOL, null when absent) and MAX_POOL_GRAD and AVG_POOL_GRAD (dy and,
// for MAX, the indices -> dx): BP_ERR_INDEX for an index outside its plane,
// raised before anything is written (since 1.6).
void pool_kernel(ThreadPool &pool, int32_t op, const bp_window_params &window, const View &x, const View &y,
                 const View *indices);
void pool_grad_kernel(ThreadPool &pool, int32_t op, const bp_window_params &window, const View &dy,
                      const View *indices, const View &dx);

}  // namespace cpu_backend
