#include "topk_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "backplane/plugin.h"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// Calls f(idx) with idx[0..last) the index of each row of x (C order) and
// room for the last axis in idx[last].
template <class F>
void for_each_row(const ViewDesc &x, F &&f) {
  ViewDesc rows = x;
  rows.rank = x.rank - 1;
  for_each_index(rows, [&](const int64_t *idx, int64_t) {
    int64_t full[BP_MAX_RANK] = {0};
    std::copy(idx, idx + rows.rank, full);
    f(full);
  });
}

// Row idx's positions in plugin.h's order.
std::vector<int64_t> ordered_row(const Case &c, int64_t *idx) {
  const ViewDesc &x = c.inputs[0];
  const std::vector<uint8_t> &s = c.storages[size_t(x.storage)];
  const int last = x.rank - 1;
  const bool largest = (c.attrs.option & BP_OPTION_LARGEST) != 0;
  std::vector<const uint8_t *> at(size_t(x.shape[last]));
  for (int64_t j = 0; j < x.shape[last]; ++j) {
    idx[last] = j;
    at[size_t(j)] = s.data() + byte_at(x, idx);
  }
  std::vector<int64_t> order(at.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    const int o = topk_order(x.dtype, at[size_t(i)], at[size_t(j)]);
    return largest ? o > 0 : o < 0;
  });
  return order;
}

}  // namespace

int topk_order(int32_t dtype, const uint8_t *a, const uint8_t *b) {
  if (is_float(dtype)) {
    const double x = load_double(dtype, a), y = load_double(dtype, b);
    if (std::isnan(x) || std::isnan(y)) return int(std::isnan(x)) - int(std::isnan(y));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const int64_t x = load_int(dtype, a), y = load_int(dtype, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

std::vector<std::vector<uint8_t>> topk_result(const Case &c) {
  std::vector<std::vector<uint8_t>> out = c.storages;
  const ViewDesc &x = c.inputs[0], &values = c.output, &indices = c.more_outputs[0];
  const int last = x.rank - 1;
  const int64_t k = values.shape[last];
  const size_t esize = size_t(bp_vocab_dtype_size(x.dtype));
  if (k == 0 || numel(values) == 0) return out;
  for_each_row(x, [&](int64_t *idx) {
    const std::vector<int64_t> order = ordered_row(c, idx);
    int64_t from[BP_MAX_RANK];
    std::copy(idx, idx + x.rank, from);
    for (int64_t j = 0; j < k; ++j) {
      from[last] = order[size_t(j)];
      idx[last] = j;
      std::memcpy(out[size_t(values.storage)].data() + byte_at(values, idx),
                  c.storages[size_t(x.storage)].data() + byte_at(x, from), esize);
      std::memcpy(out[size_t(indices.storage)].data() + byte_at(indices, idx), &order[size_t(j)], sizeof(int64_t));
    }
  });
  return out;
}

std::string topk_diagnosis(const Case &c, const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected) {
  const ViewDesc &x = c.inputs[0], &indices = c.more_outputs[0];
  const int last = x.rank - 1;
  const std::vector<uint8_t> &s = c.storages[size_t(x.storage)];
  std::string why;
  for_each_index(indices, [&](const int64_t *idx, int64_t) {
    if (!why.empty()) return;
    int64_t g, e;
    std::memcpy(&g, got.data() + byte_at(indices, idx), sizeof g);
    std::memcpy(&e, expected.data() + byte_at(indices, idx), sizeof e);
    if (g == e) return;
    if (g < 0 || g >= x.shape[last]) {
      why = format("position %lld is outside the row of %lld", (long long)g, (long long)x.shape[last]);
      return;
    }
    int64_t at_g[BP_MAX_RANK], at_e[BP_MAX_RANK];
    std::copy(idx, idx + x.rank, at_g);
    std::copy(idx, idx + x.rank, at_e);
    at_g[last] = g;
    at_e[last] = e;
    const uint8_t *pg = s.data() + byte_at(x, at_g), *pe = s.data() + byte_at(x, at_e);
    const bool nan = is_float(x.dtype) && (std::isnan(load_double(x.dtype, pg)) || std::isnan(load_double(x.dtype, pe)));
    if (topk_order(x.dtype, pg, pe) == 0)
      why = format("positions %lld and %lld hold equal elements (%s, %s): a tie keeps the positions' order, the "
                   "lower first, in both directions",
                   (long long)g, (long long)e, value_text(x.dtype, pg).c_str(), value_text(x.dtype, pe).c_str());
    else if (nan)
      why = format("position %lld holds %s and %lld holds %s: NaN orders after every number (last when the smallest "
                   "come first, first with BP_OPTION_LARGEST)",
                   (long long)g, value_text(x.dtype, pg).c_str(), (long long)e, value_text(x.dtype, pe).c_str());
    else
      why = format("position %lld holds %s, which does not come before %lld's %s in %s order", (long long)g,
                   value_text(x.dtype, pg).c_str(), (long long)e, value_text(x.dtype, pe).c_str(),
                   (c.attrs.option & BP_OPTION_LARGEST) ? "descending" : "ascending");
  });
  return why;
}

}  // namespace bpcheck
