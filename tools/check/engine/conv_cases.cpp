#include "conv_cases.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "backplane/sdk/conv.h"
#include "family_builders.hpp"
#include "text.hpp"
#include "values.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

struct Extents {
  Shape x, y, w;
};

Extents extents_of(int32_t op, const ConvSpec &s) {
  Extents e{{s.n, s.c_in}, {s.n, s.c_out}, {s.c_out, s.c_in / std::max(s.groups, 1)}};
  for (int i = 0; i < s.rank; ++i) {
    const int64_t reach = std::max<int64_t>(s.stride[i], s.dilation[i]);
    const int64_t o = bp_sdk_conv_out_extent(s.in[i], s.kernel[i], s.stride[i], s.dilation[i], s.pad_begin[i],
                                             s.pad_end[i]);
    int64_t x = s.in[i];
    if (op != BP_OP_CONV) {
      // The smallest x that gives o, plus the output padding.
      const int64_t base =
          (o - 1) * s.stride[i] - s.pad_begin[i] - s.pad_end[i] + s.dilation[i] * (s.kernel[i] - 1) + 1;
      const int64_t padded = base + s.output_padding[i] % reach;
      if (padded >= 1 && padded - base < reach) x = padded;
    }
    e.x.push_back(x);
    e.y.push_back(o);
    e.w.push_back(s.kernel[i]);
  }
  return e;
}

bp_window_params window_of(const ConvSpec &s) {
  bp_window_params w{};
  w.struct_size = sizeof w;
  w.spatial_rank = s.rank;
  w.groups = s.groups;
  for (int i = 0; i < s.rank; ++i) {
    w.kernel[i] = s.kernel[i], w.stride[i] = s.stride[i], w.dilation[i] = s.dilation[i];
    w.pad_begin[i] = s.pad_begin[i], w.pad_end[i] = s.pad_end[i];
  }
  return w;
}

std::string axes_text(const int64_t *v, int rank) { return shape_text(rank, v); }

// A case's view as execute sees its geometry (no buffer: shapes only).
bp_plugin_tensor geometry_view(const ViewDesc &v) {
  bp_plugin_tensor t{};
  t.dtype = v.dtype;
  t.rank = v.rank;
  for (int d = 0; d < v.rank; ++d) t.shape[d] = v.shape[d], t.strides[d] = v.strides[d];
  return t;
}

// Steps the multi-index i over extents e (rank r); false once it wrapped.
bool next(int64_t *i, const int64_t *e, int r) {
  for (int d = r - 1; d >= 0; --d) {
    if (++i[d] < e[d]) return true;
    i[d] = 0;
  }
  return false;
}

}  // namespace

std::string conv_spec_text(int32_t op, const ConvSpec &s) {
  const Extents e = extents_of(op, s);
  std::string t = "x " + shape_text(int32_t(e.x.size()), e.x.data()) + ", weight " +
                  shape_text(int32_t(e.w.size()), e.w.data()) + ", y " + shape_text(int32_t(e.y.size()), e.y.data());
  if (s.groups != 1) t += format(", groups %d", int(s.groups));
  t += ", stride " + axes_text(s.stride, s.rank) + ", dilation " + axes_text(s.dilation, s.rank) + ", padding " +
       axes_text(s.pad_begin, s.rank) + " + " + axes_text(s.pad_end, s.rank);
  if (op != BP_OP_CONV_WEIGHT_GRAD && !s.bias) t += ", no bias";
  return t;
}

