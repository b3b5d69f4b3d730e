// a[key] and a[key] = values with NumPy's rules (backplane.h, "indexing").
//
// A key is resolved in two passes. The basic part (INT, SLICE, NEWAXIS,
// ELLIPSIS) becomes a view of a: select, slice, expand_dims. The advanced
// part (bool masks and integer tensors) becomes one int64 index of shape
// [*B, k] over k axes of that view, read with gather_nd and written with
// scatter_nd, placing B where NumPy places it: where the indexed axes were
// when they are adjacent, in front otherwise. A negative step selects what
// the positive-step slice selects, backwards; views have non-negative
// strides, so reading it gathers along that axis (a copy) and writing it
// writes the reversed values through the positive-step view.
//
// Reads are made of autograd's views and gathers, so a[key] records; the
// out-of-place put is autograd's scatter over the positions a[key] names.
#include "composites/index_composite.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "composites/recording.hpp"
#include "dispatch/creation.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core {

namespace {

[[noreturn]] void index_fail(bp_status status, const std::string &what) {
  Error e(status, "index: " + what);
  e.op = "index";
  throw e;
}

std::string shape_text(int32_t rank, const int64_t *shape) {
  std::string s = "(";
  for (int32_t d = 0; d < rank; ++d) s += std::to_string(shape[d]) + (rank == 1 || d + 1 < rank ? "," : "");
  if (rank > 1) s.pop_back();
  return s + ")";
}

bool is_mask(const IndexKey &k) { return k.kind == BP_INDEX_TENSOR && k.tensor->dtype == BP_BOOL; }

// How many axes of a an entry indexes.
int32_t consumed(const IndexKey &k) {
  switch (k.kind) {
    case BP_INDEX_INT:
    case BP_INDEX_SLICE: return 1;
    case BP_INDEX_TENSOR: return is_mask(k) ? k.tensor->rank : 1;
    default: return 0;
  }
}

// The key's tensors: on a's device, of an integer or bool dtype.
void check_tensors(const View &a, const std::vector<IndexKey> &keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].kind != BP_INDEX_TENSOR) continue;
    const View &t = *keys[i].tensor;
    const int32_t kind = bp_vocab_dtype_kind(t.dtype);
    if (kind != BP_DTYPE_KIND_SIGNED_INT && kind != BP_DTYPE_KIND_UNSIGNED_INT && kind != BP_DTYPE_KIND_BOOL)
      index_fail(BP_ERR_INDEX, "arrays used as indices must be of integer or boolean type, not " +
                                   std::string(dtype_name(t.dtype)) + " (key " + std::to_string(i) + ")");
    if (&t.device() != &a.device()) {
      Error e(BP_ERR_DEVICE_MISMATCH,
              "index: key " + std::to_string(i) + " is a tensor on another device than the indexed tensor");
      e.op = "index";
      throw e;
    }
    if (is_mask(keys[i]) && t.rank == 0)
      index_fail(BP_ERR_INDEX,
                 "a 0-d boolean index is not supported (use a mask with the shape of the axes it selects)");
  }
}

// The key with its ellipsis (or, without one, the axes past the key)
// written out as whole slices.
std::vector<IndexKey> expanded(const View &a, const std::vector<IndexKey> &keys) {
  int32_t used = 0, ellipses = 0;
  for (const IndexKey &k : keys) {
    used += consumed(k);
    ellipses += k.kind == BP_INDEX_ELLIPSIS;
  }
  if (ellipses > 1) index_fail(BP_ERR_INDEX, "an index can only have a single ellipsis ('...')");
  if (used > a.rank)
    index_fail(BP_ERR_INDEX, "too many indices for a tensor of dimension " + std::to_string(a.rank) + " (the key indexes " +
                                 std::to_string(used) + " axes)");
  IndexKey whole;
  whole.kind = BP_INDEX_SLICE;
  std::vector<IndexKey> out;
  for (const IndexKey &k : keys) {
    if (k.kind == BP_INDEX_ELLIPSIS)
      out.insert(out.end(), size_t(a.rank - used), whole);
    else
      out.push_back(k);
  }
  return out;
}

// A SLICE's positions as Python's slice.indices() gives them: the first,
// how many, and the step.
struct Range {
  int64_t first, count, step;
};

