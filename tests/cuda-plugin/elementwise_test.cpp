// Elementwise operators of the CUDA plugin against the reference plugin:
// every operator and dtype, dense, transposed, strided and broadcast inputs,
// strided outputs, scalar operands, in-place updates, rank 0 to 8, empty
// tensors, and sizes that need the kernels' grid-stride loops.
#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

const std::vector<bp_op> kArithmetic = ops_in(BP_OP_FAMILY_BINARY);
const std::vector<bp_op> kComparisons = ops_in(BP_OP_FAMILY_COMPARE);
const std::vector<bp_op> kUnary = ops_in(BP_OP_FAMILY_UNARY);

// Runs a binary operator over every shape and layout combination.
void check_binary(Pair &pair, std::mt19937_64 &rng, bp_op op, bp_dtype dtype, bp_dtype out_dtype, Values a_values,
                  Values b_values) {
  for (const Shape &shape : elementwise_shapes(true)) {
    const std::vector<Layout> layouts = input_layouts(shape);
    const std::vector<Layout> outs = output_layouts(shape);
    for (size_t i = 0; i < layouts.size(); ++i) {
      const Layout &a_layout = layouts[i], &b_layout = layouts[(i + 1) % layouts.size()];
      const Layout &out_layout = outs[i % outs.size()];
      INFO("shape " << shape_text(shape) << ", a " << a_layout.name << ", b " << b_layout.name << ", out "
                    << out_layout.name);
      pair.check(op, attrs(),
                 {random_tensor(dtype, a_layout, rng, a_values), random_tensor(dtype, b_layout, rng, b_values)},
                 out_dtype, out_layout, default_tolerance(out_dtype));
    }
  }
}

// Runs op once per input layout of each shape: input k (of in_dtypes[k],
// with `values`) takes the layout k places further round the list, the
// output one of the output layouts.
void check_each_layout(Pair &pair, std::mt19937_64 &rng, bp_op op, const std::vector<bp_dtype> &in_dtypes,
                       Values values, bp_dtype out_dtype, const std::vector<Shape> &shapes, const std::string &what) {
  for (const Shape &shape : shapes) {
    const std::vector<Layout> layouts = input_layouts(shape);
    for (size_t i = 0; i < layouts.size(); ++i) {
      INFO(what << ", shape " << shape_text(shape) << ", input 0 " << layouts[i].name);
      std::vector<Tensor> inputs;
      for (size_t k = 0; k < in_dtypes.size(); ++k)
        inputs.push_back(random_tensor(in_dtypes[k], layouts[(i + k) % layouts.size()], rng, values));
      pair.check(op, attrs(), inputs, out_dtype, output_layouts(shape)[i % 3], default_tolerance(out_dtype));
    }
  }
}

}  // namespace

TEST_CASE("cuda: arithmetic operators match the reference", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(11);
  for (bp_op op : kArithmetic) {
    for (bp_dtype dtype : kNumericTypes) {
      if (!defined_for(op, dtype)) continue;
      INFO(op_name(op) << " " << dtype_name(dtype));
      const bool pow = op == BP_OP_POW;
      // Integer POW with small bases and exponents in [-3, 9]: exact, wrapping only at the edges.
      const Values a_values = pow && !is_float(dtype) ? Values::small : Values::general;
      const Values b_values = pow ? Values::exponent : Values::general;
      check_binary(pair, rng, op, dtype, dtype, a_values, b_values);
    }
  }
}

TEST_CASE("cuda: comparisons match the reference for every dtype", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(12);
  for (bp_op op : kComparisons) {
    for (bp_dtype dtype : kAllTypes) {
      INFO(op_name(op) << " " << dtype_name(dtype));
      check_binary(pair, rng, op, dtype, BP_BOOL, Values::general, Values::general);
    }
  }
}

