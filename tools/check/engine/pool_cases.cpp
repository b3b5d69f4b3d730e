// The POOL and POOL_GRAD families' cases (plugin.h): each a random window
// on 1 to 3 spatial axes (kernel, stride, dilation, padding before and
// after, asymmetric and up to past half the kernel where the operator
// allows it, ceil mode or not, the count-include-pad flag either way),
// with views of every layout, plus the values that decide the rules:
// ties (few distinct values), NaN and infinities, all -inf windows, the
// integer dtypes' extremes; MAX_POOL with and without its indices; the
// gradients' dy over random indices inside each window. The window is
// drawn so the case is one plugin.h defines: at least one output per axis,
// and (MAX) every window reaching the input.
#include "pool_cases.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "backplane/sdk/window.h"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// The windows a case can have: the views' shapes follow from it.
struct Spec {
  bp_window_params w{};
  Shape full, pooled;  // x (or dx) and y (or dy): [N, C, spatial...]
  bool ceil = false;
};

bool needs_reach(int32_t op) { return op == BP_OP_MAX_POOL || op == BP_OP_MAX_POOL_GRAD; }
bool averages(int32_t op) { return op == BP_OP_AVG_POOL || op == BP_OP_AVG_POOL_GRAD; }
bool is_grad(int32_t op) { return op_family(op) == BP_OP_FAMILY_POOL_GRAD; }

