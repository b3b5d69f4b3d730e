// The CUDA C++ source of a fused elementwise program (execute_fused): one
// grid-stride kernel that loads every input element it needs, computes each
// instruction in its out_dtype (the 8- and 16-bit dtypes in their compute
// types, narrow_types.hpp) with the functors of
// backplane/kernels/elementwise.hpp (the code binary.cu, unary.cu,
// compare.cu and copy.cu instantiate), and stores the outputs. Host code
// only: no CUDA runtime, so the tests can generate sources without a GPU.
#pragma once

#include <cstdint>
#include <string>

#include "backplane/plugin.h"

namespace bp_cuda {

// The kernel's name in the source (extern "C", so no mangling).
constexpr const char *kFusedKernelName = "bp_fused";
// Threads per block it is compiled for (__launch_bounds__) and launched with.
constexpr int kFusedThreads = 256;

// How the kernel walks the program's elements. Outputs are dense, so output
// element e is at e; an input whose strides are the C-order ones of the
// program's shape (on every axis of extent > 1) is read at e too. The other
// inputs ("strided") get per-element offsets over `shape` with axes of
// extent 1 dropped and neighbours merged where every strided input allows,
// as iteration.cpp does for execute's kernels.
struct FusedLayout {
  int64_t numel = 0;
  int32_t rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
  int32_t n_strided = 0;
  int32_t strided_slot[BP_FUSED_MAX_INPUTS] = {};  // input -> its row of `strides`, or -1 when dense
  int64_t strides[BP_FUSED_MAX_INPUTS][BP_MAX_RANK] = {};
};

// The layout of a program whose views check_fused accepted.
FusedLayout plan_fused_layout(const bp_fused_program &program);

// The kernel's source, or BP_ERR_UNSUPPORTED (thrown) for an instruction it
// has no code for. Everything the generated code depends on is in the text
// (dtypes, operators, which inputs are strided, how many), and nothing else
// is: scalars and shapes are kernel arguments, so the text is the key of
// the compiled-kernel cache.
//
// Kernel parameters, in order (fused_args.hpp builds them): the index space
// (struct FusedShape: numel, rank, shape[BP_MAX_RANK], then
// strides[max(n_strided, 1)][BP_MAX_RANK], all int64), one pointer per
// input, one per output, then for each instruction with a scalar operand,
// in instruction order, that scalar in the instruction's dtype (for the 8-
// and 16-bit dtypes: converted to it, then widened to its compute type,
// float or int32, as narrow_types.hpp computes with it).
std::string fused_source(const bp_fused_program &program, const FusedLayout &layout);

}  // namespace bp_cuda
