// The kernel launchers: host functions, one per operator family, each
// defined in its own .cu file. They pick the kernel for the operator and
// dtype, enqueue it on launch.stream and return; every argument has been
// validated by execute.cpp, and `numel` (or `outputs`) is never 0.
#pragma once

#include <cstdint>

#include "kernel_args.hpp"

namespace bp_cuda {

class Scratch;

// binary.cu: ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, FLOOR_DIVIDE, REMAINDER, BITWISE_AND, BITWISE_OR,
// BITWISE_XOR (inputs and output of `dtype`).
void launch_binary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                   InputArg b);

// compare.cu: EQ, NE, LT, LE, GT, GE (inputs of `dtype`, bool output), and
// WHERE (bool condition; values and output of `dtype`).
void launch_compare(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                    InputArg b);
void launch_where(const Launch &launch, int32_t dtype, const IterShape &it, void *out, const void *cond, const void *a,
                  const void *b);

// unary.cu: NEG, ABS, EXP, LOG, SQRT, TANH, SIGMOID, RELU, SQUARE, SIN, COS, BITWISE_NOT.
void launch_unary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, const void *in);

// copy.cu: COPY from in_dtype to out_dtype (a cast; also plain strided copies).
void launch_copy(const Launch &launch, int32_t in_dtype, int32_t out_dtype, const IterShape &it, void *out,
                 const void *in);

// creation.cu: FILL, ARANGE, RANDOM_UNIFORM, RANDOM_NORMAL into an output of
// `dtype` (it has one operand, the output); scalar/scalar2/seed as in bp_op_attrs.
void launch_create(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, double scalar,
                   double scalar2, uint64_t seed);

// reduce_sum.cu (SUM, MEAN, NORM, PROD, LOGSUMEXP, VAR) and reduce_extreme.cu
// (MAX, MIN, ARGMAX, ARGMIN): partial results of a two-pass reduction live in `scratch`.
void launch_reduce_sum(const Launch &launch, int32_t op, int32_t dtype, const ReducePlan &plan, void *out,
                       const void *in, Scratch &scratch);
void launch_reduce_extreme(const Launch &launch, int32_t op, int32_t dtype, const ReducePlan &plan, void *out,
                           const void *in, Scratch &scratch);

// normalize.cu: LAYER_NORM and RMS_NORM (op) of float `dtype` (shape.rows >
// 0); weight, bias, mean and rstd are nullptr where absent.
void launch_normalize(const Launch &launch, int32_t op, int32_t dtype, const NormalizeShape &shape, void *y,
                      void *mean, void *rstd, const void *x, const void *weight, const void *bias);

// matmul_int.cu: integer MATMUL (wrapping), any strides, every integer dtype.
void launch_matmul_int(const Launch &launch, int32_t dtype, const MatmulShape &shape, void *out, const void *a,
                       const void *b);

// scan.cu: CUMSUM of an input of `dtype` (lines.numel and length > 0).
void launch_scan(const Launch &launch, int32_t op, int32_t dtype, const ScanShape &shape, void *out, const void *in);

// softmax.cu: SOFTMAX or LOG_SOFTMAX (op) of `dtype` along the rows of
// `shape` (a scan's row geometry; lines.numel and length > 0).
void launch_softmax(const Launch &launch, int32_t op, int32_t dtype, const ScanShape &shape, void *out,
                    const void *in);

// indexing.cu: GATHER_ND, and SCATTER_ND or SCATTER_ADD_ND (op), of
// elements of `dtype` (rows and slice.numel > 0); an index row with a value
// outside its axis is skipped.
void launch_gather_nd(const Launch &launch, int32_t dtype, const IndexShape &shape, void *out, const void *data,
                      const void *index);
void launch_scatter_nd(const Launch &launch, int32_t op, int32_t dtype, const IndexShape &shape, void *out,
                       const void *index, const void *values);

// attention.cu: ATTENTION of inputs of `dtype` (mask nullptr when absent;
// lq, lk and dv > 0). Its blocks take attention_row_tile() query rows and
// attention_column_chunk(dtype) output columns each.
void launch_attention(const Launch &launch, int32_t dtype, const AttentionShape &shape, void *out, const void *q,
                      const void *k, const void *v, const void *mask);
int64_t attention_row_tile();
int64_t attention_column_chunk(int32_t dtype);

// collective_mean.cu (built with NCCL): data[i] /= divisor for int32, int64,
// int8 or uint8 elements, truncating toward zero; divisor >= 1.
void launch_divide(const Launch &launch, int32_t dtype, void *data, int64_t numel, int64_t divisor);

// pool.cu: MAX_POOL (index: the indices, or null) and AVG_POOL of x of
// `dtype`; MAX_POOL_GRAD (index: the indices) and AVG_POOL_GRAD (index
// unused) into dx (shape.n > 0).
void launch_pool(const Launch &launch, int32_t op, int32_t dtype, const PoolShape &shape, void *out, void *index,
                 const void *in);
void launch_pool_grad(const Launch &launch, int32_t op, int32_t dtype, const PoolShape &shape, void *dx,
                      const void *dy, const void *index);

}  // namespace bp_cuda
