// TOPK: each row along the last axis ordered on its own, rows split over
// the thread pool (so the result does not depend on the thread count).
// A row's elements become (key, position) entries, the key being
// backplane/kernels/topk.hpp's unsigned image of plugin.h's order; the
// entries are all distinct, so ordering them by (key, position) with any
// sort is the stable order. How a row is ordered depends on k:
// - a few (kFewest or less, a small part of the row): one pass keeps the k
//   first entries seen so far in order, each new entry compared with the
//   last of them and inserted only when it comes before it (rarely, for a
//   row in no particular order);
// - up to a quarter of the row: the k first selected (nth_element, linear),
//   then only they sorted;
// - more: the whole row sorted.
// Keys of up to 32 bits travel packed with the position in one uint64,
// which sorts as fast as a plain integer array.
#include <algorithm>
#include <utility>
#include <vector>

#include "backplane/kernels/topk.hpp"
#include "dtype.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

// A k at most a quarter of the row is selected before it is sorted; one of
// at most kFewest, and at most an eighth of the row, is kept in order while
// the row is read.
constexpr int64_t kSelectFraction = 4;
constexpr int64_t kFewest = 32;
constexpr int64_t kFewestFraction = 8;

template <class K, bool packed>
struct Entries;

template <class K>
struct Entries<K, true> {
  using entry = uint64_t;
  static entry make(K key, int64_t position) { return uint64_t(key) << 32 | uint64_t(position); }
  static int64_t position(entry e) { return int64_t(e & 0xffffffffu); }
};

template <class K>
struct Entries<K, false> {
  using entry = std::pair<K, int64_t>;
  static entry make(K key, int64_t position) { return entry(key, position); }
  static int64_t position(const entry &e) { return e.second; }
};

// The k first of entries make(0..n) in order, into best[0..k): each entry
// after the first k is compared with the k-th so far only.
template <class E, class Make>
void keep_fewest(typename E::entry *best, int64_t k, int64_t n, Make &&make) {
  for (int64_t j = 0; j < n; ++j) {
    const typename E::entry e = make(j);
    int64_t i = j < k ? j : k - 1;
    if (j >= k && !(e < best[k - 1])) continue;
    for (; i > 0 && e < best[i - 1]; --i) best[i] = best[i - 1];
    best[i] = e;
  }
}

template <class E>
void order_row(std::vector<E> &row, int64_t k) {
  const auto first = row.begin(), end = row.end();
  if (k * kSelectFraction <= int64_t(row.size())) {
    std::nth_element(first, first + k, end);
    std::sort(first, first + k);
  } else {
    std::sort(first, end);
  }
}

// Comparisons a row of n costs, for parallel_for's choice of threads.
int64_t row_cost(int64_t n) {
  int64_t bits = 1;
  while (bits < 62 && (int64_t(1) << bits) < n) ++bits;
  return std::max<int64_t>(n, 1) * bits;
}

template <class T, class E>
void topk_rows(ThreadPool &pool, const View &in, const View &values, const View &indices, bool largest) {
  const int last = in.rank - 1;
  const int64_t n = in.shape[last], k = values.shape[last];
  const int64_t si = in.strides[last], sv = values.strides[last], sx = indices.strides[last];
  // The outer axes locate each row's first element; operands values, indices, input.
  const Layout<3> rows = make_layout<3>(last, in.shape, {values.strides, indices.strides, in.strides});
  const int64_t lv = rows.inner_stride(0), lx = rows.inner_stride(1), li = rows.inner_stride(2);
  const T *x = in.data<T>();
  T *v = values.data<T>();
  int64_t *ix = indices.data<int64_t>();
  const bool few = k <= kFewest && k * kFewestFraction <= n;
  parallel_for(pool, values.numel / k, few ? n : row_cost(n), [&](int64_t begin, int64_t end) {
    std::vector<typename E::entry> row(static_cast<size_t>(few ? k : n));
    walk(rows, begin, end, [&](const int64_t *off, int64_t count, int64_t) {
      for (int64_t r = 0; r < count; ++r) {
        const T *from = x + off[2] + r * li;
        auto make = [&](int64_t j) { return E::make(bp_kernels::topk_key(from[j * si], largest), j); };
        if (few) {
          keep_fewest<E>(row.data(), k, n, make);
        } else {
          for (int64_t j = 0; j < n; ++j) row[size_t(j)] = make(j);
          order_row(row, k);
        }
        T *to = v + off[0] + r * lv;
        int64_t *at = ix + off[1] + r * lx;
        for (int64_t j = 0; j < k; ++j) {
          const int64_t p = E::position(row[size_t(j)]);
          to[j * sv] = from[p * si];
          at[j * sx] = p;
        }
      }
    });
  });
}

}  // namespace

void topk_kernel(ThreadPool &pool, const View &in, const View &values, const View &indices, bool largest) {
  const int64_t n = in.shape[in.rank - 1], k = values.shape[values.rank - 1];
  if (k == 0 || values.numel == 0) return;
  dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using K = bp_kernels::topk_key_t<T>;
    // A position must fit the packed entry's low 32 bits.
    if constexpr (sizeof(K) <= 4)
      if (n <= (int64_t(1) << 32)) return topk_rows<T, Entries<K, true>>(pool, in, values, indices, largest);
    topk_rows<T, Entries<K, false>>(pool, in, values, indices, largest);
  });
}

}  // namespace cpu_backend
