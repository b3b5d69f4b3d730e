// view.hpp — a bp_plugin_tensor checked against its buffer and device, and
// the kernel layouts built from views.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "backplane/plugin.h"
#include "kernel_source.hpp"

namespace bp_ocl {

class Device;

// A strided view with its offset in elements (kernels index typed pointers).
struct View {
  cl_mem mem = nullptr;  // NULL only when numel is 0
  int32_t dtype = BP_DTYPE_INVALID;
  int32_t rank = 0;
  int64_t offset = 0;
  int64_t shape[BP_MAX_RANK] = {};
  int64_t strides[BP_MAX_RANK] = {};
  int64_t numel = 1;
};

// A view the SDK has validated (bp_plugin::check_execute: well-formed, inside
// a live buffer of this plugin), as the kernels index it; a buffer of another
// device is BP_ERR_DEVICE_MISMATCH. `role` ("input 1", "output") and `op`
// name it in errors.
View device_view(const bp_plugin_tensor &tensor, const char *op, const char *role, Device &device);

// A dense C-order view of `mem` with the given shape.
View dense_view(cl_mem mem, int32_t dtype, int32_t rank, const int64_t *shape);

// Layout for an elementwise or creation kernel over `out` (operand 0) and
// the inputs (operands 1..), which all have out's shape. Axes of extent 1
// are dropped and neighbours that are contiguous in every operand merged,
// so that most real views end up with one axis (the _1d kernels).
struct ElementwiseLayout {
  ClLayout layout;
  int64_t n;    // elements
  bool one_d;   // rank <= 1 after merging: use the _1d kernel
  // The kernel of the pair named `stem` (kernel_source.hpp) for this layout.
  std::string kernel(const std::string &stem) const { return stem + (one_d ? "_1d" : "_nd"); }
};
ElementwiseLayout elementwise_layout(const View &out, std::initializer_list<const View *> inputs);

// The rows of `in` and `out` (same shape, rank >= 1) along their last axis.
ClRowsLayout rows_layout(const View &in, const View &out);

}  // namespace bp_ocl
