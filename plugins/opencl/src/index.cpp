// index.cpp — GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: the rows of an
// int64 index [N, k] name positions in the first k axes of the `indexed`
// tensor, each paired with one row of the `rows` tensor [N, r...]. One
// work-item per element of `rows`.
#include "ops.hpp"

namespace bp_ocl {

namespace {

// execute checked the shapes: indexed [s0..sk-1, r...], rows [N, r...].
ClIndexLayout index_layout(const View &indexed, const View &rows, const View &index) {
  ClIndexLayout L{};
  L.k = index.shape[1];
  L.m = rows.rank - 1;
  for (int j = 0; j < L.k; ++j) {
    L.extent[j] = indexed.shape[j];
    L.indexed_axis[j] = indexed.strides[j];
  }
  L.row_numel = 1;
  for (int d = 0; d < L.m; ++d) {
    L.row_shape[d] = rows.shape[d + 1];
    L.row_indexed[d] = indexed.strides[L.k + d];
    L.row_rows[d] = rows.strides[d + 1];
    L.row_numel *= rows.shape[d + 1];
  }
  L.rows_n = rows.strides[0];
  L.index_n = index.strides[0];
  L.index_j = index.strides[1];
  L.indexed_offset = indexed.offset;
  L.rows_offset = rows.offset;
  L.index_offset = index.offset;
  return L;
}

// The kernel of `op` over the elements of `rows`; `out` is one of `indexed`
// and `rows`, `src` the other. An empty indexed tensor has no position any
// index row could name: every row is out of range and skipped, so there is
// nothing to launch.
void run_index(Device &device, const Device::Lock &lock, int32_t op, const View &indexed, const View &rows,
               const View &index, const View &out, const View &src) {
  if (rows.numel == 0 || indexed.numel == 0) return;
  const ClIndexLayout L = index_layout(indexed, rows, index);
  const cl_long n = rows.numel;
  const Kernel &k = device.kernel(lock, Family::Index, src.dtype, kernel_stem(op));
  device.launch_elements(lock, k, n, {out.mem, index.mem, src.mem, L, n});
}

}  // namespace

void run_gather(Device &device, const Device::Lock &lock, int32_t op, const View &data,
                const View &index, const View &out) {
  run_index(device, lock, op, data, out, index, out, data);
}

void run_scatter(Device &device, const Device::Lock &lock, int32_t op, const View &index,
                 const View &values, const View &out) {
  run_index(device, lock, op, out, values, index, out, values);
}

}  // namespace bp_ocl
