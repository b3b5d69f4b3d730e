// The operators of ABI 1.1 on the CUDA plugin that families_test.cpp (the
// shared comparisons of tests/support/family_checks.hpp) does not reach:
// bitwise on bool against the reference (the arithmetic tests cover the
// integers), index rows outside their axis, which a device backend skips
// (plugin.h) while the other rows still move, and scatter_add_nd's atomics
// with every row on one element.
#include <random>

#include "cuda_test.hpp"

using namespace cuda_test;

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

TEST_CASE("cuda: scatter_add_nd counts every one of a million rows naming one element", "[cuda][scatter]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const int64_t n = int64_t(1) << 20;
  const bp_plugin_tensor index = s.tensor<int64_t>({n, 1}, std::vector<int64_t>(size_t(n), 1));
  // Sums of ones are exact in every dtype up to 2^24: a lost update shows.
  const bp_plugin_tensor ints = s.tensor<int64_t>({3}, {5, 5, 5});
  s.exec(BP_OP_SCATTER_ADD_ND, {index, s.tensor<int64_t>({n}, std::vector<int64_t>(size_t(n), 1))}, ints);
  check_values(s.values<int64_t>(ints), std::vector<int64_t>{5, 5 + n, 5});
  const bp_plugin_tensor floats = s.tensor<float>({3}, {0, 0.5f, 0});
  s.exec(BP_OP_SCATTER_ADD_ND, {index, s.tensor<float>({n}, std::vector<float>(size_t(n), 1.0f))}, floats);
  check_values(s.values<float>(floats), std::vector<float>{0, float(n) + 0.5f, 0});
}
