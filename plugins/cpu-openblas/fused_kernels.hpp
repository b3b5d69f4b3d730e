// The loops of execute_fused: one function per instruction shape (operator,
// dtypes, which operand is the scalar), picked once per program and then
// called once per tile. Each applies to consecutive tile elements the very
// functor (backplane/kernels/elementwise.hpp) that execute()'s kernels
// apply, so a fused result has execute()'s bits.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace cpu_backend {

// dst[i] = op(a[i], b[i], c[i]) for i < n over the instruction's operands in
// order (unused ones ignored). The scalar of a BP_SCALAR_RHS (LHS)
// instruction is one element at b (a), read for every i. dst overlaps no
// operand.
using FusedKernel = void (*)(int64_t n, void *dst, const void *a, const void *b, const void *c);

// The loop for an instruction that check_fused has accepted; throws
// BP_ERR_UNSUPPORTED for an operator no loop is written for.
FusedKernel fused_kernel(const bp_fused_instr &instr);

// The instruction's scalar converted to its dtype as execute() converts a
// scalar operand (COPY from float64), into 8 bytes of storage.
void fused_scalar(const bp_fused_instr &instr, void *storage);

}  // namespace cpu_backend
