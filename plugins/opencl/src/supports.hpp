// supports.hpp — what this backend implements: the SDK capability tables that
// supports(), execute() and the kernel generator all consult, so they cannot
// disagree.
#pragma once

#include <cstdint>

namespace bp_ocl {

class Device;

// True when a device with (fp64 ? float64 : no float64) implements op for
// (dtype, out_dtype) as plugin.h defines those for supports(); for WHERE,
// dtype is that of the two value inputs (input 0 is always bool).
bool implements(int32_t op, int32_t dtype, int32_t out_dtype, bool fp64);

// Throws BP_ERR_UNSUPPORTED, naming the device, unless it implements the triple.
void require_implemented(const Device &device, int32_t op, int32_t dtype, int32_t out_dtype);

}  // namespace bp_ocl