int64_t uniform_int(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Fills in the extents of `s` from its window and full shape; false when the
// window is no case plugin.h defines for op.
bool finish(int32_t op, Spec &s) {
  s.pooled = {s.full[0], s.full[1]};
  for (int32_t d = 0; d < s.w.spatial_rank; ++d) {
    const int64_t size = s.full[size_t(2 + d)];
    const int64_t o = bp_sdk_window_extent(size, s.w.kernel[d], s.w.stride[d], s.w.dilation[d], s.w.pad_begin[d],
                                           s.w.pad_end[d], s.ceil ? 1 : 0);
    if (o < 1) return false;
    if (needs_reach(op) &&
        bp_sdk_window_unreached(size, o, s.w.kernel[d], s.w.stride[d], s.w.dilation[d], s.w.pad_begin[d]) >= 0)
      return false;
    s.pooled.push_back(o);
  }
  return true;
}

// A random window on `rank` spatial axes of extents up to max_size.
Spec random_spec(std::mt19937_64 &rng, int32_t op, int32_t rank, int64_t max_size) {
  for (;;) {
    Spec s;
    s.w.struct_size = sizeof s.w;
    s.w.spatial_rank = rank;
    s.w.groups = 1;
    s.full = {uniform_int(rng, 1, 2), uniform_int(rng, 1, 3)};
    for (int32_t d = 0; d < rank; ++d) {
      const int64_t k = uniform_int(rng, 1, rank == 3 ? 3 : 4);
      s.w.kernel[d] = k;
      s.w.stride[d] = uniform_int(rng, 1, 3);
      s.w.dilation[d] = uniform_int(rng, 0, 3) == 0 ? 2 : 1;
      s.w.pad_begin[d] = uniform_int(rng, 0, k / 2);
      // plugin.h allows any padding; one case in four goes past the half.
      s.w.pad_end[d] = uniform_int(rng, 0, 3) == 0 ? uniform_int(rng, 0, k) : uniform_int(rng, 0, k / 2);
      s.full.push_back(uniform_int(rng, 1, max_size));
    }
    s.ceil = uniform_int(rng, 0, 1) == 1;
    if (averages(op) && uniform_int(rng, 0, 1) == 1) s.w.flags = BP_WINDOW_COUNT_INCLUDE_PAD;
    if (finish(op, s)) return s;
  }
}

std::string spec_label(const char *what, const Spec &s) {
  std::string text = std::string(what) + " x " + shape_text(int32_t(s.full.size()), s.full.data()) + " kernel";
  for (int32_t d = 0; d < s.w.spatial_rank; ++d) text += format(" %lld", (long long)s.w.kernel[d]);
  text += " stride";
  for (int32_t d = 0; d < s.w.spatial_rank; ++d) text += format(" %lld", (long long)s.w.stride[d]);
  text += " dilation";
  for (int32_t d = 0; d < s.w.spatial_rank; ++d) text += format(" %lld", (long long)s.w.dilation[d]);
  text += " padding";
  for (int32_t d = 0; d < s.w.spatial_rank; ++d)
    text += format(" %lld+%lld", (long long)s.w.pad_begin[d], (long long)s.w.pad_end[d]);
  if (s.ceil) text += ", ceil mode";
  if (s.w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) text += ", count_include_pad";
  return text;
}

// Indices of MAX_POOL_GRAD: for every output element, the flat position of
// one random tap of its window that lies inside the input.
ViewDesc random_indices(Builder &b, Case &c, const Spec &s) {
  ViewDesc v = add_view(c, BP_INT64, s.pooled, dense(), false);
  const int32_t r = s.w.spatial_rank;
  fill(c, v, [&](const int64_t *idx, int64_t) {
    int64_t flat = 0;
    for (int32_t d = 0; d < r; ++d) {
      const int64_t size = s.full[size_t(2 + d)], start = idx[2 + d] * s.w.stride[d] - s.w.pad_begin[d];
      int64_t p;
      do p = start + uniform_int(b.rng, 0, s.w.kernel[d] - 1) * s.w.dilation[d];
      while (p < 0 || p >= size);
      flat = flat * size + p;
    }
    return Val{0, flat};
  });
  return v;
}

// Values that make ties likely: a few small integers.
Domain tie_domain() { return {Domain::ints, 0, 2}; }

// The case of spec s: x (or dy, indices) filled from `values`, the views in
// the given layouts.
Case &add_spec(Builder &b, const char *what, const Spec &s, const Domain &values, LayoutSpec in_layout = dense(),
               LayoutSpec out_layout = dense(), bool with_indices = true) {
  Case &c = b.start(spec_label(what, s));
  c.window = s.w;
  if (!is_grad(b.op)) {
    ViewDesc x = add_view(c, b.dtype, s.full, in_layout, false);
    fill_random(c, x, b.rng, values);
    c.inputs.push_back(x);
    c.output = add_view(c, b.out_dtype, s.pooled, out_layout, true);
    c.more_outputs.push_back(b.op == BP_OP_MAX_POOL && with_indices ? add_view(c, BP_INT64, s.pooled, dense(), true)
                                                                     : absent_view());
    return c;
  }
  ViewDesc dy = add_view(c, b.dtype, s.pooled, in_layout, false);
  fill_random(c, dy, b.rng, values);
  c.inputs.push_back(dy);
  c.inputs.push_back(b.op == BP_OP_MAX_POOL_GRAD ? random_indices(b, c, s) : absent_view());
  c.output = add_view(c, b.out_dtype, s.full, out_layout, true);
  return c;
}

// Every element of the case's input 0 set to one of the special values at
// random, one in `every` elements (the rest as they are).
void sprinkle(Builder &b, Case &c, const std::vector<double> &values, int every) {
  const ViewDesc &x = c.inputs[0];
  std::vector<uint8_t> &bytes = c.storages[size_t(x.storage)];
  for_each_index(x, [&](const int64_t *idx, int64_t) {
    if (uniform_int(b.rng, 0, every - 1) == 0)
      store(x.dtype, bytes.data() + byte_at(x, idx), Val{values[size_t(uniform_int(b.rng, 0, int64_t(values.size()) - 1))], 0});
  });
}

Spec fixed_spec(int32_t op, const Shape &full, const std::vector<int64_t> &kernel, const std::vector<int64_t> &stride,
                const std::vector<int64_t> &pad, bool ceil, uint32_t flags = 0) {
  Spec s;
  s.w.struct_size = sizeof s.w;
  s.w.spatial_rank = int32_t(kernel.size());
  s.w.groups = 1;
  s.w.flags = flags;
  for (size_t d = 0; d < kernel.size(); ++d) {
    s.w.kernel[d] = kernel[d];
    s.w.stride[d] = stride[d];
    s.w.dilation[d] = 1;
    s.w.pad_begin[d] = s.w.pad_end[d] = pad[d];
  }
  s.full = full;
  s.ceil = ceil;
  finish(op, s);
  return s;
}

}  // namespace