Range slice_range(const IndexKey &k, int64_t n) {
  int64_t step = (k.given & BP_INDEX_HAS_STEP) ? k.step : 1;
  if (step == 0) {
    Error e(BP_ERR_INVALID_ARGUMENT, "index: slice step cannot be zero");
    e.op = "index";
    throw e;
  }
  // A step past the extent selects at most one element, as that extent
  // plus one does; clamping keeps the arithmetic below in range.
  step = std::clamp(step, -(n + 1), n + 1);
  const int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto bound = [&](bool given, int64_t v, int64_t absent) {
    if (!given) return absent;
    if (v < 0) v = v < -n ? lower : v + n;
    return std::clamp(v, lower, upper);
  };
  const int64_t start = bound(k.given & BP_INDEX_HAS_START, k.start, step > 0 ? lower : upper);
  const int64_t stop = bound(k.given & BP_INDEX_HAS_STOP, k.stop, step > 0 ? upper : lower);
  const int64_t span = step > 0 ? stop - start : start - stop;
  const int64_t stride = step > 0 ? step : -step;
  return {start, span > 0 ? (span + stride - 1) / stride : 0, step};
}

// Views are passed by reference and moved, never copied: a copy of a View
// leaves its autograd link behind.
struct Plan {
  const View *a = nullptr;
  View view;                                       // a with the basic part applied, once is_a is false
  bool is_a = true;                                // no basic entry has changed a yet
  std::vector<int32_t> reversed;                   // axes of view that a negative step reverses
  std::vector<std::pair<int32_t, View>> advanced;  // (axis of view, integer index)
  const View &current() const { return is_a ? *a : view; }
  void apply(View next) {
    view = std::move(next);
    is_a = false;
  }
};

Plan plan(const View &a, const std::vector<IndexKey> &given_keys) {
  check_tensors(a, given_keys);
  const std::vector<IndexKey> keys = expanded(a, given_keys);
  // Beside an index tensor an integer is one too (NumPy): it takes part in
  // deciding where the broadcast axes go.
  const bool integers_are_arrays =
      std::any_of(keys.begin(), keys.end(), [](const IndexKey &k) { return k.kind == BP_INDEX_TENSOR; });
  Plan p;
  p.a = &a;
  int32_t axis = 0, source_axis = 0;  // in the view; in a
  for (const IndexKey &k : keys) {
    switch (k.kind) {
      case BP_INDEX_NEWAXIS:
        p.apply(ag::expand_dims(p.current(), axis++));
        break;
      case BP_INDEX_INT: {
        const int64_t n = p.current().shape[axis];
        if (k.index < -n || k.index >= n)
          index_fail(BP_ERR_INDEX, "index " + std::to_string(k.index) + " is out of bounds for axis " +
                                       std::to_string(source_axis) + " with size " + std::to_string(n));
        if (integers_are_arrays) {
          p.advanced.emplace_back(axis++, fill(a.device(), BP_INT64, 0, nullptr, double(k.index)));
        } else {
          p.apply(ag::select(p.current(), axis, k.index));
        }
        ++source_axis;
        break;
      }
      case BP_INDEX_SLICE: {
        const int64_t n = p.current().shape[axis];
        const Range r = slice_range(k, n);
        if (r.count == 0) {
          p.apply(ag::slice(p.current(), axis, 0, 0, 1));
        } else if (r.step > 0) {
          if (!(r.first == 0 && r.count == n && r.step == 1))
            p.apply(ag::slice(p.current(), axis, r.first, r.first + (r.count - 1) * r.step + 1, r.step));
        } else {
          const int64_t last = r.first + (r.count - 1) * r.step;
          p.apply(ag::slice(p.current(), axis, last, r.first + 1, -r.step));
          if (r.count > 1) p.reversed.push_back(axis);
        }
        ++axis;
        ++source_axis;
        break;
      }
      default: {  // BP_INDEX_TENSOR
        const View &t = *k.tensor;
        if (!is_mask(k)) {
          p.advanced.emplace_back(axis++, t);
          ++source_axis;
          break;
        }
        const View &view = p.current();
        if (!std::equal(t.shape, t.shape + t.rank, view.shape + axis)) {
          std::string axes = "[";
          for (int32_t j = 0; j < t.rank; ++j) axes += std::to_string(source_axis + j) + (j + 1 < t.rank ? ", " : "");
          index_fail(BP_ERR_INDEX, "boolean index of shape " + shape_text(t.rank, t.shape) +
                                       " does not match the indexed axes " + axes + "] of shape " +
                                       shape_text(t.rank, view.shape + axis));
        }
        // NumPy's rule: a mask is the integer indices of its nonzero().
        const View where = ag::nonzero(t);
        for (int32_t j = 0; j < t.rank; ++j) p.advanced.emplace_back(axis + j, select_view(where, 1, j));
        axis += t.rank;
        source_axis += t.rank;
        break;
      }
    }
  }
  return p;
}

