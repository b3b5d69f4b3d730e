#include "dense_copy.hpp"

#include "dtype.hpp"
#include "iteration.hpp"
#include "kernels.hpp"

namespace bp_cuda {

void make_dense(Scratch &scratch, const View &like, DenseView &dense) {
  int64_t stride = 1;
  for (int32_t d = like.rank - 1; d >= 0; --d) {
    dense.strides[d] = stride;
    stride *= like.shape[d];
  }
  const uint64_t bytes = static_cast<uint64_t>(like.numel) * static_cast<uint64_t>(dtype_size(like.dtype));
  dense.view = View{static_cast<char *>(scratch.get(bytes)),
                    like.dtype,
                    like.rank,
                    like.numel,
                    like.shape,
                    dense.strides,
                    nullptr,
                    0,
                    bytes};
}

void copy_view(const Launch &launch, const View &src, const View &dst) {
  if (dst.numel == 0) return;
  launch_copy(launch, src.dtype, dst.dtype, make_iter_shape(dst.rank, dst.shape, {dst.strides, src.strides}), dst.base,
              src.base);
}

}  // namespace bp_cuda