bool is_pool_op(int32_t op) {
  return op_family(op) == BP_OP_FAMILY_POOL || op_family(op) == BP_OP_FAMILY_POOL_GRAD;
}

void add_pool(Builder &b, Case &c, const Shape &spatial) {
  Spec s;
  s.w.struct_size = sizeof s.w;
  s.w.spatial_rank = int32_t(spatial.size());
  s.w.groups = 1;
  s.full = {1, 2};
  for (size_t d = 0; d < spatial.size(); ++d) {
    s.w.kernel[d] = spatial[d] >= 2 ? 2 : 1;
    s.w.stride[d] = s.w.kernel[d];
    s.w.dilation[d] = 1;
    s.full.push_back(spatial[d]);
  }
  finish(b.op, s);
  c.window = s.w;
  const Domain values = domain_for(b.op, 0, b.dtype, b.out_dtype);
  if (!is_grad(b.op)) {
    c.inputs.push_back(b.input(c, 0, b.dtype, s.full, dense()));
    c.output = add_view(c, b.out_dtype, s.pooled, dense(), true);
    c.more_outputs.push_back(b.op == BP_OP_MAX_POOL ? add_view(c, BP_INT64, s.pooled, dense(), true) : absent_view());
    return;
  }
  ViewDesc dy = add_view(c, b.dtype, s.pooled, dense(), false);
  fill_random(c, dy, b.rng, values);
  c.inputs.push_back(dy);
  c.inputs.push_back(b.op == BP_OP_MAX_POOL_GRAD ? random_indices(b, c, s) : absent_view());
  c.output = add_view(c, b.out_dtype, s.full, dense(), true);
}