void add_conv(Builder &b, const ConvSpec &s, const std::string &what) {
  const Extents e = extents_of(b.op, s);
  Case &c = b.start(what.empty() ? conv_spec_text(b.op, s) : what + ": " + conv_spec_text(b.op, s));
  c.window = window_of(s);
  const Shape bias_shape{b.op == BP_OP_CONV ? s.c_out : s.c_in};
  // Which extents each operator reads and writes: CONV x, w (bias) -> y;
  // its transpose y, w (bias) -> x; the weight gradient x, dy -> dw.
  struct Roles {
    const Shape &in0, &in1, &out;
    bool bias;
  };
  const Roles r = b.op == BP_OP_CONV             ? Roles{e.x, e.w, e.y, s.bias}
                  : b.op == BP_OP_CONV_TRANSPOSE ? Roles{e.y, e.w, e.x, s.bias}
                                                 : Roles{e.x, e.y, e.w, false};
  c.inputs.push_back(b.input(c, 0, b.dtype, r.in0, s.in0));
  c.inputs.push_back(b.input(c, 1, b.dtype, r.in1, s.in1));
  c.inputs.push_back(r.bias ? b.input(c, 2, b.dtype, bias_shape, dense()) : absent_view());
  c.output = add_view(c, b.out_dtype, r.out, s.out, true);
}

void conv_cases(Builder &b) {
  auto spec = [](int rank, int64_t n, int64_t c_in, int64_t c_out, int32_t groups, std::vector<int64_t> in,
                 std::vector<int64_t> kernel) {
    ConvSpec s;
    s.rank = rank, s.n = n, s.c_in = c_in, s.c_out = c_out, s.groups = groups;
    for (int i = 0; i < rank; ++i) s.in[i] = in[size_t(i)], s.kernel[i] = kernel[size_t(i)];
    return s;
  };
  auto set = [](int64_t *field, std::vector<int64_t> v) { std::copy(v.begin(), v.end(), field); };
  add_conv(b, spec(1, 2, 3, 4, 1, {7}, {3}), "1-D");
  ConvSpec s = spec(1, 1, 4, 6, 2, {9}, {2});
  set(s.stride, {2}), set(s.dilation, {2}), set(s.pad_begin, {1}), s.bias = false;
  add_conv(b, s, "1-D strided, dilated, padded, grouped");
  s = spec(2, 2, 3, 4, 1, {6, 5}, {3, 3});
  set(s.pad_begin, {1, 1}), set(s.pad_end, {1, 1});
  add_conv(b, s, "2-D, padding 1");
  s = spec(2, 1, 4, 4, 1, {7, 8}, {3, 2});
  set(s.stride, {2, 1}), set(s.pad_begin, {0, 1}), set(s.pad_end, {2, 0});
  add_conv(b, s, "2-D asymmetric padding");
  s = spec(2, 2, 4, 8, 4, {6, 6}, {3, 3});
  set(s.pad_begin, {1, 1}), set(s.pad_end, {1, 1});
  add_conv(b, s, "depthwise");
  s = spec(2, 2, 6, 4, 1, {7, 7}, {1, 1});
  set(s.stride, {2, 2});
  add_conv(b, s, "1x1 stride 2");
  s = spec(3, 2, 5, 3, 1, {3, 4, 2}, {1, 1, 1});
  s.bias = false;
  add_conv(b, s, "1x1x1, 3-D");
  s = spec(1, 3, 4, 5, 1, {8}, {1});
  set(s.stride, {3}), set(s.dilation, {2}), set(s.output_padding, {1});
  add_conv(b, s, "pointwise 1-D, stride 3, output padding 1");
  s = spec(3, 1, 2, 3, 1, {4, 5, 3}, {2, 3, 1});
  set(s.stride, {1, 2, 1}), set(s.pad_begin, {1, 1, 1}), set(s.pad_end, {1, 1, 1});
  add_conv(b, s, "3-D");
  s = spec(2, 1, 2, 3, 1, {9, 9}, {3, 3});
  set(s.dilation, {3, 2}), set(s.output_padding, {2, 1});
  add_conv(b, s, "dilation above the stride, output padding up to it");
  s = spec(1, 2, 2, 2, 1, {10}, {3});
  set(s.stride, {3}), set(s.pad_begin, {1}), set(s.output_padding, {2});
  add_conv(b, s, "stride 3, output padding 2");
  // 144 terms per element: a float16 or bfloat16 sum rounded after each
  // term drifts well past the tolerance of one rounding (plugin.h).
  s = spec(2, 1, 16, 2, 1, {5, 5}, {3, 3});
  set(s.pad_begin, {1, 1}), set(s.pad_end, {1, 1});
  add_conv(b, s, "many terms");
  s = spec(2, 2, 4, 6, 2, {5, 6}, {2, 3});
  set(s.pad_begin, {1, 0}), set(s.pad_end, {0, 2});
  s.in0 = stepped(), s.in1 = transposed(), s.out = stepped();
  add_conv(b, s, "strided and transposed views");
  add_conv(b, spec(2, 0, 3, 2, 1, {4, 4}, {3, 3}), "empty batch");
}

