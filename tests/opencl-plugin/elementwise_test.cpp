// Elementwise operators (binary, comparison, unary, where, copy) against the
// reference backend, for every dtype both declare and every kind of view:
// contiguous, transposed, sliced, broadcast, scalar, rank 0, empty, rank 4.
#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

struct Views {
  std::string name;
  std::vector<View> inputs;  // dtype filled in by the caller
  View out;
};

// Views of one shape for n inputs and the output, in every form the core
// may pass. The _1d kernels serve those that collapse to one axis, the _nd
// kernels the others (sliced, rank 4).
std::vector<Views> layouts(int n_inputs) {
  auto same = [&](const View &s) { return std::vector<View>(static_cast<size_t>(n_inputs), s); };
  std::vector<Views> all;
  all.push_back({"contiguous", same(dense(0, {3, 5})), dense(0, {3, 5})});
  all.push_back({"transposed inputs", same(strided(0, {3, 5}, {1, 3})), dense(0, {3, 5})});
  all.push_back({"sliced inputs and output", same(strided(0, {3, 5}, {12, 2}, 1)),
                 strided(0, {3, 5}, {7, 1}, 2)});
  {
    // Row broadcast for input 0, column broadcast for the others.
    std::vector<View> in = same(strided(0, {3, 5}, {1, 0}));
    in[0] = strided(0, {3, 5}, {0, 1});
    all.push_back({"broadcast", in, dense(0, {3, 5})});
  }
  all.push_back({"scalar broadcast", same(strided(0, {3, 5}, {0, 0}, 1)), dense(0, {3, 5})});
  all.push_back({"rank 0", same(strided(0, {}, {}, 1)), strided(0, {}, {}, 1)});
  all.push_back({"empty", same(dense(0, {0, 4})), dense(0, {0, 4})});
  all.push_back({"rank 4 permuted", same(strided(0, {2, 3, 2, 2}, {6, 1, 12, 3})),
                 dense(0, {2, 3, 2, 2})});
  all.push_back({"evenly strided", same(strided(0, {7}, {3}, 2)), strided(0, {7}, {2}, 1)});
  return all;
}

// Float ops that are not exactly rounded in OpenCL (nor in libm): a few ulp.
Tolerance tolerance(int32_t op, int32_t dtype) {
  const bool inexact = op == BP_OP_POW || op == BP_OP_EXP || op == BP_OP_LOG || op == BP_OP_TANH ||
                       op == BP_OP_SIGMOID || op == BP_OP_ERF || op == BP_OP_EXPM1 || op == BP_OP_LOG1P;
  if (!inexact) return kExact;
  // By the input's dtype: float32's column for float32 inputs, float64's for the rest.
  return table_tolerance(TestBound::opencl_math, dtype == BP_FLOAT32 ? BP_FLOAT32 : BP_FLOAT64);
}

// Every (dtype, out_dtype) the reference implements must be implemented here
// too (PoCL has float64), and the reverse.
bool both_support(int32_t op, int32_t dtype, int32_t out_dtype) {
  const bool r = supported(ref(), op, dtype, out_dtype);
  CHECK(supported(ocl(), op, dtype, out_dtype) == r);
  return r;
}

void check_op(int32_t op, int32_t in_dtype, int32_t out_dtype, int n_inputs,
              const bp_op_attrs &attrs, std::mt19937_64 &rng, const std::string &what) {
  int device = 0;
  for (const Views &layout : layouts(n_inputs)) {
    std::vector<Tensor> inputs;
    for (int i = 0; i < n_inputs; ++i) {
      // WHERE's input 0 is the bool condition.
      const int32_t dtype = (op == BP_OP_WHERE && i == 0) ? BP_BOOL : in_dtype;
      inputs.push_back(random_tensor(with_dtype(layout.inputs[static_cast<size_t>(i)], dtype), rng));
    }
    check_against_reference(op, attrs, inputs, with_dtype(layout.out, out_dtype),
                            tolerance(op, in_dtype), what + ", " + layout.name, device);
    device = 1 - device;  // both devices, alternately
  }
}

// Each of ops with n_inputs inputs on every dtype both declare it for, its
// output of the inputs' dtype.
void check_ops(std::initializer_list<int32_t> ops, int n_inputs, std::mt19937_64 &rng) {
  for (int32_t op : ops)
    for (int32_t dtype : kAllTypes)
      if (both_support(op, dtype, dtype))
        check_op(op, dtype, dtype, n_inputs, attrs_with(), rng, "op " + std::to_string(op) + " " + dtype_name(dtype));
}

}  // namespace

