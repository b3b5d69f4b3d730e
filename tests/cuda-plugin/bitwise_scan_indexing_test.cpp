// The operators of ABI 1.1 on the CUDA plugin against the reference plugin:
// bitwise on bool (the arithmetic tests cover the integers), CUMSUM on every
// layout, short and long lines, GATHER_ND and SCATTER_ND on strided views
// large enough for the grid-stride loops, and index rows outside their axis,
// which a device backend skips (plugin.h) while the other rows still move.
#include <algorithm>
#include <random>

#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

// Float prefix sums may differ from the reference's (essentially exact) ones
// by the rounding of a sum in float64 (plugin.h, Accumulation), over lines
// of up to 100000 terms.
Tolerance cumsum_tolerance(bp_dtype dtype) {
  if (dtype == BP_FLOAT32) return {1e-5, 1e-6};
  if (dtype == BP_FLOAT64) return {1e-12, 1e-9};
  return kExact;
}

// An int64 index tensor of `layout` (shape [N, k]) holding rows[n][j] at [n, j].
Tensor index_tensor(const Layout &layout, const std::vector<std::vector<int64_t>> &rows) {
  Tensor t{BP_INT64, layout, Bytes(static_cast<size_t>(layout.buffer_elements) * sizeof(int64_t))};
  for (size_t n = 0; n < rows.size(); ++n)
    for (size_t j = 0; j < rows[n].size(); ++j)
      put(t.bytes, layout.offset + int64_t(n) * layout.strides[0] + int64_t(j) * layout.strides[1], rows[n][j]);
  return t;
}

// `count` distinct positions over the first k axes of `shape`, in random order.
std::vector<std::vector<int64_t>> distinct_rows(const Shape &shape, size_t k, size_t count, std::mt19937_64 &rng) {
  std::vector<std::vector<int64_t>> all(1);
  for (size_t d = 0; d < k; ++d) {
    std::vector<std::vector<int64_t>> longer;
    for (const auto &prefix : all)
      for (int64_t i = 0; i < shape[d]; ++i) {
        longer.push_back(prefix);
        longer.back().push_back(i);
      }
    all = longer;
  }
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min(count, all.size()));
  return all;
}

}  // namespace

TEST_CASE("cuda: bitwise operators on bool match the reference", "[cuda][bitwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(31);
  for (bp_op op : {BP_OP_BITWISE_AND, BP_OP_BITWISE_OR, BP_OP_BITWISE_XOR}) {
    for (const Shape &shape : elementwise_shapes()) {
      const std::vector<Layout> layouts = input_layouts(shape);
      for (size_t i = 0; i < layouts.size(); ++i) {
        INFO(op_name(op) << ", shape " << shape_text(shape) << ", a " << layouts[i].name);
        pair.check(op, attrs(),
                   {random_tensor(BP_BOOL, layouts[i], rng),
                    random_tensor(BP_BOOL, layouts[(i + 1) % layouts.size()], rng)},
                   BP_BOOL, output_layouts(shape)[i % 3], kExact);
      }
    }
  }
  for (const Shape &shape : elementwise_shapes()) {
    for (const Layout &in : input_layouts(shape)) {
      INFO("bitwise_not, shape " << shape_text(shape) << ", in " << in.name);
      pair.check(BP_OP_BITWISE_NOT, attrs(), {random_tensor(BP_BOOL, in, rng)}, BP_BOOL, transposed(shape), kExact);
    }
  }
  bp_op_attrs scalar = attrs();
  scalar.scalar_mode = BP_SCALAR_LHS;
  scalar.scalar = 1;
  pair.check(BP_OP_BITWISE_XOR, scalar, {random_tensor(BP_BOOL, dense({9, 13}), rng)}, BP_BOOL, dense({9, 13}),
             kExact);
}

TEST_CASE("cuda: cumsum matches the reference for every dtype and layout", "[cuda][scan]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(32);
  for (bp_dtype dtype : kAllTypes) {
    const bp_dtype out = out_dtype(BP_OP_CUMSUM, dtype);
    for (const Shape &shape : {Shape{7, 5}, Shape{3, 4, 5}, Shape{1}, Shape{0, 3}, Shape{3, 0}, Shape{300, 257},
                               Shape{2, 1, 3, 1, 2, 3, 1, 2}, Shape{1, 100000}, Shape{200000, 3}}) {
      const std::vector<Layout> inputs = input_layouts(shape), outputs = output_layouts(shape);
      for (size_t i = 0; i < inputs.size(); ++i) {
        INFO(dtype_name(dtype) << ", shape " << shape_text(shape) << ", in " << inputs[i].name);
        // Floats without NaN, which would swallow the rest of a long line;
        // integers over their whole range, so that sums wrap.
        const Values values = is_float(dtype) ? Values::moderate : Values::general;
        pair.check(BP_OP_CUMSUM, attrs(), {random_tensor(dtype, inputs[i], rng, values)}, out,
                   outputs[i % outputs.size()], cumsum_tolerance(out));
      }
    }
  }
}

TEST_CASE("cuda: gather_nd and scatter_nd match the reference on strided views", "[cuda][gather][scatter]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(33);
  for (bp_dtype dtype : kAllTypes) {
    for (const Shape &shape : {Shape{6, 5, 4}, Shape{300, 2000}}) {
      for (size_t k = 1; k <= shape.size(); ++k) {
        const Shape slice(shape.begin() + static_cast<std::ptrdiff_t>(k), shape.end());
        const std::vector<std::vector<int64_t>> rows = distinct_rows(shape, k, 150, rng);
        Shape rows_shape = {int64_t(rows.size())};
        rows_shape.insert(rows_shape.end(), slice.begin(), slice.end());
        const Shape index_shape = {int64_t(rows.size()), int64_t(k)};
        for (const Layout &index : {dense(index_shape), transposed(index_shape)}) {
          INFO(dtype_name(dtype) << ", shape " << shape_text(shape) << ", k " << k << ", index " << index.name);
          const Tensor idx = index_tensor(index, rows);
          for (const Layout &data : {dense(shape), transposed(shape), spaced(shape)})
            pair.check(BP_OP_GATHER_ND, attrs(), {random_tensor(dtype, data, rng), idx}, dtype,
                       index.name == "dense" ? spaced(rows_shape) : transposed(rows_shape), kExact);
          for (const Layout &values : {dense(rows_shape), transposed(rows_shape)})
            for (const Layout &out : output_layouts(shape))
              pair.check(BP_OP_SCATTER_ND, attrs(), {idx, random_tensor(dtype, values, rng)}, dtype, out, kExact);
        }
      }
    }
  }
}

TEST_CASE("cuda: index rows outside their axis are skipped, the others still move", "[cuda][gather][scatter]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const bp_plugin_tensor data = s.tensor<int32_t>({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const bp_plugin_tensor index = s.tensor<int64_t>({4, 1}, {2, 4, -1, 0});
  const bp_plugin_tensor rows = s.tensor<int32_t>({4, 2}, {9, 9, 9, 9, 9, 9, 9, 9});
  s.exec(BP_OP_GATHER_ND, {data, index}, rows);
  const std::vector<int32_t> got = s.values<int32_t>(rows);
  CHECK(got[0] == 4);
  CHECK(got[1] == 5);
  CHECK(got[6] == 0);
  CHECK(got[7] == 1);

  s.exec(BP_OP_SCATTER_ND, {index, s.tensor<int32_t>({4, 2}, {-1, -2, -3, -4, -5, -6, -7, -8})}, data);
  check_values(s.values<int32_t>(data), std::vector<int32_t>{-7, -8, 2, 3, -1, -2, 6, 7});
}
