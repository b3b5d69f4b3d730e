// softmax_source.hpp — the Softmax program family (SOFTMAX, LOG_SOFTMAX):
// its work-group size and its source (its kernels take a ClRowsLayout).
#pragma once

#include <cstddef>
#include <string>

namespace bp_ocl {

// Largest work-group of the kernels (their __local arrays' length).
constexpr size_t kSoftmaxGroupMax = 128;

// The kernels "softmax" and "log_softmax" (kernel_stem's names), to follow
// kernel_source's prelude of the program's dtype.
std::string softmax_source();

}  // namespace bp_ocl