std::vector<Case> pool_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed) {
  Builder b(op, dtype, out_dtype, seed);
  const Domain values = is_integer(dtype) && op == BP_OP_MAX_POOL ? Domain{Domain::full, 0, 0}
                                                                  : domain_for(op, 0, dtype, out_dtype);
  for (int i = 0; i < 18; ++i) {
    const int32_t rank = 1 + i % 3;
    add_spec(b, "random window", random_spec(b.rng, op, rank, rank == 3 ? 5 : 9), values);
  }
  // Layouts: a transposed and a strided input, a strided output.
  add_spec(b, "transposed input", random_spec(b.rng, op, 2, 8), values, transposed());
  add_spec(b, "strided input", random_spec(b.rng, op, 2, 8), values, stepped());
  add_spec(b, "strided output", random_spec(b.rng, op, 2, 8), values, dense(), stepped());
  // PyTorch's common windows: 2x2 stride 2, 3x3 stride 2 padding 1 in ceil mode.
  add_spec(b, "2x2 stride 2", fixed_spec(op, {2, 3, 8, 6}, {2, 2}, {2, 2}, {0, 0}, false), values);
  add_spec(b, "3x3 stride 2 padding 1 ceil", fixed_spec(op, {1, 2, 7, 9}, {3, 3}, {2, 2}, {1, 1}, true), values);
  if (averages(op)) {
    // Both count modes over the same window, where they differ (padding
    // and a ceil-mode window reaching past it).
    for (uint32_t flags : {0u, BP_WINDOW_COUNT_INCLUDE_PAD}) {
      add_spec(b, "padded", fixed_spec(op, {1, 2, 5, 6}, {3, 2}, {2, 2}, {1, 1}, true, flags), values);
      add_spec(b, "padded 1-d", fixed_spec(op, {2, 1, 9}, {4}, {3}, {2}, true, flags), values);
    }
  }
  if (op == BP_OP_MAX_POOL) {
    // Ties: a few distinct values over overlapping windows; indices must
    // name the first tie in C order.
    add_spec(b, "ties", fixed_spec(op, {2, 2, 6, 7}, {3, 3}, {1, 1}, {1, 1}, false), tie_domain());
    add_spec(b, "ties 3-d", fixed_spec(op, {1, 2, 4, 4, 5}, {2, 2, 3}, {1, 1, 2}, {1, 0, 1}, true), tie_domain());
    for (int i = 0; i < 3; ++i) add_spec(b, "ties", random_spec(b.rng, op, 1 + i, 6), tie_domain());
    add_spec(b, "without indices", random_spec(b.rng, op, 2, 8), values, dense(), dense(), false);
  }
  if (is_float(dtype)) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    if (!is_grad(op)) {
      // NaN propagates (MAX: the first NaN of the window and its position).
      Case &c = add_spec(b, "NaN and infinities", random_spec(b.rng, op, 2, 8), values);
      sprinkle(b, c, {nan, inf, -inf}, 5);
      if (op == BP_OP_MAX_POOL) {
        // Every element -inf: padding never wins, the first tap inside does.
        Case &all = add_spec(b, "all -inf", fixed_spec(op, {1, 2, 5, 5}, {3, 3}, {2, 2}, {1, 1}, true), values);
        sprinkle(b, all, {-inf}, 1);
        Case &nans = add_spec(b, "several NaNs", fixed_spec(op, {1, 1, 6, 6}, {3, 3}, {1, 1}, {0, 0}, false), values);
        sprinkle(b, nans, {nan}, 3);
        // The forward of inference, which a backend may run otherwise.
        Case &plain = add_spec(b, "NaN without indices", fixed_spec(op, {2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, false),
                               values, dense(), dense(), false);
        sprinkle(b, plain, {nan}, 9);
        Case &zeros = add_spec(b, "signed zeros", fixed_spec(op, {1, 2, 6, 6}, {2, 2}, {1, 1}, {0, 0}, false),
                               values, dense(), dense(), false);
        sprinkle(b, zeros, {0.0, -0.0, -1.0}, 1);
      }
    } else {
      Case &c = add_spec(b, "infinities in dy", random_spec(b.rng, op, 2, 6), values);
      sprinkle(b, c, {inf, -inf}, 7);
    }
  }
  // Empty: no batch, or no channels.
  add_spec(b, "empty batch", fixed_spec(op, {0, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}, false), values);
  add_spec(b, "no channels", fixed_spec(op, {2, 0, 4}, {3}, {1}, {1}, false), values);
  // Large enough for every thread of a backend.
  add_spec(b, "large", fixed_spec(op, {2, 8, 96, 80}, {3, 3}, {2, 2}, {1, 1}, false), values);
  return std::move(b.cases);
}

std::vector<Leeway> pool_zero_leeway(const Case &c) {
  const bp_window_params &w = *c.window;
  const ViewDesc &x = c.inputs[0];
  const std::vector<uint8_t> &bytes = c.storages[size_t(x.storage)];
  std::vector<Leeway> leeway(size_t(numel(c.output)), Leeway::none);
  bool any = false;
  for_each_index(c.output, [&](const int64_t *o, int64_t pos) {
    int64_t k[3] = {0, 0, 0}, p[BP_MAX_RANK] = {o[0], o[1]};
    bool positive_zero = false, negative_zero = false, above = false;
    for (;;) {
      bool inside = true;
      for (int32_t d = 0; d < w.spatial_rank; ++d) {
        p[2 + d] = o[2 + d] * w.stride[d] - w.pad_begin[d] + k[d] * w.dilation[d];
        inside = inside && p[2 + d] >= 0 && p[2 + d] < x.shape[2 + d];
      }
      if (inside) {
        const double v = load_double(x.dtype, bytes.data() + byte_at(x, p));
        above = above || std::isnan(v) || v > 0;
        if (v == 0) (std::signbit(v) ? negative_zero : positive_zero) = true;
      }
      int32_t d = w.spatial_rank - 1;
      for (; d >= 0; --d) {
        if (++k[d] < w.kernel[d]) break;
        k[d] = 0;
      }
      if (d < 0) break;
    }
    if (positive_zero && negative_zero && !above) {
      leeway[size_t(pos)] = Leeway::either_zero;
      any = true;
    }
  });
  if (!any) leeway.clear();
  return leeway;
}

