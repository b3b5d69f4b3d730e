// The CONV family by im2col (col2im) and OpenBLAS GEMM, on dense C-order
// operands of float or double: every batch item and group unrolls its
// windows into a column matrix (threaded over its rows), one GEMM
// contracts it with the group's weights. The path for float64, for builds
// without oneDNN (the sanitizer builds) and for the problems oneDNN refuses.
#pragma once

#include "backplane/sdk/conv.h"
#include "thread_pool.hpp"

namespace cpu_backend {

// y [N, C_out, O] = conv(x [N, C_in, S], w [C_out, C_in / G, K]) + bias
// (bias null: none).
template <class T>
void gemm_conv_forward(ThreadPool &pool, const bp_sdk_conv &g, const T *x, const T *w, const T *bias, T *y);
// dx [N, C_in, S] = CONV_TRANSPOSE(dy [N, C_out, O], w) + bias.
template <class T>
void gemm_conv_backward_data(ThreadPool &pool, const bp_sdk_conv &g, const T *dy, const T *w, const T *bias,
                             T *dx);
// dw [C_out, C_in / G, K] = CONV_WEIGHT_GRAD(x, dy).
template <class T>
void gemm_conv_backward_weights(ThreadPool &pool, const bp_sdk_conv &g, const T *x, const T *dy, T *dw);

}  // namespace cpu_backend
