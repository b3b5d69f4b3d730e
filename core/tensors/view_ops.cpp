#include "tensors/view_ops.hpp"

#include <algorithm>

#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

int32_t normalize_axis(const char *what, int32_t axis, int32_t rank) {
  int32_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail(BP_ERR_SHAPE, std::string(what) + ": axis " + std::to_string(axis) +
                           " is out of range for a tensor of rank " + std::to_string(rank));
  return a;
}

}  // namespace

void resolve_reshape(const View &v, int32_t rank, const int64_t *shape, int64_t *resolved) {
  if (rank < 0 || rank > BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "reshape: rank " + std::to_string(rank) + " is outside 0.." +
                           std::to_string(BP_MAX_RANK));
  if (rank > 0 && !shape) fail(BP_ERR_INVALID_ARGUMENT, "reshape: shape is NULL");
  int32_t unknown = -1;
  int64_t known = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] == -1) {
      if (unknown >= 0) fail(BP_ERR_SHAPE, "reshape: more than one extent is -1");
      unknown = d;
    } else if (shape[d] < 0) {
      fail(BP_ERR_SHAPE, "reshape: negative extent in " + shape_string(rank, shape));
    } else {
      if (shape[d] != 0 && known > kMaxElements / shape[d])
        fail(BP_ERR_SHAPE, "reshape: shape " + shape_string(rank, shape) + " has more than 2^56 elements");
      known *= shape[d];
    }
    resolved[d] = shape[d];
  }
  int64_t n = v.numel();
  if (unknown >= 0) {
    if (known == 0 || n % known != 0)
      fail(BP_ERR_SHAPE, "reshape: cannot reshape " + shape_string(v.rank, v.shape) + " into " +
                             shape_string(rank, shape));
    resolved[unknown] = n / known;
  } else if (known != n) {
    fail(BP_ERR_SHAPE, "reshape: cannot reshape " + shape_string(v.rank, v.shape) + " (" +
                           std::to_string(n) + " elements) into " + shape_string(rank, shape) +
                           " (" + std::to_string(known) + " elements)");
  }
}

bool reshape_view(const View &v, int32_t rank, const int64_t *shape, View &out) {
  if (!v.contiguous()) return false;
  out = v;
  out.rank = rank;
  std::fill(std::copy(shape, shape + rank, out.shape), out.shape + BP_MAX_RANK, 0);
  std::fill(out.strides + rank, out.strides + BP_MAX_RANK, 0);
  dense_strides(rank, out.shape, out.strides);
  return true;
}

View permute_view(const View &v, const int32_t *axes) {
  if (v.rank > 0 && !axes) fail(BP_ERR_INVALID_ARGUMENT, "permute: axes is NULL");
  bool used[BP_MAX_RANK] = {};
  View out = v;
  for (int32_t d = 0; d < v.rank; ++d) {
    int32_t a = normalize_axis("permute", axes[d], v.rank);
    if (used[a]) fail(BP_ERR_SHAPE, "permute: axis " + std::to_string(axes[d]) + " appears twice");
    used[a] = true;
    out.shape[d] = v.shape[a];
    out.strides[d] = v.strides[a];
  }
  return out;
}

View transpose_view(const View &v) {
  View out = v;
  for (int32_t d = 0; d < v.rank; ++d) {
    out.shape[d] = v.shape[v.rank - 1 - d];
    out.strides[d] = v.strides[v.rank - 1 - d];
  }
  return out;
}

View slice_view(const View &v, int32_t axis, int64_t start, int64_t stop, int64_t step) {
  int32_t a = normalize_axis("slice", axis, v.rank);
  if (step < 1) fail(BP_ERR_INVALID_ARGUMENT, "slice: step must be >= 1, got " + std::to_string(step));
  int64_t n = v.shape[a];
  auto clamp = [n](int64_t i) {
    if (i < 0) i += n;
    return std::min(std::max(i, int64_t(0)), n);
  };
  int64_t s = clamp(start), e = clamp(stop);
  // Written so that no step, however large, overflows.
  int64_t count = e > s ? 1 + (e - s - 1) / step : 0;
  View out = v;
  out.offset = v.offset + uint64_t(s * v.strides[a]) * uint64_t(dtype_size(v.dtype));
  if (count == 0) out.offset = v.offset;
  out.shape[a] = count;
  out.strides[a] = count > 1 ? v.strides[a] * step : v.strides[a];
  return out;
}

View select_view(const View &v, int32_t axis, int64_t index) {
  int32_t a = normalize_axis("select", axis, v.rank);
  int64_t n = v.shape[a];
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n)
    fail(BP_ERR_SHAPE, "select: index " + std::to_string(index) + " is out of range for axis " +
                           std::to_string(axis) + " of extent " + std::to_string(n));
  View out = v;
  out.offset = v.offset + uint64_t(i * v.strides[a]) * uint64_t(dtype_size(v.dtype));
  for (int32_t d = a; d + 1 < v.rank; ++d) {
    out.shape[d] = v.shape[d + 1];
    out.strides[d] = v.strides[d + 1];
  }
  out.rank = v.rank - 1;
  out.shape[out.rank] = out.strides[out.rank] = 0;
  return out;
}

View expand_dims_view(const View &v, int32_t axis) {
  if (v.rank == BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "expand_dims: a tensor of rank " + std::to_string(v.rank) +
                           " has no room for another axis (at most " +
                           std::to_string(BP_MAX_RANK) + ")");
  int32_t a = axis < 0 ? axis + v.rank + 1 : axis;
  if (a < 0 || a > v.rank)
    fail(BP_ERR_SHAPE, "expand_dims: axis " + std::to_string(axis) +
                           " is out of range for a new axis of a tensor of rank " +
                           std::to_string(v.rank));
  View out = v;
  for (int32_t d = v.rank; d > a; --d) {
    out.shape[d] = v.shape[d - 1];
    out.strides[d] = v.strides[d - 1];
  }
  // The stride a dense tensor would have there, so a contiguous view stays one.
  out.shape[a] = 1;
  out.strides[a] = a < v.rank ? v.strides[a] * v.shape[a] : 1;
  out.rank = v.rank + 1;
  return out;
}

}  // namespace bp::core