TEST_CASE("binary arithmetic matches the reference for every dtype and view", "[elementwise]") {
  std::mt19937_64 rng(1);
  check_ops({BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_DIV, BP_OP_POW, BP_OP_MAXIMUM, BP_OP_MINIMUM, BP_OP_BITWISE_AND,
             BP_OP_BITWISE_OR, BP_OP_BITWISE_XOR},
            2, rng);
}

TEST_CASE("comparisons match the reference for every dtype and view", "[elementwise]") {
  std::mt19937_64 rng(2);
  for (int32_t op : {BP_OP_EQ, BP_OP_NE, BP_OP_LT, BP_OP_LE, BP_OP_GT, BP_OP_GE})
    for (int32_t dtype : kAllTypes) {
      REQUIRE(both_support(op, dtype, BP_BOOL));
      check_op(op, dtype, BP_BOOL, 2, attrs_with(), rng,
               "op " + std::to_string(op) + " " + dtype_name(dtype));
    }
}

TEST_CASE("binary operators with a scalar operand on either side", "[elementwise]") {
  std::mt19937_64 rng(3);
  for (int32_t op : {BP_OP_ADD, BP_OP_SUB, BP_OP_DIV, BP_OP_POW, BP_OP_MAXIMUM, BP_OP_LT,
                     BP_OP_EQ, BP_OP_BITWISE_XOR})
    for (int32_t dtype : kAllTypes) {
      const int32_t out = (op == BP_OP_LT || op == BP_OP_EQ) ? BP_BOOL : dtype;
      if (!both_support(op, dtype, out)) continue;
      const double scalar = dtype == BP_BOOL ? 1.0 : (dtype == BP_INT32 || dtype == BP_INT64) ? 3.0 : 1.5;
      for (int32_t mode : {BP_SCALAR_RHS, BP_SCALAR_LHS})
        check_op(op, dtype, out, 1, attrs_with(scalar, 0, 0, mode), rng,
                 "op " + std::to_string(op) + " " + dtype_name(dtype) + " scalar mode " +
                     std::to_string(mode));
    }
}

TEST_CASE("unary operators match the reference for every dtype and view", "[elementwise]") {
  std::mt19937_64 rng(4);
  check_ops({BP_OP_NEG, BP_OP_ABS, BP_OP_EXP, BP_OP_LOG, BP_OP_SQRT, BP_OP_TANH, BP_OP_SIGMOID, BP_OP_RELU,
             BP_OP_BITWISE_NOT, BP_OP_ERF, BP_OP_EXPM1, BP_OP_LOG1P, BP_OP_RSQRT, BP_OP_FLOOR, BP_OP_CEIL,
             BP_OP_ROUND, BP_OP_SIGN},
            1, rng);
}

TEST_CASE("the unary predicates (bool out) match the reference for every float dtype and view", "[elementwise]") {
  std::mt19937_64 rng(9);
  for (int32_t op : {BP_OP_ISNAN, BP_OP_ISINF})
    for (int32_t dtype : kAllTypes) {
      if (!bp_vocab_allows(op, dtype, BP_BOOL)) continue;
      REQUIRE(both_support(op, dtype, BP_BOOL));
      check_op(op, dtype, BP_BOOL, 1, attrs_with(), rng, std::string(op_name(op)) + " " + dtype_name(dtype));
    }
}

TEST_CASE("where matches the reference for every dtype and view", "[elementwise]") {
  std::mt19937_64 rng(5);
  for (int32_t dtype : kAllTypes) {
    REQUIRE(both_support(BP_OP_WHERE, dtype, dtype));
    check_op(BP_OP_WHERE, dtype, dtype, 3, attrs_with(), rng, std::string("where ") + dtype_name(dtype));
  }
}

TEST_CASE("copy converts between every pair of dtypes like the reference", "[elementwise]") {
  std::mt19937_64 rng(6);
  for (int32_t from : kAllTypes)
    for (int32_t to : kAllTypes) {
      REQUIRE(both_support(BP_OP_COPY, from, to));
      check_op(BP_OP_COPY, from, to, 1, attrs_with(), rng,
               std::string("copy ") + dtype_name(from) + " -> " + dtype_name(to));
    }
}

