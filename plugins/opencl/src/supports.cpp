// supports.cpp — the capability tables, derived from the vocabulary.
#include "supports.hpp"

#include "backplane/plugin_sdk.hpp"
#include "device.hpp"
#include "errors.hpp"

namespace bp_ocl {

namespace {

// The generated kernels cover every (dtype, out_dtype) pair the ABI defines,
// except ATTENTION, an optional fused entry (plugin.h): these devices run
// bp_attention's composite of MATMUL (CLBlast), softmax and WHERE.
const bp_plugin::Capabilities kWithFp64 = bp_plugin::Capabilities::everything_except({BP_OP_ATTENTION});
// ARANGE is defined as a float64 computation: without float64 on the device
// it could not give the values the other backends give.
const bp_plugin::Capabilities kWithoutFp64 =
    bp_plugin::Capabilities::everything_except({BP_OP_ARANGE, BP_OP_ATTENTION});

bool touches_fp64(int32_t dtype, int32_t out_dtype) {
  return dtype == BP_FLOAT64 || out_dtype == BP_FLOAT64;
}

// SCATTER_ADD_ND adds with atomics: 32-bit ones are core OpenCL C, while
// int64's atom_add and float64's compare-and-swap loop need
// cl_khr_int64_base_atomics.
bool needs_int64_atomics(int32_t op, int32_t dtype) {
  return op == BP_OP_SCATTER_ADD_ND && (dtype == BP_INT64 || dtype == BP_FLOAT64);
}

}  // namespace

bool implements(int32_t op, int32_t dtype, int32_t out_dtype, const SourceOptions &features) {
  if (needs_int64_atomics(op, dtype) && !features.int64_atomics) return false;
  if (features.fp64) return kWithFp64.supports(op, dtype, out_dtype);
  // Nothing float64 runs on a device without it, conversions included (a
  // Capabilities table cannot drop an output dtype, hence the test here).
  return !touches_fp64(dtype, out_dtype) && kWithoutFp64.supports(op, dtype, out_dtype);
}

void require_implemented(const Device &device, int32_t op, int32_t dtype, int32_t out_dtype) {
  if (!device.fp64() && touches_fp64(dtype, out_dtype))
    fail(BP_ERR_UNSUPPORTED,
         "%s does not implement %s for %s -> %s: it has no float64 (cl_khr_fp64 missing, or "
         "option fp64 = \"off\")",
         device.name().c_str(), bp_plugin::op_name(op), bp_plugin::dtype_name(dtype),
         bp_plugin::dtype_name(out_dtype));
  if (needs_int64_atomics(op, dtype) && !device.features().int64_atomics)
    fail(BP_ERR_UNSUPPORTED,
         "%s does not implement %s for %s: it has no 64-bit atomics (cl_khr_int64_base_atomics)",
         device.name().c_str(), bp_plugin::op_name(op), bp_plugin::dtype_name(dtype));
  (device.fp64() ? kWithFp64 : kWithoutFp64)
      .require(device.name().c_str(), op, dtype, out_dtype);
}

}  // namespace bp_ocl
