#include "composites/take_along.hpp"

#include "composites/recording.hpp"
#include "dispatch/creation.hpp"

namespace bp::core {

View take_along(const View &x, int32_t axis, const std::vector<int64_t> &index) {
  std::vector<int32_t> to_front(size_t(x.rank)), back(size_t(x.rank));
  to_front[0] = axis;
  for (int32_t d = 0, k = 1; d < x.rank; ++d)
    if (d != axis) to_front[size_t(k++)] = d;
  for (int32_t d = 0; d < x.rank; ++d) back[size_t(to_front[size_t(d)])] = d;
  const int64_t shape[2] = {int64_t(index.size()), 1};
  const View rows = from_host(x.device(), BP_INT64, 2, shape, index.data());
  return ag::permute(ag::gather_nd(ag::permute(x, to_front.data()), rows), back.data());
}

}  // namespace bp::core
