// fused_source.hpp — a fused elementwise program (plugin.h's
// bp_fused_program) as one OpenCL kernel: the plan that decides its code,
// the key that names the plan, and the kernel's source.
#pragma once

#include <cstdint>
#include <string>

#include "backplane/plugin.h"

namespace bp_ocl {

// How the kernel finds element i (C order) of an input.
enum class Walk : char {
  Contiguous = 'c',  // at offset + i
  Scalar = 's',      // at offset: every axis that matters is broadcast
  Strided = 'g',     // through the shared walk of the strided inputs
};

// Everything the kernel's code depends on. Scalar values and the views'
// offsets, extents and strides are kernel arguments, so programs that
// differ only in those share a kernel.
struct FusedPlan {
  const bp_fused_program *program = nullptr;  // checked (bp_plugin::check_fused)
  Walk walks[BP_FUSED_MAX_INPUTS] = {};
  int32_t rank = 0;  // axes of the strided inputs' walk; 0 when none is strided
  bool fp64 = false; // the device takes double
};

// The kernel's one name.
constexpr const char *kFusedKernel = "bp_fused";

// Bytes that differ between any two plans whose sources differ (a map key).
std::string fused_key(const FusedPlan &plan);

// The kernel: bp_fused(outputs..., inputs..., layout, long n, scalars...),
// work-item i computing element i (C order) for i < n,
// with one argument per instruction that has a scalar operand, of that
// instruction's dtype, in instruction order. The layout is n_inputs +
// n_outputs offsets (inputs first), then, for a rank > 0, the walk's
// extents and, for each strided input in input order, its strides over
// them (all cl_long, in elements).
std::string fused_source(const FusedPlan &plan);

}  // namespace bp_ocl