std::vector<int32_t> inverse(const std::vector<int32_t> &order) {
  std::vector<int32_t> inv(order.size());
  for (size_t i = 0; i < order.size(); ++i) inv[size_t(order[i])] = int32_t(i);
  return inv;
}

// t with the order of its elements along each of axes reversed: a gather
// of positions n-1, ..., 0 along the axis (a copy, recorded).
View reversed(View t, const std::vector<int32_t> &axes) {
  for (int32_t axis : axes) {
    const int64_t n = t.shape[axis];
    std::vector<int32_t> order{axis};
    for (int32_t d = 0; d < t.rank; ++d)
      if (d != axis) order.push_back(d);
    const int64_t column[2] = {n, 1};
    View backwards;
    reshape_view(arange(t.device(), BP_INT64, double(n - 1), -1.0, -1.0), 2, column, backwards);
    t = ag::permute(ag::gather_nd(ag::permute(t, order.data()), backwards), inverse(order).data());
  }
  return t;
}

// The advanced part of a plan as one gather or scatter: the view with the
// indexed axes moved to the front, the stacked index [*B, k], and the
// permutation from that gather's layout (B, then the other axes) to the
// layout NumPy gives the result.
struct Advanced {
  View front, index;
  std::vector<int32_t> order;     // gather layout -> result layout
  std::vector<int32_t> reversed;  // the plan's reversed axes, in the gather layout
  int32_t rank = 0;               // of the gather's result
  int64_t shape[BP_MAX_RANK] = {};

  explicit Advanced(const Plan &p) {
    const View &view = p.current();
    const int32_t k = int32_t(p.advanced.size());
    // B: the index shapes broadcast together.
    int32_t nb = 0;
    for (const auto &[axis, t] : p.advanced) nb = std::max(nb, t.rank);
    std::vector<int64_t> batch(size_t(nb), 1);
    for (const auto &[axis, t] : p.advanced) {
      for (int32_t d = 0; d < t.rank; ++d) {
        int64_t &b = batch[size_t(nb - t.rank + d)];
        if (t.shape[d] != 1 && b != 1 && b != t.shape[d]) {
          std::string shapes;
          for (const auto &[ax, u] : p.advanced) shapes += " " + shape_text(u.rank, u.shape);
          index_fail(BP_ERR_INDEX, "shape mismatch: indexing arrays could not be broadcast together with shapes" + shapes);
        }
        if (t.shape[d] != 1) b = t.shape[d];
      }
    }
    if (nb + 1 > BP_MAX_RANK || nb + view.rank - k > BP_MAX_RANK)
      index_fail(BP_ERR_INDEX, "the advanced indices' broadcast shape has too many axes");
    std::vector<int64_t> stacked_shape = batch;
    stacked_shape.push_back(k);
    index = allocate_view(view.device(), BP_INT64, nb + 1, stacked_shape.data());
    for (int32_t j = 0; j < k; ++j) ag::assign(select_view(index, nb, j), p.advanced[size_t(j)].second);

    std::vector<int32_t> axes, rest;
    for (const auto &[axis, t] : p.advanced) axes.push_back(axis);
    for (int32_t d = 0; d < view.rank; ++d)
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) rest.push_back(d);
    std::vector<int32_t> to_front = axes;
    to_front.insert(to_front.end(), rest.begin(), rest.end());
    front = ag::permute(view, to_front.data());

