// temporaries.hpp — device memory that one operator's call needs and
// nobody keeps (dense copies, im2col columns, sort keys): released when the
// call returns or fails, which OpenCL defers until the commands using it are
// done.
#pragma once

#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "buffer.hpp"
#include "dtype.hpp"
#include "ops.hpp"

namespace bp_ocl {

class Temporaries {
 public:
  Temporaries() = default;
  Temporaries(const Temporaries &) = delete;
  Temporaries &operator=(const Temporaries &) = delete;
  ~Temporaries() {
    for (cl_mem m : mems_) clReleaseMemObject(m);
  }

  // `bytes` (> 0) of device memory; `entry` names the call in an
  // out-of-memory error.
  cl_mem memory(Device &device, uint64_t bytes, const char *entry) {
    mems_.reserve(mems_.size() + 1);  // a cl_mem made is always held
    mems_.push_back(create_memory(device, bytes, entry));
    return mems_.back();
  }
  // A dense tensor of `dtype` and `shape` (at least one element's memory).
  View dense(Device &device, int32_t dtype, int32_t rank, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t d = 0; d < rank; ++d) n *= shape[d];
    cl_mem mem = memory(device, uint64_t(std::max<int64_t>(n, 1)) * dtype_size(dtype), "execute");
    return dense_view(mem, dtype, rank, shape);
  }
  View dense(Device &device, int32_t dtype, const std::vector<int64_t> &shape) {
    return dense(device, dtype, int32_t(shape.size()), shape.data());
  }
  // A dense copy of `v` converted to `dtype` (0: v's own), or space for one
  // when `fill` is false.
  View dense_like(Device &device, const Device::Lock &lock, const View &v, bool fill, int32_t dtype = 0) {
    View copy = dense(device, dtype == 0 ? v.dtype : dtype, v.rank, v.shape);
    if (fill) run_copy(device, lock, v, copy);
    return copy;
  }

 private:
  std::vector<cl_mem> mems_;
};

}  // namespace bp_ocl