ConvSpec conv_spec_for(const Shape &shape) {
  ConvSpec s;
  s.n = 2, s.c_in = 4, s.c_out = 3;
  s.in[0] = shape.empty() ? 5 : std::min<int64_t>(shape[0], 32);
  s.in[1] = shape.size() < 2 ? 5 : std::min<int64_t>(shape[1], 32);
  s.kernel[0] = s.kernel[1] = 3;
  s.pad_begin[0] = s.pad_begin[1] = s.pad_end[0] = s.pad_end[1] = 1;
  return s;
}

std::vector<Case> random_conv_cases(int32_t op, int32_t dtype, uint64_t seed, int count) {
  Builder b(op, dtype, dtype, seed);
  std::mt19937_64 rng(seed ^ 0xc0417ull);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int k = 0; k < count; ++k) {
    ConvSpec s;
    s.rank = int(pick(1, 3));
    const bool depthwise = pick(0, 5) == 0;
    s.groups = depthwise ? int32_t(pick(2, 4)) : int32_t(std::vector<int64_t>{1, 1, 2, 3}[size_t(pick(0, 3))]);
    s.c_in = s.groups * (depthwise ? 1 : pick(1, 4));
    s.c_out = s.groups * pick(1, 3);
    s.n = pick(0, 9) == 0 ? 0 : pick(1, 3);
    const int64_t big = s.rank == 3 ? 2 : s.rank == 2 ? 3 : 4;
    for (int i = 0; i < s.rank; ++i) {
      s.kernel[i] = pick(1, big + (s.rank == 1 ? 1 : 0));
      s.stride[i] = pick(1, 3);
      s.dilation[i] = pick(1, s.rank == 3 ? 2 : 3);
      s.pad_begin[i] = pick(0, 2);
      s.pad_end[i] = pick(0, 2);
      const int64_t least = std::max<int64_t>(1, s.dilation[i] * (s.kernel[i] - 1) + 1 - s.pad_begin[i] - s.pad_end[i]);
      s.in[i] = least + pick(0, s.rank == 3 ? 3 : 6);
      s.output_padding[i] = pick(0, 2);
    }
    s.bias = pick(0, 1) == 1;
    if (pick(0, 3) == 0) s.out = stepped();
    if (pick(0, 3) == 0) s.in0 = transposed();
    add_conv(b, s, format("random #%d", k));
  }
  return std::move(b.cases);
}

