// ops.hpp — the operator runners execute() dispatches to. Each gets views
// execute has fully checked (devices, dtypes, shapes) and the device lock,
// and only enqueues work.
#pragma once

#include <cstdint>

#include "backplane/plugin_sdk.hpp"
#include "device.hpp"
#include "view.hpp"

namespace bp_ocl {

// elementwise.cpp: ADD..GE (one input in a scalar mode), unary ops, WHERE, COPY.
void run_binary(Device &device, const Device::Lock &lock, int32_t op,
                const bp_plugin::Attrs &attrs, const View &a, const View &b, const View &out);
void run_unary(Device &device, const Device::Lock &lock, int32_t op, const View &in,
               const View &out);
void run_where(Device &device, const Device::Lock &lock, const View &cond, const View &a,
               const View &b, const View &out);
void run_copy(Device &device, const Device::Lock &lock, const View &in, const View &out);

// reduce.cpp: SUM..NORM, PROD, ARGMIN, LOGSUMEXP, VAR (its correction in attrs.scalar).
void run_reduce(Device &device, const Device::Lock &lock, int32_t op, const bp_plugin::Attrs &attrs,
                const View &in, const View &out);

// normalize.cpp: LAYER_NORM and RMS_NORM; in = {x, weight, bias}, out =
// {y, mean, rstd}, absent ones of dtype BP_DTYPE_INVALID and no memory.
void run_normalize(Device &device, const Device::Lock &lock, int32_t op, const bp_plugin::Attrs &attrs,
                   const View *in, const View *out);

// creation.cpp: FILL, ARANGE, RANDOM_*.
void run_create(Device &device, const Device::Lock &lock, int32_t op,
                const bp_plugin::Attrs &attrs, const View &out);

// matmul.cpp: MATMUL (integers by a kernel of ours, floats by CLBlast).
void run_matmul(Device &device, const Device::Lock &lock, const View &a, const View &b,
                const View &out);
// matmul_clblast.cpp: float32/float64 MATMUL through CLBlast GEMM.
void run_gemm_clblast(Device &device, const Device::Lock &lock, const View &a, const View &b,
                      const View &out);
// matmul_clblast.cpp: float16/bfloat16 MATMUL as float32 GEMM of widened copies.
void run_gemm_halves(Device &device, const Device::Lock &lock, const View &a, const View &b,
                     const View &out);

// scan.cpp: CUMSUM.
void run_scan(Device &device, const Device::Lock &lock, int32_t op, const View &in,
              const View &out);

// index.cpp: GATHER_ND, SCATTER_ND and SCATTER_ADD_ND (the output updated in place).
void run_gather(Device &device, const Device::Lock &lock, int32_t op, const View &data,
                const View &index, const View &out);
void run_scatter(Device &device, const Device::Lock &lock, int32_t op, const View &index,
                 const View &values, const View &out);

// softmax.cpp: SOFTMAX, LOG_SOFTMAX.
void run_softmax(Device &device, const Device::Lock &lock, int32_t op, const View &in,
                 const View &out);

// topk.cpp: TOPK (attrs.option's BP_OPTION_LARGEST) into values and indices.
void run_topk(Device &device, const Device::Lock &lock, const bp_plugin::Attrs &attrs, const View &in,
              const View &values, const View &indices);

// conv.cpp: CONV, CONV_TRANSPOSE and CONV_WEIGHT_GRAD (im2col + CLBlast GEMM);
// attrs->params is the window, in[2] the bias (absent: no buffer).
void run_conv(Device &device, const Device::Lock &lock, int32_t op, const bp_op_attrs *attrs,
              const bp_plugin_tensor *inputs, const bp_plugin_tensor *output, const View *in, const View &out);

// pool.cpp: MAX_POOL and AVG_POOL (indices: MAX_POOL's output 1, null when
// absent) and their gradients (indices null for AVG_POOL_GRAD).
void run_pool(Device &device, const Device::Lock &lock, int32_t op, const bp_window_params &window,
              const View &x, const View &y, const View *indices);
void run_pool_grad(Device &device, const Device::Lock &lock, int32_t op, const bp_window_params &window,
                   const View &dy, const View *indices, const View &dx);

// collective.cpp: the ABI's collective, among devices of this backend (group 0).
void collective(const bp_collective_args *args);

// execute.cpp: the ABI's execute.
void execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
             int32_t n_inputs, const bp_plugin_tensor *output);

}  // namespace bp_ocl