    bool adjacent = true;
    for (int32_t j = 1; j < k; ++j) adjacent = adjacent && axes[size_t(j)] == axes[0] + j;
    const int32_t at = adjacent ? axes[0] : 0;
    // Gather layout: B, then rest. NumPy's: rest before `at`, B, rest after.
    for (int32_t i = 0; i < at; ++i) order.push_back(nb + i);
    for (int32_t i = 0; i < nb; ++i) order.push_back(i);
    for (int32_t i = at; i < int32_t(rest.size()); ++i) order.push_back(nb + i);
    for (int32_t a : p.reversed)
      reversed.push_back(nb + int32_t(std::find(rest.begin(), rest.end(), a) - rest.begin()));
    rank = nb + int32_t(rest.size());
    std::copy(batch.begin(), batch.end(), shape);
    for (size_t i = 0; i < rest.size(); ++i) shape[size_t(nb) + i] = front.shape[size_t(k) + i];
  }
};

// The values as a dense tensor of dst's dtype in the layout of the elements
// `target` (a view of dst) covers: broadcast, converted, and read before
// dst is written.
View values_like(const View &target, int32_t dtype, const View &values) {
  View full = allocate_view(target.device(), dtype, target.rank, target.shape);
  ag::assign(full, values);
  return full;
}

}  // namespace

View index(const View &a, const std::vector<IndexKey> &keys) {
  Plan p = plan(a, keys);
  if (p.advanced.empty()) {
    if (p.is_a) {
      // A key that selects all of a: a new view of it, recorded as a view.
      std::vector<int32_t> same(size_t(a.rank));
      for (int32_t d = 0; d < a.rank; ++d) same[size_t(d)] = d;
      return ag::permute(a, same.data());
    }
    return reversed(std::move(p.view), p.reversed);
  }
  const Advanced adv(p);
  return ag::permute(reversed(ag::gather_nd(adv.front, adv.index), adv.reversed), adv.order.data());
}

void index_put_into(const View &dst, const std::vector<IndexKey> &keys, const View &values, bool accumulate) {
  if (accumulate && dst.dtype == BP_BOOL)
    index_fail(BP_ERR_DTYPE, "accumulate into a bool tensor (values would add up past true)");
  const Plan p = plan(dst, keys);
  if (p.advanced.empty()) {
    const View &target = p.current();
    if (!accumulate && p.reversed.empty() && values.storage.get() != dst.storage.get()) {
      ag::assign(target, values);
      return;
    }
    View full = reversed(values_like(target, dst.dtype, values), p.reversed);
    if (accumulate) full = ag::binary(BP_OP_ADD, target, full);
    ag::assign(target, full);
    return;
  }
  const Advanced adv(p);
  View gathered_layout = allocate_view(dst.device(), dst.dtype, adv.rank, adv.shape);
  View result_layout = permute_view(gathered_layout, adv.order.data());
  ag::assign(result_layout, values);
  const View rows = reversed(gathered_layout, adv.reversed);
  ag::scatter_into(adv.front, adv.index, rows, accumulate);
}

View index_put(const View &a, const std::vector<IndexKey> &keys, const View &values, bool accumulate) {
  if (accumulate && a.dtype == BP_BOOL)
    index_fail(BP_ERR_DTYPE, "accumulate into a bool tensor (values would add up past true)");
  // The positions of a's elements (C order) that a[key] names, one row each.
  const int64_t numel = a.numel();
  View positions;
  reshape_view(arange(a.device(), BP_INT64, 0.0, double(numel), 1.0), a.rank, a.shape, positions);
  const View named = ag::contiguous(index(positions, keys));
  if (named.rank >= BP_MAX_RANK)
    index_fail(BP_ERR_SHAPE, "a[key] has " + std::to_string(named.rank) + " axes, one too many to put values into");
  View rows;
  int64_t rows_shape[BP_MAX_RANK];
  std::copy(named.shape, named.shape + named.rank, rows_shape);
  rows_shape[named.rank] = 1;
  reshape_view(named, named.rank + 1, rows_shape, rows);
  const View flat = ag::reshape(a, 1, &numel);
  return ag::reshape(ag::scatter_nd(flat, rows, values, accumulate), a.rank, a.shape);
}

}  // namespace bp::core
