// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND. Index row n names a slice of
// the indexed tensor (GATHER's data, SCATTER's output) that row n of the
// rows tensor (GATHER's output, SCATTER's values) mirrors. Every index is
// checked before any element moves, so an out-of-range one fails the call
// and leaves the output as it was.
#include "backplane/kernels/indexing.hpp"

#include <algorithm>
#include <cinttypes>
#include <numeric>
#include <vector>

#include "dtype.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// The element offset of each index row's slice in `indexed`.
std::vector<int64_t> slice_offsets(const char *op, const View &index, const View &indexed) {
  const int64_t rows = index.shape[0];
  const int32_t k = static_cast<int32_t>(index.shape[1]);
  const int64_t *values = index.data<int64_t>();
  std::vector<int64_t> offsets(static_cast<size_t>(rows));
  for (int64_t n = 0; n < rows; ++n) {
    const int64_t *row = values + n * index.strides[0];
    const int32_t bad = bk::slice_offset(row, index.strides[1], k, indexed.shape, indexed.strides, &offsets[n]);
    if (bad >= 0)
      fail(BP_ERR_INDEX, "cpu-openblas: %s: index[%" PRId64 ", %d] = %" PRId64 " is outside axis %d of extent %" PRId64,
           op, n, bad, row[bad * index.strides[1]], bad, indexed.shape[bad]);
  }
  return offsets;
}

// The axes of one slice: operand 0 walks a row of the rows tensor (its axes
// after the first), operand 1 the slice of the indexed tensor (its axes
// after the k indexed ones).
Layout<2> slice_layout(const View &rows, const View &indexed, int32_t k) {
  return make_layout<2>(rows.rank - 1, rows.shape + 1, {rows.strides + 1, indexed.strides + k});
}

// SCATTER_ADD_ND's combination for small integers: int32 addition, which
// wraps to the same bits once narrowed.
struct AddWidened {
  template <class T>
  T operator()(T old, T value) const {
    return narrow<T>(bk::Add()(widen(old), widen(value)));
  }
};

// SCATTER_ND's combination of an element and its new value: the new value.
struct Store {
  template <class T>
  T operator()(T, T value) const {
    return value;
  }
};

// Gather rows in parallel: each writes its own output row.
template <class T>
void gather(ThreadPool &pool, const View &data, const View &out, const Layout<2> &slice,
            const std::vector<int64_t> &offsets) {
  const int64_t size = slice.numel(), so = slice.inner_stride(0), sd = slice.inner_stride(1);
  const T *x = data.data<T>();
  T *y = out.data<T>();
  parallel_for(pool, static_cast<int64_t>(offsets.size()), size, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      T *row = y + n * out.strides[0];
      const T *from = x + offsets[n];
      walk(slice, 0, size, [&](const int64_t *off, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) row[off[0] + i * so] = from[off[1] + i * sd];
      });
    }
  });
}

// Scatter splits the positions within a slice, never the index rows: index
// rows naming one slice twice then write each of its elements from one
// thread, in row order (the last row wins, as in the reference; an add
// accumulates them all, with no race). Combine is Store or bk::Add.
template <class T, class Combine>
void scatter(ThreadPool &pool, const View &values, const View &out, const Layout<2> &slice,
             const std::vector<int64_t> &offsets) {
  const Combine combine{};
  const int64_t size = slice.numel(), sv = slice.inner_stride(0), so = slice.inner_stride(1);
  const int64_t rows = static_cast<int64_t>(offsets.size());
  const T *x = values.data<T>();
  T *y = out.data<T>();
  parallel_for(pool, size, rows, [&](int64_t begin, int64_t end) {
    for (int64_t n = 0; n < rows; ++n) {
      const T *row = x + n * values.strides[0];
      T *to = y + offsets[n];
      walk(slice, begin, end, [&](const int64_t *off, int64_t m, int64_t) {
        for (int64_t i = 0; i < m; ++i) to[off[1] + i * so] = combine(to[off[1] + i * so], row[off[0] + i * sv]);
      });
    }
  });
}

// SCATTER_ADD_ND for the 16-bit floats, as SUM adds: each named element's
// old value and terms summed in float64 and rounded once (rounding after
// every term drifts far from the sum over thousands of repeated rows). The
// rows are grouped by the slice they name, in row order, so each slice is
// widened, accumulated and rounded back once.
template <class T>
void scatter_add_half(ThreadPool &pool, const View &values, const View &out, const Layout<2> &slice,
                      const std::vector<int64_t> &offsets) {
  const int64_t size = slice.numel(), sv = slice.inner_stride(0), so = slice.inner_stride(1);
  const int64_t rows = static_cast<int64_t>(offsets.size());
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return offsets[x] < offsets[y]; });
  const T *x = values.data<T>();
  T *y = out.data<T>();
  parallel_for(pool, size, rows, [&](int64_t begin, int64_t end) {
    std::vector<double> sum(static_cast<size_t>(end - begin));
    for (int64_t g = 0; g < rows;) {
      int64_t h = g + 1;
      while (h < rows && offsets[order[h]] == offsets[order[g]]) ++h;
      T *to = y + offsets[order[g]];
      walk(slice, begin, end, [&](const int64_t *off, int64_t m, int64_t pos) {
        for (int64_t i = 0; i < m; ++i) sum[pos - begin + i] = widen(to[off[1] + i * so]);
      });
      for (int64_t k = g; k < h; ++k) {
        const T *row = x + order[k] * values.strides[0];
        walk(slice, begin, end, [&](const int64_t *off, int64_t m, int64_t pos) {
          for (int64_t i = 0; i < m; ++i) sum[pos - begin + i] += widen(row[off[0] + i * sv]);
        });
      }
      walk(slice, begin, end, [&](const int64_t *off, int64_t m, int64_t pos) {
        for (int64_t i = 0; i < m; ++i) to[off[1] + i * so] = half_from<T>(sum[pos - begin + i]);
      });
      g = h;
    }
  });
}

}  // namespace

void gather_nd_kernel(ThreadPool &pool, const View &data, const View &index, const View &out) {
  const std::vector<int64_t> offsets = slice_offsets("gather_nd", index, data);
  if (out.numel == 0) return;
  const Layout<2> slice = slice_layout(out, data, static_cast<int32_t>(index.shape[1]));
  dispatch_set<BP_DTYPE_SET_ALL>(out.dtype, [&](auto tag) { gather<typename decltype(tag)::type>(pool, data, out, slice, offsets); });
}

void scatter_nd_kernel(ThreadPool &pool, int32_t op, const View &index, const View &values, const View &out) {
  const std::vector<int64_t> offsets = slice_offsets(bp_plugin::op_name(op), index, out);
  if (values.numel == 0) return;
  const Layout<2> slice = slice_layout(values, out, static_cast<int32_t>(index.shape[1]));
  if (op == BP_OP_SCATTER_ADD_ND)
    return dispatch_set<BP_DTYPE_SET_NUMERIC>(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (is_half<T>) scatter_add_half<T>(pool, values, out, slice, offsets);
      else scatter<T, AddWidened>(pool, values, out, slice, offsets);
    });
  dispatch_set<BP_DTYPE_SET_ALL>(out.dtype, [&](auto tag) { scatter<typename decltype(tag)::type, Store>(pool, values, out, slice, offsets); });
}

}  // namespace cpu_backend
