#include "index_rows.hpp"

#include <utility>
#include <vector>

#include "family_builders.hpp"
#include "text.hpp"
#include "values.hpp"

namespace bpcheck {

ViewDesc add_index(Case &c, std::mt19937_64 &rng, const Shape &indexed, int k, int64_t n, bool distinct,
                   LayoutSpec layout) {
  int64_t positions = 1;
  for (int d = 0; d < k; ++d) positions *= indexed[size_t(d)];
  // C-order positions in the first k axes: uniform draws, or the front of a
  // partial shuffle of all of them.
  std::vector<int64_t> rows(static_cast<size_t>(n));
  if (distinct) {
    std::vector<int64_t> all(static_cast<size_t>(positions));
    for (int64_t p = 0; p < positions; ++p) all[size_t(p)] = p;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = std::uniform_int_distribution<int64_t>(i, positions - 1)(rng);
      std::swap(all[size_t(i)], all[size_t(j)]);
      rows[size_t(i)] = all[size_t(i)];
    }
  } else {
    for (int64_t &r : rows) r = std::uniform_int_distribution<int64_t>(0, positions - 1)(rng);
  }
  ViewDesc v = add_view(c, BP_INT64, {n, int64_t(k)}, layout, false);
  fill(c, v, [&](const int64_t *idx, int64_t) {
    int64_t p = rows[size_t(idx[0])];
    for (int d = k - 1; d > int(idx[1]); --d) p /= indexed[size_t(d)];
    Val x;
    x.i = p % indexed[size_t(idx[1])];
    return x;
  });
  return v;
}

Shape rows_shape(const Shape &indexed, int k, int64_t n) {
  Shape rows = {n};
  rows.insert(rows.end(), indexed.begin() + k, indexed.end());
  return rows;
}

std::string index_label(const char *what, const Shape &indexed, int k, int64_t n) {
  const int64_t index[2] = {n, int64_t(k)};
  return label(what, indexed) + ", index " + shape_text(2, index);
}

}  // namespace bpcheck
