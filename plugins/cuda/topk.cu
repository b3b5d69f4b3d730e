// TOPK: every element becomes its key (backplane/kernels/topk.hpp: an
// unsigned integer of the element's width whose ascending order is
// plugin.h's, complemented for the largest first) and its position, laid
// out row after row; CUB's DeviceSegmentedSort::StableSortPairs sorts each
// row (segment) stably, so equal keys keep their positions' order; a last
// kernel copies the first k of each row to the outputs, reading the values
// from the input by their positions (their own bits). Scratch: the keys
// and positions twice (sorted and not), the segment offsets and CUB's
// temporary storage.
#include <cub/device/device_segmented_sort.cuh>

#include <string>

#include "backplane/kernels/topk.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "errors.hpp"
#include "index_math.hpp"
#include "iteration.hpp"
#include "scratch.hpp"
#include "topk.hpp"

namespace bp_cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads)
    topk_keys_kernel(const __grid_constant__ TopkShape s, const T *in, bp_kernels::topk_key_t<T> *keys,
                     int64_t *positions, bool largest) {
  const int64_t total = s.rows.numel * s.n;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t r = i / s.n, j = i - r * s.n;
    int64_t offset[3];
    element_offsets<3>(s.rows, r, offset);
    keys[i] = bp_kernels::topk_key(in[offset[2] + j * s.in_stride], largest);
    positions[i] = j;
  }
}

// offsets[r] = r * n for r = 0..rows: where each segment (row) starts, and
// the previous one ends.
__global__ void __launch_bounds__(kThreads) topk_offsets_kernel(int64_t *offsets, int64_t rows, int64_t n) {
  for (int64_t r = first_index(); r <= rows; r += grid_stride()) offsets[r] = r * n;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    topk_write_kernel(const __grid_constant__ TopkShape s, const T *in, const int64_t *sorted, T *values,
                      int64_t *indices) {
  const int64_t total = s.rows.numel * s.k;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t r = i / s.k, j = i - r * s.k;
    const int64_t p = sorted[r * s.n + j];
    int64_t offset[3];
    element_offsets<3>(s.rows, r, offset);
    values[offset[0] + j * s.values_stride] = in[offset[2] + p * s.in_stride];
    indices[offset[1] + j * s.indices_stride] = p;
  }
}

template <class T>
void topk_typed(const Launch &launch, const TopkShape &s, T *values, int64_t *indices, const T *in, bool largest,
                Scratch &scratch) {
  using K = bp_kernels::topk_key_t<T>;
  const int64_t rows = s.rows.numel, total = rows * s.n;
  K *keys = static_cast<K *>(scratch.get(uint64_t(total) * sizeof(K)));
  K *keys_sorted = static_cast<K *>(scratch.get(uint64_t(total) * sizeof(K)));
  int64_t *positions = static_cast<int64_t *>(scratch.get(uint64_t(total) * sizeof(int64_t)));
  int64_t *sorted = static_cast<int64_t *>(scratch.get(uint64_t(total) * sizeof(int64_t)));
  int64_t *offsets = static_cast<int64_t *>(scratch.get(uint64_t(rows + 1) * sizeof(int64_t)));
  topk_keys_kernel<T><<<grid_for(launch, total), kThreads, 0, launch.stream>>>(s, in, keys, positions, largest);
  check_launch("topk keys", launch.device);
  topk_offsets_kernel<<<grid_for(launch, rows + 1), kThreads, 0, launch.stream>>>(offsets, rows, s.n);
  check_launch("topk segment offsets", launch.device);
  const char *sort = "cub::DeviceSegmentedSort::StableSortPairs";
  size_t temp_bytes = 0;
  check_cuda(cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, keys, keys_sorted, positions, sorted,
                                                       total, rows, offsets, offsets + 1, launch.stream),
             sort, launch.device);
  void *temp = scratch.get(temp_bytes > 0 ? uint64_t(temp_bytes) : 1);
  check_cuda(cub::DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, keys, keys_sorted, positions, sorted, total,
                                                       rows, offsets, offsets + 1, launch.stream),
             sort, launch.device);
  topk_write_kernel<T><<<grid_for(launch, rows * s.k), kThreads, 0, launch.stream>>>(s, in, sorted, values, indices);
  check_launch("topk write", launch.device);
}

}  // namespace

TopkShape make_topk_shape(const View &in, const View &values, const View &indices) {
  const int32_t last = in.rank - 1;
  TopkShape s{};
  s.rows = make_iter_shape(last, in.shape, {values.strides, indices.strides, in.strides});
  s.n = in.shape[last];
  s.k = values.shape[last];
  s.values_stride = values.strides[last];
  s.indices_stride = indices.strides[last];
  s.in_stride = in.strides[last];
  return s;
}

void launch_topk(const Launch &launch, int32_t dtype, const TopkShape &shape, void *values, void *indices,
                 const void *in, bool largest, Scratch &scratch) {
  dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    topk_typed<T>(launch, shape, static_cast<T *>(values), static_cast<int64_t *>(indices),
                  static_cast<const T *>(in), largest, scratch);
  });
}

}  // namespace bp_cuda
