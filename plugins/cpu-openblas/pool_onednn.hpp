// Pooling through oneDNN where it gives plugin.h's answer and is faster
// (optional at build time: BP_CPU_HAVE_ONEDNN): float32 AVG_POOL and
// AVG_POOL_GRAD, and MAX_POOL without indices (inference), on dense
// [N, C, spatial...] views without dilation; measured here (1 thread,
// AVX-512) at 5.7x our own AVG_POOL and 2.5x our MAX_POOL. MAX_POOL with
// indices and MAX_POOL_GRAD stay ours: oneDNN keeps no PyTorch-style
// indices. oneDNN's max does not promise NaN's propagation: an input
// holding a NaN takes our kernel.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "thread_pool.hpp"
#include "view.hpp"

namespace cpu_backend {

// True when oneDNN ran the forward (op MAX_POOL or AVG_POOL; y written);
// false when the problem is not one it takes (nothing written).
bool onednn_pool(ThreadPool &pool, int32_t op, const bp_window_params &w, const View &x, const View &y);
// The same for AVG_POOL_GRAD (dx written).
bool onednn_avg_pool_grad(ThreadPool &pool, const bp_window_params &w, const View &dy, const View &dx);

}  // namespace cpu_backend
