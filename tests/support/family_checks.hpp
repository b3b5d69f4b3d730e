// Comparisons with the reference plugin for the families ABI 1.1 added,
// which the elementwise, reduction and matmul tests do not reach, and
// TOPK (since 1.6): every operator of SCAN, GATHER and SCATTER (ops_in),
// and TOPK with both of its outputs, for every dtype it is
// defined for and the plugin implements, through dense, transposed, strided
// and broadcast views, with ranks 1 to 4, empty tensors and sizes large
// enough for threads and grids.
// Each backend's plugin tests call them with the plugin under test and one
// of its devices (the GPU tests skip first when there is none).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "plugin_harness.hpp"

namespace bp_test {

// The dtypes `op` is defined for that `plugin` implements on `device` (a
// device may lack float64); at least one, since every backend implements
// these families.
inline std::vector<bp_dtype> declared_dtypes(const PluginHandle &plugin, int32_t device, bp_op op) {
  std::vector<bp_dtype> declared;
  for (bp_dtype d : dtypes_in(bp_vocab_op_dtypes(op)))
    if (supported(plugin, op, d, out_dtype(op, d), device)) declared.push_back(d);
  INFO(plugin.api().name << " implements " << op_name(op) << " for no dtype");
  CHECK(!declared.empty());
  return declared;
}

// ---- index rows ---------------------------------------------------------

// The shape of n rows of `indexed` past its first k axes: [n, indexed[k], ...].
inline Shape rows_shape(const Shape &indexed, size_t k, int64_t n) {
  Shape rows = {n};
  rows.insert(rows.end(), indexed.begin() + static_cast<std::ptrdiff_t>(k), indexed.end());
  return rows;
}

// An int64 index [n, k] of `layout` whose rows name positions inside the
// first k axes of `indexed`: drawn with repeats, or `distinct` (a scatter's
// result is defined only then; n must not exceed the positions there are).
// Valid index data, never random bits; the buffer's elements outside the
// view are -1, so a plugin that reads past the index's strides meets an
// index outside its axis.
inline Tensor index_tensor(const Shape &indexed, size_t k, int64_t n, bool distinct, const Layout &layout,
                           std::mt19937_64 &rng) {
  int64_t positions = 1;
  for (size_t d = 0; d < k; ++d) positions *= indexed[d];
  std::vector<int64_t> rows(static_cast<size_t>(n));
  if (distinct) {
    std::vector<int64_t> all(static_cast<size_t>(positions));
    std::iota(all.begin(), all.end(), int64_t{0});
    std::shuffle(all.begin(), all.end(), rng);
    std::copy(all.begin(), all.begin() + n, rows.begin());
  } else {
    for (int64_t &r : rows) r = std::uniform_int_distribution<int64_t>(0, positions - 1)(rng);
  }
  Tensor t{BP_INT64, layout, Bytes(static_cast<size_t>(layout.buffer_elements) * sizeof(int64_t))};
  for (int64_t i = 0; i < layout.buffer_elements; ++i) put<int64_t>(t.bytes, i, -1);
  for (int64_t r = 0; r < n; ++r) {
    int64_t p = rows[static_cast<size_t>(r)];
    for (size_t d = k; d-- > 0;) {
      put<int64_t>(t.bytes, layout.offset + r * layout.strides[0] + static_cast<int64_t>(d) * layout.strides[1],
                   p % indexed[d]);
      p /= indexed[d];
    }
  }
  return t;
}

// The layouts of an index [n, k]: dense, transposed and every other element.
inline std::vector<Layout> index_layouts(int64_t n, size_t k) {
  const Shape shape = {n, static_cast<int64_t>(k)};
  return {dense(shape), transposed(shape), spaced(shape)};
}

// Calls f(layout, index, out) for each layout of `varied` (a gather's data,
// a scatter's values), with the index and output layouts taking turns
// across the calls of one operator and dtype (`turn` counts them).
template <class F>
void with_index_layouts(const std::vector<Layout> &varied, int64_t n, size_t k, const std::vector<Layout> &outs,
                        size_t &turn, F &&f) {
  const std::vector<Layout> indices = index_layouts(n, k);
  for (const Layout &layout : varied) {
    f(layout, indices[turn % indices.size()], outs[turn % outs.size()]);
    ++turn;
  }
}

// One case of the GATHER or SCATTER family: n index rows of length k into
// `indexed` (a gather's data, a scatter's output).
struct IndexCase {
  Shape indexed;
  size_t k;
  int64_t n;
  // Scatters piling many terms onto each element: ordinary values only
  // (among hundreds of terms, NaN and infinities would make nearly every
  // sum NaN).
  bool piled = false;
  // The positions inside the first k axes.
  int64_t positions() const {
    int64_t p = 1;
    for (size_t d = 0; d < k; ++d) p *= indexed[d];
    return p;
  }
};

// The shapes of the tensors indexed (a gather's data, a scatter's output).
inline std::vector<Shape> indexed_shapes() { return {{17}, {5, 7}, {2, 3, 4}, {2, 3, 2, 5}}; }

// ---- scans --------------------------------------------------------------

// Float running sums differ by rounding: a few units of the sum of the
// magnitudes of a row's terms (plugin.h, Accumulation), here at most
// `length` terms of magnitude up to 3 (Values::general and small).
inline Tolerance scan_tolerance(int32_t dtype, int64_t length) {
  return table_tolerance(TestBound::scan, dtype, static_cast<double>(std::max<int64_t>(length, 1)));
}

// Every scan operator and dtype along the last axis: every input layout of
// input_layouts() (broadcast included) into dense, transposed and spaced
// outputs, so the scan axis is inner, outer and strided on either side.
inline void check_scans(const PluginHandle &plugin, int32_t device, const PluginHandle &ref,
                        std::mt19937_64 &rng) {
  const std::vector<Shape> shapes = {{17}, {5, 7}, {3, 4, 5}, {2, 3, 2, 5}, {1}, {0, 4}, {4, 0}, {3, 20000}, {20000, 3}};
  for (bp_op op : ops_in(BP_OP_FAMILY_SCAN))
    for (bp_dtype dtype : declared_dtypes(plugin, device, op)) {
      const bp_dtype out = out_dtype(op, dtype);
      for (const Shape &shape : shapes) {
        // NaN and infinities only in small inputs, where they do not swamp every row.
        const Values values = numel(shape) > 1000 ? Values::small : Values::general;
        const std::vector<Layout> ins = input_layouts(shape), outs = output_layouts(shape);
        for (size_t i = 0; i < ins.size(); ++i) {
          INFO(op_name(op) << " " << dtype_name(dtype) << ", shape " << shape_text(shape) << ", in " << ins[i].name);
          check_against(plugin, device, ref, op, default_attrs(), {random_tensor(dtype, ins[i], rng, values)}, out,
                        outs[i % outs.size()], scan_tolerance(out, shape.back()));
        }
      }
    }
}

// ---- gathers ------------------------------------------------------------

// Every gather operator and dtype: index rows of every length k (more rows
// than positions, so rows repeat), N = 0, rows without elements, a large
// gather; data, index and output views cycling through their layouts.
inline void check_gathers(const PluginHandle &plugin, int32_t device, const PluginHandle &ref,
                          std::mt19937_64 &rng) {
  std::vector<IndexCase> gathers;
  for (const Shape &data : indexed_shapes())
    for (size_t k = 1; k <= data.size(); ++k) gathers.push_back({data, k, 9});
  gathers.push_back({{5, 7}, 1, 0});
  gathers.push_back({{4, 0}, 1, 3});
  gathers.push_back({{400, 250}, 1, 1000});
  for (bp_op op : ops_in(BP_OP_FAMILY_GATHER))
    for (bp_dtype dtype : declared_dtypes(plugin, device, op)) {
      size_t turn = 0;
      for (const IndexCase &g : gathers) {
        const Shape rows = rows_shape(g.indexed, g.k, g.n);
        with_index_layouts(input_layouts(g.indexed), g.n, g.k, output_layouts(rows), turn,
                           [&](const Layout &data, const Layout &index, const Layout &out) {
          INFO(op_name(op) << " " << dtype_name(dtype) << ", data " << data.describe() << ", index "
                           << index.describe());
          check_against(plugin, device, ref, op, default_attrs(),
                        {random_tensor(dtype, data, rng), index_tensor(g.indexed, g.k, g.n, false, index, rng)},
                        out_dtype(op, dtype), out, kExact);
        });
      }
    }
}

// ---- scatters -----------------------------------------------------------

// Whether index rows that repeat have one answer whatever their values:
// SCATTER_ADD_ND adds them all; SCATTER_ND keeps one of them (plugin.h).
inline bool repeats_defined(bp_op op) { return op == BP_OP_SCATTER_ADD_ND; }

// SCATTER_ND moves values: bit for bit. SCATTER_ADD_ND sums an element's
// old value and the values added into it (plugin.h, Accumulation), of
// magnitude up to 3, possibly in the output's dtype (GPU atomics), one term
// after another: each of the t additions is off by at most half an epsilon
// of a partial sum, itself at most 3 * (t + 1). n rows drawn uniformly over
// `positions` put fewer than mean + 4 sqrt(mean) + 8 terms on any element.
inline Tolerance scatter_tolerance(bp_op op, int32_t dtype, int64_t n, int64_t positions) {
  if (op != BP_OP_SCATTER_ADD_ND) return kExact;
  const double mean = double(n) / double(std::max<int64_t>(positions, 1));
  const double terms = mean + 4 * std::sqrt(mean) + 8;
  return table_tolerance(TestBound::scatter_add, dtype, terms * (terms + 1));
}

// Every scatter operator and dtype, into an output that starts with known
// values (the elements no index row names keep them): index rows of every
// length k, N = 0, rows without elements, a large scatter, and repeated
// rows whose values agree (values broadcast along N); output, index and
// values views cycling through their layouts. Rows are distinct (naming
// half of the positions or all of them) where repeats are undefined; where
// they are defined (SCATTER_ADD_ND) they are drawn with repeats, and more
// rows than positions pile many terms onto each element.
inline void check_scatters(const PluginHandle &plugin, int32_t device, const PluginHandle &ref,
                           std::mt19937_64 &rng) {
  std::vector<IndexCase> scatters, piled;
  for (const Shape &out : indexed_shapes())
    for (size_t k = 1; k <= out.size(); ++k) {
      const IndexCase s{out, k, 0, false};
      scatters.push_back({out, k, (s.positions() + 1) / 2, false});
      scatters.push_back({out, k, s.positions(), false});
      piled.push_back({out, k, 8 * s.positions(), true});
    }
  scatters.push_back({{5, 7}, 1, 0, false});
  scatters.push_back({{4, 0}, 1, 2, false});
  scatters.push_back({{400, 250}, 1, 200, false});
  piled.push_back({{40, 250}, 1, 4000, true});  // rows of many elements, about 100 terms each
  piled.push_back({{512}, 1, 20000, true});     // single elements, about 40 terms each, contended
  for (bp_op op : ops_in(BP_OP_FAMILY_SCATTER)) {
    std::vector<IndexCase> cases = scatters;
    if (repeats_defined(op)) cases.insert(cases.end(), piled.begin(), piled.end());
    for (bp_dtype dtype : declared_dtypes(plugin, device, op)) {
      const bp_dtype out_type = out_dtype(op, dtype);
      size_t turn = 0;
      for (const IndexCase &s : cases) {
        const Shape rows = rows_shape(s.indexed, s.k, s.n);
        with_index_layouts(input_layouts(rows), s.n, s.k, output_layouts(s.indexed), turn,
                           [&](const Layout &values, const Layout &index, const Layout &out) {
          // Values broadcast along N make every row the same: then repeated
          // index rows have one answer for every operator.
          const bool repeats = values.strides[0] == 0 || repeats_defined(op);
          INFO(op_name(op) << " " << dtype_name(dtype) << ", " << s.n << " rows, values " << values.describe()
                           << ", index " << index.describe() << (repeats ? ", repeated rows" : ""));
          check_against(plugin, device, ref, op, default_attrs(),
                        {index_tensor(s.indexed, s.k, s.n, !repeats, index, rng),
                         random_tensor(dtype, values, rng, s.piled ? Values::moderate : Values::general)},
                        random_tensor(out_type, out, rng), scatter_tolerance(op, out_type, s.n, s.positions()));
        });
      }
    }
  }
}

// ---- top-k (since 1.6) ----------------------------------------------------

// Both outputs of TOPK on `p`'s `device`: the values' and the indices' whole
// buffers (their sentinel bytes included), after a call that must succeed.
struct TopkBuffers {
  Bytes values, indices;
};
inline TopkBuffers run_topk(const PluginHandle &p, int32_t device, bool largest, const Tensor &in,
                            const Tensor &values, const Tensor &indices) {
  Buffers buffers(p, device);
  const bp_plugin_tensor x = buffers.view(in);
  const bp_plugin_tensor outputs[2] = {buffers.view(values), buffers.view(indices)};
  bp_op_attrs attrs = default_attrs();
  attrs.option = largest ? BP_OPTION_LARGEST : 0;
  const bp_status status = p.api().execute(device, BP_OP_TOPK, &attrs, &x, 1, outputs);
  INFO(p.api().name << ": execute failed: " << (status == BP_OK ? "" : buffers.error()));
  REQUIRE(status == BP_OK);
  return {p.download<uint8_t>(outputs[0].buffer, values.bytes.size()),
          p.download<uint8_t>(outputs[1].buffer, indices.bytes.size())};
}

// Every dtype of TOPK in both directions, k from 0 to n, through every
// input layout of input_layouts() (broadcast along the rows: nothing but
// ties) into dense, transposed and spaced outputs; floats with NaN,
// infinities and signed zeros, rounded to halves in every other case so
// that rows tie, integers from a few values. plugin.h fixes every bit: both
// outputs must be the reference's exactly.
inline void check_topks(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, std::mt19937_64 &rng) {
  const std::vector<Shape> shapes = {{17}, {5, 7}, {3, 4, 5}, {2, 3, 2, 5}, {1}, {0, 4}, {4, 0}, {3, 5000}, {3000, 3}};
  for (bp_dtype dtype : declared_dtypes(plugin, device, BP_OP_TOPK))
    for (const Shape &shape : shapes) {
      const int64_t n = shape.back();
      const std::vector<int64_t> ks = {std::min<int64_t>(1, n), n / 3, n, 0};
      const std::vector<Layout> ins = input_layouts(shape);
      for (size_t i = 0; i < ins.size(); ++i)
        for (bool largest : {false, true}) {
          const int64_t k = ks[(2 * i + (largest ? 1 : 0)) % ks.size()];
          Shape selected = shape;
          selected.back() = k;
          const Layout out = output_layouts(selected)[i % 3];
          Tensor x = random_tensor(dtype, ins[i], rng, is_float(dtype) ? Values::general : Values::small);
          if (is_float(dtype) && i % 2 == 1)
            for (int64_t e = 0; e < ins[i].buffer_elements; ++e) {
              const double v = element(dtype, x.bytes, e);
              if (!std::isnan(v)) put_as(dtype, x.bytes, e, std::round(2 * v) / 2, 0);
            }
          INFO("topk " << dtype_name(dtype) << (largest ? ", largest" : ", smallest") << " k " << k << ", in "
                       << ins[i].describe() << ", out " << out.describe());
          const Tensor values = sentinel_output(dtype, out), indices = sentinel_output(BP_INT64, out);
          const TopkBuffers got = run_topk(plugin, device, largest, x, values, indices);
          const TopkBuffers want = run_topk(ref, 0, largest, x, values, indices);
          check_buffers(dtype, got.values, want.values, kExact, plugin.api().name);
          check_buffers(BP_INT64, got.indices, want.indices, kExact, plugin.api().name);
        }
    }
}

}  // namespace bp_test
