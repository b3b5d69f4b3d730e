// Comparisons with the reference plugin for the SOFTMAX family (ABI 1.6):
// softmax and log_softmax for every float dtype the plugin implements,
// along the last axis of dense, transposed, strided and broadcast views
// into dense, transposed and strided outputs, ranks 1 to 4, empty tensors
// and rows, rows of one element, row lengths around the vector widths, one
// past a warp's kernel (1024), rows long enough for threads and work-groups,
// in place, and the rows plugin.h singles out (the largest values, -inf,
// +inf and NaN, rows wide enough that softmax underflows). A float32
// output past the caches (cpu-openblas streams it) is compared too.
// Each backend's plugin tests call it with the plugin under test and one of
// its devices (the GPU tests skip first when there is none).
#pragma once

#include <limits>

#include "family_checks.hpp"

namespace bp_test {

// A dense tensor of `shape` whose element i is value(i).
template <class F>
Tensor softmax_rows(bp_dtype dtype, const Shape &shape, F &&value) {
  const Layout layout = dense(shape);
  Tensor t{dtype, layout, Bytes(static_cast<size_t>(layout.buffer_elements * dtype_size(dtype)))};
  for (int64_t i = 0; i < layout.buffer_elements; ++i) put_as(dtype, t.bytes, i, value(i), 0);
  return t;
}

// op with the output the input's very view (in place); the buffer after it.
inline Bytes softmax_in_place(const PluginHandle &p, int32_t device, int32_t op, const Tensor &x) {
  Buffers buffers(p, device);
  const bp_plugin_tensor v = buffers.view(x);
  buffers.exec(op, {v}, v, default_attrs());
  return p.download<uint8_t>(v.buffer, x.bytes.size());
}

// The largest finite value of a float dtype.
inline double largest_of(bp_dtype dtype) {
  switch (dtype) {
    case BP_FLOAT16: return 65504.0;
    case BP_BFLOAT16: return 0x1.fep127;
    case BP_FLOAT64: return std::numeric_limits<double>::max();
    default: return std::numeric_limits<float>::max();
  }
}

inline void check_softmax(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, std::mt19937_64 &rng) {
  const std::vector<Shape> shapes = {{17}, {5, 7}, {3, 4, 5}, {2, 3, 2, 5}, {1}, {6, 1}, {0, 4}, {4, 0},
                                     {3, 15}, {3, 33}, {2, 1025}, {4, 3000}, {2000, 3}};
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (bp_op op : ops_in(BP_OP_FAMILY_SOFTMAX))
    for (bp_dtype dtype : declared_dtypes(plugin, device, op)) {
      const Tolerance tol = table_tolerance(TestBound::softmax, dtype);
      for (const Shape &shape : shapes) {
        const std::vector<Layout> ins = input_layouts(shape), outs = output_layouts(shape);
        for (size_t i = 0; i < ins.size(); ++i) {
          INFO(op_name(op) << " " << dtype_name(dtype) << ", shape " << shape_text(shape) << ", in " << ins[i].name);
          check_against(plugin, device, ref, op, default_attrs(), {random_tensor(dtype, ins[i], rng, Values::general)},
                        dtype, outs[i % outs.size()], tol);
        }
      }
      // The rows plugin.h names: the largest values (of either sign, beside
      // 0), only -inf, -inf among numbers, a +inf, a NaN, and a wide row.
      const double big = largest_of(dtype), spread = dtype == BP_FLOAT16 ? 1000.0 : 4000.0;
      const int64_t n = 37;
      const Tensor special = softmax_rows(dtype, {7, n}, [&](int64_t i) {
        const int64_t r = i / n, j = i % n;
        switch (r) {
          case 0: return j % 2 ? big : big / 2;
          case 1: return j % 3 == 0 ? big : j % 3 == 1 ? -big : 0.0;
          case 2: return -inf;
          case 3: return j % 4 == 0 ? -inf : double(j) / 8;
          case 4: return j == 5 ? inf : double(j);
          case 5: return j == 30 ? nan : -double(j);
          default: return -spread * double((j * 11) % n) / double(n - 1);
        }
      });
      INFO(op_name(op) << " " << dtype_name(dtype) << ", special rows");
      check_against(plugin, device, ref, op, default_attrs(), {special}, dtype, dense({7, n}), tol);
      // In place: the output is the input's very view.
      const Tensor x = random_tensor(dtype, dense({9, 70}), rng, Values::small);
      check_buffers(dtype, softmax_in_place(plugin, device, op, x), softmax_in_place(ref, 0, op, x), tol,
                    plugin.api().name);
    }
  // Past the caches: 4.2 MB of float32 (cpu-openblas writes such an output
  // with non-temporal stores), rows a few elements off 1024 so that most
  // start off a vector boundary.
  for (bp_op op : ops_in(BP_OP_FAMILY_SOFTMAX)) {
    if (!supported(plugin, op, BP_FLOAT32, BP_FLOAT32, device)) continue;
    INFO(op_name(op) << " float32 [1031, 1021]");
    check_against(plugin, device, ref, op, default_attrs(),
                  {random_tensor(BP_FLOAT32, dense({1031, 1021}), rng, Values::small)}, BP_FLOAT32, dense({1031, 1021}),
                  table_tolerance(TestBound::softmax, BP_FLOAT32));
  }
}

}  // namespace bp_test