TEST_CASE("cuda: a scalar operand on either side matches the reference", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(13);
  const Shape shape{9, 13};
  for (bp_op op : kArithmetic) {
    for (bp_dtype dtype : kNumericTypes) {
      if (!defined_for(op, dtype)) continue;
      for (bp_scalar_mode mode : {BP_SCALAR_RHS, BP_SCALAR_LHS}) {
        for (double scalar : {2.5, -1.0, 0.0, 3.0}) {
          INFO(op_name(op) << " " << dtype_name(dtype) << ", scalar " << scalar
                       << (mode == BP_SCALAR_RHS ? " on the right" : " on the left"));
          bp_op_attrs a = attrs();
          a.scalar_mode = mode;
          a.scalar = scalar;
          const Values values = op == BP_OP_POW && !is_float(dtype) ? Values::small : Values::general;
          pair.check(op, a, {random_tensor(dtype, spaced(shape), rng, values)}, dtype, transposed(shape),
                     default_tolerance(dtype));
        }
      }
    }
  }
  for (bp_op op : kComparisons) {
    for (bp_dtype dtype : kAllTypes) {
      INFO(op_name(op) << " " << dtype_name(dtype) << " with a scalar");
      bp_op_attrs a = attrs();
      a.scalar_mode = BP_SCALAR_LHS;
      a.scalar = 1.0;
      pair.check(op, a, {random_tensor(dtype, dense(shape), rng)}, BP_BOOL, dense(shape),
                 default_tolerance(BP_BOOL));
    }
  }
}

TEST_CASE("cuda: where matches the reference for every dtype", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(14);
  for (bp_dtype dtype : kAllTypes)
    check_each_layout(pair, rng, BP_OP_WHERE, {BP_BOOL, dtype, dtype}, Values::general, dtype, elementwise_shapes(true),
                      dtype_name(dtype));
}

TEST_CASE("cuda: unary operators match the reference", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(15);
  for (bp_op op : kUnary)
    for (bp_dtype dtype : kNumericTypes)
      if (defined_for(op, dtype))
        check_each_layout(pair, rng, op, {dtype}, Values::general, out_dtype(op, dtype), elementwise_shapes(true),
                          std::string(op_name(op)) + " " + dtype_name(dtype));
}

TEST_CASE("cuda: copy converts between every pair of dtypes like the reference", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(16);
  for (bp_dtype from : kAllTypes) {
    for (bp_dtype to : kAllTypes) {
      // Float to integer of a value out of range (or NaN) is unspecified.
      const Values values = is_float(from) && !is_float(to) && to != BP_BOOL ? Values::small : Values::general;
      check_each_layout(pair, rng, BP_OP_COPY, {from}, values, to, {Shape{7, 5}, Shape{}, Shape{4, 3, 2}, Shape{0, 2}},
                        std::string(dtype_name(from)) + " -> " + dtype_name(to));
    }
  }
}

TEST_CASE("cuda: large elementwise problems use the whole grid", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(17);
  // More elements than any GPU runs threads at once: each thread loops.
  const Shape shape{1031, 2053};
  pair.check(BP_OP_ADD, attrs(),
             {random_tensor(BP_FLOAT32, dense(shape), rng), random_tensor(BP_FLOAT32, dense(shape), rng)}, BP_FLOAT32,
             dense(shape), default_tolerance(BP_FLOAT32));
  pair.check(BP_OP_MUL, attrs(),
             {random_tensor(BP_INT64, spaced(shape), rng), random_tensor(BP_INT64, transposed(shape), rng)}, BP_INT64,
             spaced(shape), default_tolerance(BP_INT64));
  pair.check(BP_OP_COPY, attrs(), {random_tensor(BP_FLOAT64, transposed(shape), rng)}, BP_FLOAT32, dense(shape),
             default_tolerance(BP_FLOAT32));
}

TEST_CASE("cuda: an output may be the very same view as an input", "[cuda][elementwise]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(18);
  const Layout layout = spaced({37, 41});
  const Tensor a = random_tensor(BP_FLOAT32, layout, rng), b = random_tensor(BP_FLOAT32, dense(layout.shape), rng);
  std::vector<uint8_t> results[2];
  int k = 0;
  for (const bp_test::PluginHandle *p : {&pair.plugin, &pair.ref}) {
    Buffers buffers(*p);
    const bp_plugin_tensor va = buffers.view(a.dtype, a.layout, a.bytes);
    const bp_plugin_tensor vb = buffers.view(b.dtype, b.layout, b.bytes);
    const bp_plugin_tensor in[2] = {va, vb};
    const bp_op_attrs at = attrs();
    REQUIRE(p->api().execute(0, BP_OP_ADD, &at, in, 2, &va) == BP_OK);   // a += b
    REQUIRE(p->api().execute(0, BP_OP_EXP, &at, &va, 1, &va) == BP_OK);  // a = exp(a)
    results[k++] = p->download<uint8_t>(va.buffer, a.bytes.size());
  }
  check_buffers(BP_FLOAT32, results[0], results[1], default_tolerance(BP_FLOAT32));
}