void pool_scale(const Case &c, std::vector<double> &sum, std::vector<int64_t> &terms) {
  const bp_window_params &w = *c.window;
  const int32_t r = w.spatial_rank;
  const bool grad = is_grad(c.op);
  const ViewDesc &src = c.inputs[0];  // x, or dy
  const std::vector<uint8_t> &bytes = c.storages[size_t(src.storage)];
  const ViewDesc &full = grad ? c.output : c.inputs[0];
  auto magnitude = [](double x) { return std::isfinite(x) ? std::fabs(x) : 0.0; };
  const bool include = (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  // The divisor of pooled position o (AVG).
  auto count = [&](const int64_t *o) {
    int64_t n = 1;
    for (int32_t d = 0; d < r; ++d)
      n *= bp_sdk_window_count(o[2 + d], full.shape[2 + d], w.kernel[d], w.stride[d], w.dilation[d], w.pad_begin[d],
                               w.pad_end[d], include);
    return n;
  };
  // Calls f(index in the full view) for each tap of pooled element o
  // inside the input.
  auto taps = [&](const int64_t *o, auto &&f) {
    int64_t k[3] = {0, 0, 0}, p[BP_MAX_RANK] = {o[0], o[1]};
    for (;;) {
      bool inside = true;
      for (int32_t d = 0; d < r; ++d) {
        p[2 + d] = o[2 + d] * w.stride[d] - w.pad_begin[d] + k[d] * w.dilation[d];
        inside = inside && p[2 + d] >= 0 && p[2 + d] < full.shape[2 + d];
      }
      if (inside) f(p);
      int32_t d = r - 1;
      for (; d >= 0; --d) {
        if (++k[d] < w.kernel[d]) break;
        k[d] = 0;
      }
      if (d < 0) return;
    }
  };
  if (c.op == BP_OP_AVG_POOL) {
    for_each_index(c.output, [&](const int64_t *o, int64_t pos) {
      const int64_t n = count(o);
      taps(o, [&](const int64_t *p) {
        sum[size_t(pos)] += magnitude(load_double(src.dtype, bytes.data() + byte_at(src, p))) / double(n ? n : 1);
        ++terms[size_t(pos)];
      });
    });
    return;
  }
  // The gradients: each dy term lands on dx positions (its index, or every
  // tap of its window divided by the count).
  const ViewDesc *index = c.op == BP_OP_MAX_POOL_GRAD ? &c.inputs[1] : nullptr;
  for_each_index(src, [&](const int64_t *o, int64_t) {
    const double g = magnitude(load_double(src.dtype, bytes.data() + byte_at(src, o)));
    if (index) {
      const int64_t flat = load_int(BP_INT64, c.storages[size_t(index->storage)].data() + byte_at(*index, o));
      int64_t plane = 1;
      for (int32_t d = 0; d < r; ++d) plane *= full.shape[2 + d];
      const size_t at = size_t((o[0] * full.shape[1] + o[1]) * plane + flat);
      sum[at] += g;
      ++terms[at];
      return;
    }
    const double share = g / double(count(o));
    taps(o, [&](const int64_t *p) {
      const size_t at = size_t(c_position(full, p));
      sum[at] += share;
      ++terms[at];
    });
  });
}

}  // namespace bpcheck
