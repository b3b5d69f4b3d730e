// NumPy's indexing, a[key] and a[key] = values (bp_index, bp_index_put,
// bp_index_put_into in backplane.h), made of autograd's views and gathers so
// that a[key] records, and of scatters for the writes.
#pragma once

#include <vector>

#include "backplane/backplane.h"
#include "tensors/view.hpp"

namespace bp::core {

// One entry of a key: a bp_index_key with its tensor looked up.
struct IndexKey {
  int32_t kind = 0;  // bp_index_kind
  uint32_t given = 0;
  int64_t index = 0, start = 0, stop = 0, step = 0;
  const View *tensor = nullptr;
};

View index(const View &a, const std::vector<IndexKey> &keys);
View index_put(const View &a, const std::vector<IndexKey> &keys, const View &values, bool accumulate);
void index_put_into(const View &dst, const std::vector<IndexKey> &keys, const View &values,
                    bool accumulate);

}  // namespace bp::core
