#include "views.hpp"

#include <algorithm>

namespace bpcheck {

namespace {

void c_strides(const Shape &shape, int64_t *strides) {
  int64_t s = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(shape[size_t(d)], 1);
  }
}

}  // namespace

ViewDesc add_view(Case &c, int32_t dtype, const Shape &shape, LayoutSpec layout, bool is_output) {
  ViewDesc v;
  v.dtype = dtype;
  v.rank = int32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) v.shape[d] = shape[d];
  const int r = v.rank;
  switch (layout.kind) {
    case Layout::dense: c_strides(shape, v.strides); break;
    case Layout::transposed: {
      Shape rev(shape.rbegin(), shape.rend());
      int64_t rs[BP_MAX_RANK];
      c_strides(rev, rs);
      for (int d = 0; d < r; ++d) v.strides[d] = rs[r - 1 - d];
      break;
    }
    case Layout::broadcast: {
      Shape base = shape;
      base[size_t(layout.axis)] = 1;
      c_strides(base, v.strides);
      v.strides[layout.axis] = 0;
      break;
    }
    case Layout::rotated: {
      if (r == 0) break;
      Shape stored = {shape.back()};
      stored.insert(stored.end(), shape.begin(), shape.end() - 1);
      int64_t ss[BP_MAX_RANK];
      c_strides(stored, ss);
      v.strides[r - 1] = ss[0];
      for (int d = 0; d + 1 < r; ++d) v.strides[d] = ss[d + 1];
      break;
    }
    case Layout::stepped: {
      Shape base = shape;
      if (r > 0) base[size_t(r - 1)] *= layout.step;
      c_strides(base, v.strides);
      if (r > 0) v.strides[r - 1] = layout.step;
      break;
    }
  }
  const int64_t esize = bp_vocab_dtype_size(dtype);
  int64_t reach = numel(v) > 0 ? 1 : 0;
  if (reach)
    for (int d = 0; d < r; ++d) reach += (v.shape[d] - 1) * v.strides[d];
  const int64_t lead = is_output ? kGuardBytes / esize : 3;
  const int64_t trail = is_output ? kGuardBytes / esize : 2;
  v.offset = uint64_t(lead * esize);
  v.storage = int(c.storages.size());
  c.storages.emplace_back(size_t((lead + reach + trail) * esize), is_output ? kOutputPattern : kInputPattern);
  return v;
}

uint64_t byte_at(const ViewDesc &v, const int64_t *idx) {
  int64_t e = 0;
  for (int d = 0; d < v.rank; ++d) e += idx[d] * v.strides[d];
  return v.offset + uint64_t(e * bp_vocab_dtype_size(v.dtype));
}

int64_t c_position(const ViewDesc &v, const int64_t *idx) {
  int64_t pos = 0;
  for (int d = 0; d < v.rank; ++d) pos = pos * v.shape[d] + idx[d];
  return pos;
}

int64_t numel(const ViewDesc &v) {
  if (is_absent(v)) return 0;
  int64_t n = 1;
  for (int d = 0; d < v.rank; ++d) n *= v.shape[d];
  return n;
}

ViewDesc absent_view() {
  ViewDesc v;
  v.storage = -1;
  v.dtype = BP_DTYPE_INVALID;
  return v;
}

}  // namespace bpcheck
