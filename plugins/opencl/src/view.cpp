// view.cpp — checking views and laying them out for kernels.
#include "view.hpp"

#include <string>

#include "buffer.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"

namespace bp_ocl {

View checked_view(const bp_plugin_tensor *tensor, const char *entry, const char *role,
                  Device &device, bool is_output) {
  const std::string where = std::string(entry) + ": " + role;
  if (!tensor) fail(BP_ERR_INVALID_ARGUMENT, where + " is NULL");
  View v;
  v.dtype = tensor->dtype;
  v.rank = tensor->rank;
  if (!dtype_valid(v.dtype))
    fail(BP_ERR_DTYPE, where + " has invalid dtype " + std::to_string(v.dtype));
  if (v.rank < 0 || v.rank > BP_MAX_RANK)
    fail(BP_ERR_SHAPE, where + " has rank " + std::to_string(v.rank) + " (0.." +
                           std::to_string(BP_MAX_RANK) + " allowed)");
  int64_t span = 0;  // offset of the last element reached, from the first
  for (int d = 0; d < v.rank; ++d) {
    v.shape[d] = tensor->shape[d];
    v.strides[d] = tensor->strides[d];
    if (v.shape[d] < 0 || v.strides[d] < 0)
      fail(BP_ERR_SHAPE, where + ": axis " + std::to_string(d) + " has extent " +
                             std::to_string(v.shape[d]) + " and stride " +
                             std::to_string(v.strides[d]) + " (both must be >= 0)");
    if (v.shape[d] > 0 && v.numel > INT64_MAX / v.shape[d])
      fail(BP_ERR_SHAPE, where + " has more than 2^63 elements");
    v.numel *= v.shape[d];
    if (is_output && v.shape[d] > 1 && v.strides[d] == 0)
      fail(BP_ERR_INVALID_ARGUMENT,
           where + " has stride 0 on axis " + std::to_string(d) + ": an output cannot broadcast");
  }
  if (v.numel == 0) return v;
  for (int d = 0; d < v.rank; ++d) {
    if (v.strides[d] > 0 && v.shape[d] - 1 > (INT64_MAX - span) / v.strides[d])
      fail(BP_ERR_SHAPE, where + " reaches past 2^63 elements");
    span += (v.shape[d] - 1) * v.strides[d];
  }

  const bp_buffer_s &buffer = checked_buffer(tensor->buffer, entry, role);
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, where + " lives on " + buffer.device->name() +
                                     ", but the operator runs on " + device.name());
  const uint64_t size = dtype_size(v.dtype);
  if (tensor->offset % size != 0)
    fail(BP_ERR_INVALID_ARGUMENT, where + " starts at byte offset " +
                                      std::to_string(tensor->offset) +
                                      ", which is not a multiple of its element size " +
                                      std::to_string(size));
  v.offset = static_cast<int64_t>(tensor->offset / size);
  const uint64_t elements = buffer.size / size;
  if (tensor->offset / size >= elements ||
      static_cast<uint64_t>(span) >= elements - static_cast<uint64_t>(v.offset))
    fail(BP_ERR_INVALID_ARGUMENT,
         where + " reaches element " + std::to_string(v.offset + span) +
             " but its buffer holds " + std::to_string(elements) + " " + dtype_name(v.dtype) +
             " elements");
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
  int rank = 0;
  for (int d = 0; d < out.rank; ++d) {
    const int64_t extent = out.shape[d];
    if (extent == 1) continue;  // its stride never matters
    bool merge = rank > 0;
    for (int k = 0; k < count && merge; ++k)
      merge = L.stride[k][rank - 1] == ops[k]->strides[d] * extent;
    if (merge) {
      L.shape[rank - 1] *= extent;
      for (int k = 0; k < count; ++k) L.stride[k][rank - 1] = ops[k]->strides[d];
    } else {
      L.shape[rank] = extent;
      for (int k = 0; k < count; ++k) L.stride[k][rank] = ops[k]->strides[d];
      ++rank;
    }
  }
  if (rank == 0) {  // a single element: one axis of extent 1
    L.shape[0] = 1;
    rank = 1;
  }
  L.rank = rank;
  result.n = out.numel;
  result.one_d = rank == 1;
  return result;
}

}  // namespace bp_ocl
