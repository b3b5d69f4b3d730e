// Two cheap float instructions in one loop: f2(f1(x)) where f1's result is
// read by f2 alone. A tile interpreter is otherwise bound by the store of
// every value into its tile buffer (one per element per instruction, where
// the arithmetic of an x**2 or x - 0.5 costs less); a pair stores once.
// The stages are execute()'s functors, so the bits are execute()'s.
#pragma once

#include "backplane/plugin.h"
#include "fused_kernels.hpp"

namespace cpu_backend {

// dst[i] = second(first(a[i], *b), *c) for i < n: b and c point at the
// instructions' scalars (converted as fused_scalar converts them), ignored
// by a unary stage. nullptr unless both are float instructions of one dtype
// among the cheap ones (ADD, SUB, MUL, DIV with a scalar on either side,
// MAXIMUM and MINIMUM with a scalar RHS, POW with the scalar exponent 2 or
// 3, SQUARE, RELU).
FusedKernel fused_pair_kernel(const bp_fused_instr &first, const bp_fused_instr &second);

}  // namespace cpu_backend