TEST_CASE("integer arithmetic wraps around like the reference", "[elementwise]") {
  std::mt19937_64 rng(7);
  for (int32_t dtype : {BP_INT32, BP_INT64}) {
    const View s = dense(dtype, {64});
    for (int32_t op : {BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_POW}) {
      const std::vector<Tensor> in = {random_tensor(s, rng, Values::full),
                                      random_tensor(s, rng, Values::full)};
      check_against_reference(op, attrs_with(), in, s, kExact,
                              "full-range op " + std::to_string(op) + " " + dtype_name(dtype));
    }
    for (int32_t op : {BP_OP_NEG, BP_OP_ABS}) {
      Tensor x = random_tensor(s, rng, Values::full);
      if (dtype == BP_INT32) put<int32_t>(x.bytes, 0, INT32_MIN);
      else put<int64_t>(x.bytes, 0, INT64_MIN);
      check_against_reference(op, attrs_with(), {x}, s, kExact,
                              "full-range op " + std::to_string(op) + " " + dtype_name(dtype));
    }
  }
}

TEST_CASE("NaN, infinities and signed zeros behave as plugin.h says", "[elementwise]") {
  const double nan = std::nan(""), inf = HUGE_VAL;
  const std::vector<double> xs = {nan, 1.0, nan, -0.0, inf, -inf, 2.0, 0.0};
  const std::vector<double> ys = {1.0, nan, nan, 0.0, inf, 3.0, -inf, -0.0};
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64}) {
    const View s = dense(dtype, {8});
    const std::vector<Tensor> in = {tensor_of(s, xs), tensor_of(s, ys)};
    for (int32_t op : {BP_OP_ADD, BP_OP_MUL, BP_OP_DIV, BP_OP_MAXIMUM, BP_OP_MINIMUM})
      check_against_reference(op, attrs_with(), in, s, kExact,
                              "specials op " + std::to_string(op) + " " + dtype_name(dtype));
    for (int32_t op : {BP_OP_EQ, BP_OP_NE, BP_OP_LT, BP_OP_GE})
      check_against_reference(op, attrs_with(), in, dense(BP_BOOL, {8}), kExact,
                              "specials op " + std::to_string(op) + " " + dtype_name(dtype));
    for (int32_t op : {BP_OP_RELU, BP_OP_ABS, BP_OP_NEG, BP_OP_SQRT})
      check_against_reference(op, attrs_with(), {in[0]}, s, kExact,
                              "specials op " + std::to_string(op) + " " + dtype_name(dtype));
    check_against_reference(BP_OP_COPY, attrs_with(), {in[0]}, dense(BP_BOOL, {8}), kExact,
                            std::string("specials copy to bool ") + dtype_name(dtype));
  }
  // MAXIMUM propagates NaN from either side (checked by value, not only
  // against the reference).
  const View s = dense(BP_FLOAT32, {8});
  const Bytes out = run_on(ocl(), 0, BP_OP_MAXIMUM, attrs_with(),
                           {tensor_of(s, xs), tensor_of(s, ys)}, s);
  CHECK(std::isnan(get<float>(out, 0)));
  CHECK(std::isnan(get<float>(out, 1)));
  CHECK(get<float>(out, 6) == 2.0f);
}

TEST_CASE("an output may be the very same view as an input", "[elementwise]") {
  PluginHandle &p = ocl();
  std::mt19937_64 rng(8);
  const View s = strided(BP_FLOAT32, {4, 6}, {1, 4});
  const Tensor a = random_tensor(s, rng), b = random_tensor(s, rng);
  bp_buffer ba = p.upload(0, a.bytes), bb = p.upload(0, b.bytes);
  const bp_plugin_tensor in[2] = {plugin_view(ba, s), plugin_view(bb, s)};
  const bp_op_attrs attrs = attrs_with();
  p.check(p.api().execute(0, BP_OP_ADD, &attrs, in, 2, &in[0]), "execute in place");
  const Bytes got = p.download<unsigned char>(ba, a.bytes.size());
  for (int64_t i = 0; i < 24; ++i)
    CHECK(get<float>(got, i) == get<float>(a.bytes, i) + get<float>(b.bytes, i));
  p.check(p.api().free(ba), "free");
  p.check(p.api().free(bb), "free");
}