void conv_scale(const Case &c, std::vector<double> &sum, std::vector<int64_t> &terms) {
  if (!c.window || c.inputs.size() != 3) return;
  const bp_plugin_tensor in[3] = {geometry_view(c.inputs[0]), geometry_view(c.inputs[1]), geometry_view(c.inputs[2])};
  const bp_plugin_tensor out = geometry_view(c.output);
  bp_sdk_conv g;
  char message[512];
  if (bp_sdk_conv_geometry(c.op, &*c.window, in, &out, &g, message, sizeof message) != BP_OK) return;
  const ViewDesc *x = nullptr, *y = nullptr, *w = nullptr, *bias = is_absent(c.inputs[2]) ? nullptr : &c.inputs[2];
  if (c.op == BP_OP_CONV) x = &c.inputs[0], w = &c.inputs[1], y = &c.output;
  else if (c.op == BP_OP_CONV_TRANSPOSE) y = &c.inputs[0], w = &c.inputs[1], x = &c.output;
  else x = &c.inputs[0], y = &c.inputs[1], w = &c.output;
  // |v[a, b, spatial...]| of an input.
  auto magnitude = [&](const ViewDesc *v, int64_t a, int64_t b2, const int64_t *spatial) {
    int64_t idx[BP_MAX_RANK] = {a, b2};
    for (int i = 0; i < g.rank; ++i) idx[2 + i] = spatial[i];
    return std::fabs(load_double(v->dtype, c.storages[size_t(v->storage)].data() + byte_at(*v, idx)));
  };
  const int r = g.rank;
  const int64_t in_g = g.c_in / g.groups, out_g = g.c_out / g.groups;
  for_each_index(c.output, [&](const int64_t *idx, int64_t pos) {
    double total = 0;
    int64_t count = 0;
    int64_t k[BP_WINDOW_MAX_RANK] = {}, o[BP_WINDOW_MAX_RANK] = {}, p[BP_WINDOW_MAX_RANK] = {};
    auto window_ok = [&]() {  // p from o and k, inside x
      for (int i = 0; i < r; ++i) {
        p[i] = o[i] * g.stride[i] - g.pad_begin[i] + k[i] * g.dilation[i];
        if (p[i] < 0 || p[i] >= g.in[i]) return false;
      }
      return true;
    };
    if (c.op == BP_OP_CONV) {
      const int64_t n = idx[0], co = idx[1];
      for (int i = 0; i < r; ++i) o[i] = idx[2 + i];
      if (bias) total += std::fabs(load_double(bias->dtype, c.storages[size_t(bias->storage)].data() + byte_at(*bias, &co))), ++count;
      for (int64_t ci = 0; ci < in_g; ++ci) {
        std::fill(k, k + BP_WINDOW_MAX_RANK, 0);
        do {
          if (!window_ok()) continue;
          total += magnitude(x, n, co / out_g * in_g + ci, p) * magnitude(w, co, ci, k);
          ++count;
        } while (next(k, g.kernel, r));
      }
    } else if (c.op == BP_OP_CONV_TRANSPOSE) {
      const int64_t n = idx[0], ch = idx[1], grp = ch / in_g;
      for (int i = 0; i < r; ++i) p[i] = idx[2 + i];
      if (bias) total += std::fabs(load_double(bias->dtype, c.storages[size_t(bias->storage)].data() + byte_at(*bias, &ch))), ++count;
      for (int64_t co = grp * out_g; co < (grp + 1) * out_g; ++co) {
        std::fill(k, k + BP_WINDOW_MAX_RANK, 0);
        do {
          bool ok = true;
          for (int i = 0; i < r && ok; ++i) {
            const int64_t t = p[i] + g.pad_begin[i] - k[i] * g.dilation[i];
            ok = t >= 0 && t % g.stride[i] == 0 && t / g.stride[i] < g.out[i];
            if (ok) o[i] = t / g.stride[i];
          }
          if (!ok) continue;
          total += magnitude(y, n, co, o) * magnitude(w, co, ch - grp * in_g, k);
          ++count;
        } while (next(k, g.kernel, r));
      }
    } else {
      const int64_t co = idx[0], ci = idx[1];
      for (int i = 0; i < r; ++i) k[i] = idx[2 + i];
      for (int64_t n = 0; n < g.n; ++n) {
        std::fill(o, o + BP_WINDOW_MAX_RANK, 0);
        do {
          if (!window_ok()) continue;
          total += magnitude(y, n, co, o) * magnitude(x, n, co / out_g * in_g + ci, p);
          ++count;
        } while (next(o, g.out, r));
      }
    }
    sum[size_t(pos)] = total;
    terms[size_t(pos)] = count;
  });
}

}  // namespace bpcheck
