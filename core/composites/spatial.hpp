// The channels-first functions made of operators (backplane.h, since 1.6):
// adaptive and global pooling (pooling_composites.cpp), padding (pad.cpp)
// and resizing (interpolate.cpp); dropout is dropout_mask.hpp's. Like
// every composite they call only the recording layer and creation, so each
// records its gradient operator by operator. x is [N, C, S...] with
// spatial_rank S axes wherever a function takes spatial_rank.
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

// PyTorch's adaptive pooling: output position o of an axis of extent S
// pools [floor(o * S / O), ceil((o + 1) * S / O)). max: *indices (when
// given) receives the int64 flat positions of the maxima in their planes,
// as MAX_POOL writes them.
View adaptive_avg_pool(const View &x, int32_t spatial_rank, const int64_t *output_size);
View adaptive_max_pool(const View &x, int32_t spatial_rank, const int64_t *output_size, View *indices);
// Pooling over every spatial axis: [N, C, 1...].
View global_avg_pool(const View &x, int32_t spatial_rank);
View global_max_pool(const View &x, int32_t spatial_rank);

// torch.nn.functional.pad's modes, per axis: before[d] and after[d]
// elements added before and after axis d (negative: that many removed).
View pad(const View &x, const int64_t *before, const int64_t *after, int32_t mode, double value);

// torch.nn.functional.interpolate over the spatial axes: to `size` (when
// given) or by `scale` (size floor(S * scale); the coordinates scaled by
// 1 / scale, as torch does when told a scale factor).
View interpolate(const View &x, int32_t spatial_rank, const int64_t *size, const double *scale, int32_t mode,
                 bool align_corners);

}  // namespace bp::core
