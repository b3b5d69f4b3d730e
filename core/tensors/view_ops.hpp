// Views that share storage with their base: metadata arithmetic only.
#pragma once

#include "tensors/view.hpp"

namespace bp::core {

// nullopt-like: returns false when the strides do not allow a view.
bool reshape_view(const View &v, int32_t rank, const int64_t *shape, View &out);
// Resolves one -1 extent and checks the element count; writes the final shape.
void resolve_reshape(const View &v, int32_t rank, const int64_t *shape, int64_t *resolved);
View permute_view(const View &v, const int32_t *axes);
View transpose_view(const View &v);
View slice_view(const View &v, int32_t axis, int64_t start, int64_t stop, int64_t step);
View select_view(const View &v, int32_t axis, int64_t index);
// A new axis of extent 1 before axis `axis` (0..rank; negative from the end).
View expand_dims_view(const View &v, int32_t axis);

}  // namespace bp::core
