// elementwise.cpp — binary, comparison, unary, where and copy: one work-item
// per output element, through the _1d kernel when the views collapse to a
// single axis and the _nd kernel otherwise.
#include <string>

#include "dtype.hpp"
#include "ops.hpp"

namespace bp_ocl {

void run_binary(Device &device, const Device::Lock &lock, int32_t op,
                const bp_plugin::Attrs &attrs, const View &a, const View &b, const View &out) {
  // In a scalar mode `b` is `a` again (the kernel reads only one of them).
  const ElementwiseLayout L = elementwise_layout(out, {&a, &b});
  if (L.n == 0) return;
  const cl_int mode = attrs.scalar_mode;
  const ScalarArg s = scalar_arg(a.dtype, attrs.scalar);
  const Kernel &k =
      device.kernel(lock, Family::Elementwise, a.dtype, L.kernel(kernel_stem(op)));
  device.launch_elements(lock, k, L.n,
                         {out.mem, a.mem, b.mem, L.layout, cl_long{L.n}, mode,
                          KernelArg(s.size, &s.value)});
}

void run_unary(Device &device, const Device::Lock &lock, int32_t op, const View &in,
               const View &out) {
  const ElementwiseLayout L = elementwise_layout(out, {&in});
  if (L.n == 0) return;
  const Kernel &k =
      device.kernel(lock, Family::Elementwise, in.dtype, L.kernel(kernel_stem(op)));
  device.launch_elements(lock, k, L.n, {out.mem, in.mem, L.layout, cl_long{L.n}});
}

void run_where(Device &device, const Device::Lock &lock, const View &cond, const View &a,
               const View &b, const View &out) {
  const ElementwiseLayout L = elementwise_layout(out, {&cond, &a, &b});
  if (L.n == 0) return;
  const Kernel &k =
      device.kernel(lock, Family::Elementwise, out.dtype, L.kernel(kernel_stem(BP_OP_WHERE)));
  device.launch_elements(lock, k, L.n, {out.mem, cond.mem, a.mem, b.mem, L.layout, cl_long{L.n}});
}

void run_copy(Device &device, const Device::Lock &lock, const View &in, const View &out) {
  const ElementwiseLayout L = elementwise_layout(out, {&in});
  if (L.n == 0) return;
  const Kernel &k =
      device.kernel(lock, Family::Copy, in.dtype, L.kernel(copy_stem(out.dtype)));
  device.launch_elements(lock, k, L.n, {out.mem, in.mem, L.layout, cl_long{L.n}});
}

}  // namespace bp_ocl
