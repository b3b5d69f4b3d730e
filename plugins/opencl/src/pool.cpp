// pool.cpp — MAX_POOL, AVG_POOL and their gradients: the kernels of
// backplane/kernels/pool.cl (one work-item per output element, or per dx
// element for the gradients), on views of rank 2 + r taken as 3 spatial
// axes whose leading ones have extent 1.
#include "dtype.hpp"
#include "ops.hpp"
#include "embedded_texts.hpp"

namespace bp_ocl {

namespace {

// The layout of one call: `full` is x (or dx), `pooled` y (or dy), `index`
// MAX_POOL's indices or null; the window the SDK checked.
ClPoolLayout pool_layout(const bp_window_params &w, const View &full, const View &pooled, const View *index,
                         const View &walked) {
  ClPoolLayout L{};
  const int lead = 3 - w.spatial_rank;
  for (int d = 0; d < 3; ++d) {
    const int a = d - lead;
    L.size[d] = a < 0 ? 1 : full.shape[2 + a];
    L.out[d] = a < 0 ? 1 : pooled.shape[2 + a];
    L.window[d] = a < 0 ? 1 : w.kernel[a];
    L.stride[d] = a < 0 ? 1 : w.stride[a];
    L.dilation[d] = a < 0 ? 1 : w.dilation[a];
    L.pad_begin[d] = a < 0 ? 0 : w.pad_begin[a];
    L.pad_end[d] = a < 0 ? 0 : w.pad_end[a];
    L.full_stride[d] = a < 0 ? 0 : full.strides[2 + a];
    L.pooled_stride[d] = a < 0 ? 0 : pooled.strides[2 + a];
    L.index_stride[d] = a < 0 || !index ? 0 : index->strides[2 + a];
  }
  for (int d = 0; d < 2; ++d) {
    L.full_plane[d] = full.strides[d];
    L.pooled_plane[d] = pooled.strides[d];
    L.index_plane[d] = index ? index->strides[d] : 0;
  }
  L.full_offset = full.offset;
  L.pooled_offset = pooled.offset;
  L.index_offset = index ? index->offset : 0;
  L.channels = full.shape[1];
  L.n = walked.numel;
  L.include_pad = (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  L.with_index = index != nullptr;
  return L;
}

}  // namespace

std::string pool_source(int32_t dtype) {
  return std::string(dtype_is_float(dtype) ? "#define BP_POOL_FLOAT 1\n" : "#define BP_POOL_FLOAT 0\n") + kPoolClText;
}

void run_pool(Device &device, const Device::Lock &lock, int32_t op, const bp_window_params &w, const View &x,
              const View &y, const View *indices) {
  if (y.numel == 0) return;
  const ClPoolLayout L = pool_layout(w, x, y, indices, y);
  const Kernel &k = device.kernel(lock, Family::Pool, x.dtype, kernel_stem(op));
  if (op == BP_OP_MAX_POOL) {
    const cl_mem index = indices ? indices->mem : nullptr;
    return device.launch_elements(lock, k, L.n, {y.mem, index, x.mem, L});
  }
  device.launch_elements(lock, k, L.n, {y.mem, x.mem, L});
}

void run_pool_grad(Device &device, const Device::Lock &lock, int32_t op, const bp_window_params &w, const View &dy,
                   const View *indices, const View &dx) {
  if (dx.numel == 0) return;
  const ClPoolLayout L = pool_layout(w, dx, dy, indices, dx);
  const Kernel &k = device.kernel(lock, Family::Pool, dy.dtype, kernel_stem(op));
  if (op == BP_OP_MAX_POOL_GRAD) return device.launch_elements(lock, k, L.n, {dx.mem, dy.mem, indices->mem, L});
  device.launch_elements(lock, k, L.n, {dx.mem, dy.mem, L});
}

}  // namespace bp_ocl
