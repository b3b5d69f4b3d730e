// creation.cpp — FILL, ARANGE, RANDOM_UNIFORM, RANDOM_NORMAL. Element i is
// the C-order position in the output, whatever its strides.
#include <string>

#include "dtype.hpp"
#include "ops.hpp"

namespace bp_ocl {

void run_create(Device &device, const Device::Lock &lock, int32_t op,
                const bp_plugin::Attrs &attrs, const View &out) {
  const ElementwiseLayout L = elementwise_layout(out, {});
  if (L.n == 0) return;
  const Kernel &k = device.kernel(lock, Family::Create, out.dtype, L.kernel(kernel_stem(op)));
  const cl_long n = L.n;
  if (op == BP_OP_FILL) {
    const ScalarArg value = scalar_arg(out.dtype, attrs.scalar);
    device.launch_elements(lock, k, n, {out.mem, L.layout, n, KernelArg(value.size, &value.value)});
  } else if (op == BP_OP_ARANGE) {
    const cl_double start = attrs.scalar, step = attrs.scalar2;
    device.launch_elements(lock, k, n, {out.mem, L.layout, n, start, step});
  } else {
    // (low, high) or (mean, std), in the output's dtype; for float16 and
    // bfloat16 in float32, whose draws they round (plugin.h).
    const int32_t draws = dtype_is_half(out.dtype) ? BP_FLOAT32 : out.dtype;
    const ScalarArg p1 = scalar_arg(draws, attrs.scalar);
    const ScalarArg p2 = scalar_arg(draws, attrs.scalar2);
    const cl_ulong seed = attrs.seed;
    device.launch_elements(lock, k, n,
                           {out.mem, L.layout, n, seed, KernelArg(p1.size, &p1.value),
                            KernelArg(p2.size, &p2.value)});
  }
}

}  // namespace bp_ocl
