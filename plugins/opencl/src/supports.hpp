// supports.hpp — what this backend implements: the SDK capability tables that
// supports(), execute() and the kernel generator all consult, so they cannot
// disagree.
#pragma once

#include <cstdint>

#include "kernel_source.hpp"

namespace bp_ocl {

class Device;

// True when a device with `features` (float64, 64-bit atomics) implements op
// for (dtype, out_dtype) as plugin.h defines those for supports(); for
// WHERE, dtype is that of the two value inputs (input 0 is always bool).
bool implements(int32_t op, int32_t dtype, int32_t out_dtype, const SourceOptions &features);

// Throws BP_ERR_UNSUPPORTED, naming the device, unless it implements the triple.
void require_implemented(const Device &device, int32_t op, int32_t dtype, int32_t out_dtype);

}  // namespace bp_ocl
