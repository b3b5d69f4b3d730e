// view.cpp — views as the kernels see them, and their kernel layouts.
#include "view.hpp"

#include "backplane/sdk/coalesce.h"
#include "buffer.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"

namespace bp_ocl {

View device_view(const bp_plugin_tensor &tensor, const char *op, const char *role, Device &device) {
  View v;
  v.dtype = tensor.dtype;
  v.rank = tensor.rank;
  for (int d = 0; d < v.rank; ++d) {
    v.shape[d] = tensor.shape[d];
    v.strides[d] = tensor.strides[d];
    v.numel *= v.shape[d];
  }
  if (v.numel == 0) return v;
  const bp_buffer_s &buffer = *tensor.buffer;
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, "%s: %s lives on %s, but the operator runs on %s", op, role,
         buffer.device->name().c_str(), device.name().c_str());
  v.offset = static_cast<int64_t>(tensor.offset / dtype_size(v.dtype));
  v.mem = buffer.mem;
  return v;
}

View dense_view(cl_mem mem, int32_t dtype, int32_t rank, const int64_t *shape) {
  View v;
  v.mem = mem;
  v.dtype = dtype;
  v.rank = rank;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    v.shape[d] = shape[d];
    v.strides[d] = stride;
    stride *= shape[d];
  }
  v.numel = stride;
  return v;
}

ElementwiseLayout elementwise_layout(const View &out, std::initializer_list<const View *> inputs) {
  const View *ops[4] = {&out, nullptr, nullptr, nullptr};
  int count = 1;
  for (const View *in : inputs) ops[count++] = in;

  ElementwiseLayout result{};
  ClLayout &L = result.layout;
  for (int k = 0; k < count; ++k) L.offset[k] = ops[k]->offset;
  const int64_t *strides[4];
  cl_long *layout_strides[4];
  for (int k = 0; k < count; ++k) {
    strides[k] = ops[k]->strides;
    layout_strides[k] = L.stride[k];
  }
  int32_t rank = bp_sdk_coalesce(out.rank, out.shape, count, strides, L.shape, layout_strides);
  if (rank == 0) {  // a single element: one axis of extent 1
    L.shape[0] = 1;
    rank = 1;
  }
  L.rank = rank;
  result.n = out.numel;
  result.one_d = rank == 1;
  return result;
}

ClRowsLayout rows_layout(const View &in, const View &out) {
  ClRowsLayout L{};
  const int last = out.rank - 1;
  for (int d = 0; d < last; ++d) {
    if (out.shape[d] == 1) continue;  // its strides never matter
    L.row_shape[L.row_rank] = out.shape[d];
    L.row_in[L.row_rank] = in.strides[d];
    L.row_out[L.row_rank] = out.strides[d];
    ++L.row_rank;
  }
  L.in_offset = in.offset;
  L.out_offset = out.offset;
  L.len = out.shape[last];
  L.n_rows = L.len == 0 ? 0 : out.numel / L.len;
  L.in_step = in.strides[last];
  L.out_step = out.strides[last];
  return L;
}

}  // namespace bp_ocl
