#include "tensors/view.hpp"

#include <cstring>

#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

int64_t View::numel() const {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

bool View::contiguous() const {
  int64_t expected = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

uint64_t View::extent_bytes() const {
  if (numel() == 0) return 0;
  uint64_t last = 0;
  for (int32_t d = 0; d < rank; ++d) last += uint64_t(shape[d] - 1) * uint64_t(strides[d]);
  return (last + 1) * uint64_t(dtype_size(dtype));
}

int64_t checked_numel(int32_t rank, const int64_t *shape) {
  if (rank < 0 || rank > BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "rank " + std::to_string(rank) + " is outside 0.." +
                           std::to_string(BP_MAX_RANK));
  if (rank > 0 && !shape) fail(BP_ERR_INVALID_ARGUMENT, "shape is NULL");
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      fail(BP_ERR_SHAPE, "negative extent " + std::to_string(shape[d]) + " in shape " +
                             shape_string(rank, shape));
    if (shape[d] != 0 && n > kMaxElements / shape[d])
      fail(BP_ERR_SHAPE, "shape " + shape_string(rank, shape) + " has more than 2^56 elements");
    n *= shape[d];
  }
  return n;
}

void dense_strides(int32_t rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d] > 0 ? shape[d] : 1;
  }
}

View::View(StorageRef s, int32_t dtype_, int32_t rank_, const int64_t *shape_) noexcept
    : storage(std::move(s)), dtype(dtype_), rank(rank_) {
  for (int32_t d = 0; d < BP_MAX_RANK; ++d) {
    shape[d] = d < rank_ ? shape_[d] : 0;
    strides[d] = 0;
  }
  dense_strides(rank_, shape, strides);
}

View allocate_view(Device &device, int32_t dtype, int32_t rank, const int64_t *shape) {
  if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "invalid dtype " + std::to_string(dtype));
  int64_t n = checked_numel(rank, shape);
  return View(StorageRef(Storage::allocate(device, uint64_t(n) * uint64_t(dtype_size(dtype)))), dtype, rank, shape);
}

std::string shape_string(int32_t rank, const int64_t *shape) {
  std::string s = "[";
  for (int32_t d = 0; d < rank; ++d) {
    if (d) s += ", ";
    s += std::to_string(shape[d]);
  }
  return s + "]";
}

}  // namespace bp::core
