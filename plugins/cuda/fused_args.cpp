#include "fused_args.hpp"

#include <cstring>
#include <utility>

#include "backplane/plugin_sdk.hpp"
#include "narrow_types.hpp"

namespace bp_cuda {

FusedArgs::FusedArgs(const bp_fused_program &p, const FusedLayout &layout, std::vector<void *> addresses)
    : addresses_(std::move(addresses)) {
  const int32_t rows = layout.n_strided > 0 ? layout.n_strided : 1;
  shape_.push_back(layout.numel);
  shape_.push_back(layout.rank);
  shape_.insert(shape_.end(), layout.shape, layout.shape + BP_MAX_RANK);
  for (int32_t s = 0; s < rows; ++s) shape_.insert(shape_.end(), layout.strides[s], layout.strides[s] + BP_MAX_RANK);
  std::vector<size_t> scalar_sizes;
  for (int32_t k = 0; k < p.n_instrs; ++k) {
    if (p.instrs[k].scalar_mode == BP_SCALAR_NONE) continue;
    Scalar s{};
    bp_plugin::dispatch_set<BP_DTYPE_SET_ALL>(p.instrs[k].dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const compute_t<T> value = widen(Convert<T>()(p.instrs[k].scalar));
      std::memcpy(s.bytes, &value, sizeof value);
      scalar_sizes.push_back(sizeof value);
    });
    scalars_.push_back(s);
  }
  // Every vector is complete: the pointers below stay valid.
  args_.push_back(shape_.data());
  sizes_.push_back(shape_.size() * sizeof(int64_t));
  for (void *&address : addresses_) {
    args_.push_back(&address);
    sizes_.push_back(sizeof address);
  }
  for (size_t k = 0; k < scalars_.size(); ++k) {
    args_.push_back(scalars_[k].bytes);
    sizes_.push_back(scalar_sizes[k]);
  }
}

}  // namespace bp_cuda
