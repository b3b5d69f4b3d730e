// Invalid calls: every one returns an error status with a message that says
// what was wrong, and none crashes or writes anything.
#include <cstddef>

#include "reference_test.hpp"

using namespace ref_test;

TEST_CASE("a device index that does not exist", "[errors]") {
  Reference ref;
  bp_plugin_device_info info = blank_device_info();
  check_error(ref, ref.api().device_info(1, &info), BP_ERR_UNKNOWN_DEVICE,
              {"device_info", "reference:1"});
  check_error(ref, ref.api().device_info(-1, &info), BP_ERR_UNKNOWN_DEVICE, {"reference:-1"});
  int32_t count = 0;
  check_error(ref, ref.api().device_properties(3, nullptr, 0, &count), BP_ERR_UNKNOWN_DEVICE);
  bp_buffer b = nullptr;
  check_error(ref, ref.api().alloc(1, 8, &b), BP_ERR_UNKNOWN_DEVICE, {"alloc"});
  int32_t answer = 0;
  check_error(ref, ref.api().supports(2, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &answer),
              BP_ERR_UNKNOWN_DEVICE, {"supports"});
  check_error(ref, ref.api().synchronize(5), BP_ERR_UNKNOWN_DEVICE, {"synchronize"});
  bp_plugin_tensor x = ref.tensor<float>({1}, {1});
  bp_op_attrs attrs = default_attrs();
  check_error(ref, ref.api().execute(1, BP_OP_NEG, &attrs, &x, 1, &x), BP_ERR_UNKNOWN_DEVICE,
              {"execute"});
}

TEST_CASE("NULL pointers given to device entries", "[errors]") {
  Reference ref;
  const char *why = nullptr;
  int32_t count = 0;
  check_error(ref, ref.api().device_count(nullptr, &why), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().device_count(&count, nullptr), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().device_info(0, nullptr), BP_ERR_INVALID_ARGUMENT, {"info"});
  bp_property props[2];
  check_error(ref, ref.api().device_properties(0, props, 2, nullptr), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().device_properties(0, nullptr, 2, &count), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().device_properties(0, props, -1, &count), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().supports(0, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, nullptr),
              BP_ERR_INVALID_ARGUMENT, {"answer"});
}

TEST_CASE("execute: unknown operators are unsupported", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({1}, {1});
  for (int32_t op : {0, -1, 49, 59, 61, 89, BP_OP_LIMIT, 1000}) {
    INFO("op " << op);
    check_error(ref, ref.run(op, {x}, x), BP_ERR_UNSUPPORTED, {"not in this plugin's vocabulary"});
  }
  int32_t answer = 1;
  REQUIRE(ref.api().supports(0, 1000, BP_FLOAT32, BP_FLOAT32, &answer) == BP_OK);
  CHECK(answer == 0);
}

TEST_CASE("execute: NULL attrs, output or inputs", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({2}, {1, 2});
  bp_op_attrs attrs = default_attrs();
  check_error(ref, ref.api().execute(0, BP_OP_NEG, nullptr, &x, 1, &x), BP_ERR_INVALID_ARGUMENT,
              {"attrs"});
  check_error(ref, ref.api().execute(0, BP_OP_NEG, &attrs, &x, 1, nullptr),
              BP_ERR_INVALID_ARGUMENT, {"output"});
  check_error(ref, ref.api().execute(0, BP_OP_ADD, &attrs, nullptr, 2, &x),
              BP_ERR_INVALID_ARGUMENT, {"inputs"});
}

TEST_CASE("execute: the number of inputs must fit the operator", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({2}, {1, 2});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {2});
  check_error(ref, ref.run(BP_OP_ADD, {x}, out), BP_ERR_INVALID_ARGUMENT, {"add", "2 input"});
  check_error(ref, ref.run(BP_OP_NEG, {x, x}, out), BP_ERR_INVALID_ARGUMENT, {"neg", "got 2"});
  check_error(ref, ref.run(BP_OP_MATMUL, {x}, out), BP_ERR_INVALID_ARGUMENT, {"matmul"});
  bp_op_attrs rhs = default_attrs();
  rhs.scalar_mode = BP_SCALAR_RHS;
  check_error(ref, ref.run(BP_OP_ADD, {x, x}, out, rhs), BP_ERR_INVALID_ARGUMENT, {"1 input"});
  bp_op_attrs bad = default_attrs();
  bad.scalar_mode = 7;
  check_error(ref, ref.run(BP_OP_ADD, {x, x}, out, bad), BP_ERR_INVALID_ARGUMENT,
              {"scalar_mode"});
  check_values(ref.values<float>(out), std::vector<float>{0, 0});
}

TEST_CASE("execute: malformed views", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({2}, {1, 2});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {2});

  bp_plugin_tensor bad = x;
  bad.dtype = BP_DTYPE_COUNT;  // one past the last dtype (11 since 1.4)
  check_error(ref, ref.run(BP_OP_NEG, {bad}, out), BP_ERR_INVALID_ARGUMENT, {"input 0", "dtype 11"});
  bad = x;
  bad.rank = BP_MAX_RANK + 1;
  check_error(ref, ref.run(BP_OP_NEG, {bad}, out), BP_ERR_SHAPE, {"rank 9"});
  bad = x;
  bad.shape[0] = -2;
  check_error(ref, ref.run(BP_OP_NEG, {bad}, out), BP_ERR_SHAPE, {"extent -2"});
  bad = x;
  bad.strides[0] = -1;
  check_error(ref, ref.run(BP_OP_NEG, {bad}, out), BP_ERR_INVALID_ARGUMENT, {"stride -1"});
  bad = x;
  bad.buffer = nullptr;
  check_error(ref, ref.run(BP_OP_NEG, {bad}, out), BP_ERR_INVALID_ARGUMENT, {"input 0", "NULL"});

  // An output whose elements would overlap.
  bp_plugin_tensor overlapping = out;
  overlapping.strides[0] = 0;
  check_error(ref, ref.run(BP_OP_NEG, {x}, overlapping), BP_ERR_INVALID_ARGUMENT,
              {"output", "stride 0"});
  check_values(ref.values<float>(out), std::vector<float>{0, 0});
}

TEST_CASE("execute: views reaching outside their buffer", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<int32_t>({3}, {1, 2, 3});  // a 12-byte buffer
  bp_plugin_tensor out = ref.tensor<int32_t>({3}, {0, 0, 0});

  bp_plugin_tensor too_long = x;
  too_long.shape[0] = 4;
  bp_plugin_tensor out4 = ref.empty(BP_INT32, {4});
  check_error(ref, ref.run(BP_OP_NEG, {too_long}, out4), BP_ERR_INVALID_ARGUMENT,
              {"input 0", "past its buffer", "16 bytes", "12 bytes"});
  bp_plugin_tensor shifted = x;
  shifted.offset = 4;
  check_error(ref, ref.run(BP_OP_NEG, {shifted}, out), BP_ERR_INVALID_ARGUMENT,
              {"input 0", "past its buffer"});
  bp_plugin_tensor wide = x;
  wide.strides[0] = 2;
  check_error(ref, ref.run(BP_OP_NEG, {wide}, out), BP_ERR_INVALID_ARGUMENT, {"past its buffer"});
  // Absurd strides that would overflow 64-bit arithmetic.
  bp_plugin_tensor huge = x;
  huge.strides[0] = INT64_MAX;
  check_error(ref, ref.run(BP_OP_NEG, {huge}, out), BP_ERR_INVALID_ARGUMENT, {"past its buffer"});
  bp_plugin_tensor far = x;
  far.offset = UINT64_MAX - 7;
  check_error(ref, ref.run(BP_OP_NEG, {far}, out), BP_ERR_INVALID_ARGUMENT, {"past its buffer"});
  // The output is checked the same way.
  bp_plugin_tensor out_shifted = out;
  out_shifted.offset = 8;
  check_error(ref, ref.run(BP_OP_NEG, {x}, out_shifted), BP_ERR_INVALID_ARGUMENT,
              {"output", "past its buffer"});
  check_values(ref.values<int32_t>(out), std::vector<int32_t>{0, 0, 0});

  // An in-bounds offset view is fine: elements 1 and 2.
  bp_plugin_tensor tail = x;
  tail.shape[0] = 2;
  tail.offset = 4;
  bp_plugin_tensor out2 = ref.empty(BP_INT32, {2});
  ref.exec(BP_OP_NEG, {tail}, out2);
  check_values(ref.values<int32_t>(out2), std::vector<int32_t>{-2, -3});
}

TEST_CASE("execute: shapes of elementwise operands", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor a = ref.tensor<float>({2}, {1, 2});
  bp_plugin_tensor b = ref.tensor<float>({3}, {1, 2, 3});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {2});
  check_error(ref, ref.run(BP_OP_ADD, {a, b}, out), BP_ERR_SHAPE, {"add", "input 1", "[3]", "[2]"});
  bp_plugin_tensor out21 = ref.empty(BP_FLOAT32, {2, 1});
  check_error(ref, ref.run(BP_OP_EXP, {a}, out21), BP_ERR_SHAPE, {"exp"});
  bp_plugin_tensor c = ref.tensor<uint8_t>({3}, {1, 0, 1});
  check_error(ref, ref.run(BP_OP_WHERE, {c, a, a}, out), BP_ERR_SHAPE, {"where"});
  bp_plugin_tensor out_i = ref.empty(BP_INT32, {3});
  check_error(ref, ref.run(BP_OP_COPY, {a}, out_i), BP_ERR_SHAPE, {"copy"});
}

TEST_CASE("execute: dtypes that do not fit the operator", "[errors][execute]") {
  Reference ref;
  bp_plugin_tensor f = ref.tensor<float>({2}, {1, 2});
  bp_plugin_tensor d = ref.tensor<double>({2}, {1, 2});
  bp_plugin_tensor i = ref.tensor<int32_t>({2}, {1, 2});
  bp_plugin_tensor b = ref.tensor<uint8_t>({2}, {1, 0});
  check_error(ref, ref.run(BP_OP_ADD, {f, d}, ref.empty(BP_FLOAT32, {2})), BP_ERR_DTYPE,
              {"add", "float32", "float64"});
  check_error(ref, ref.run(BP_OP_DIV, {i, i}, ref.empty(BP_INT32, {2})), BP_ERR_UNSUPPORTED,
              {"div", "int32"});
  check_error(ref, ref.run(BP_OP_ADD, {b, b}, ref.empty(BP_BOOL, {2})), BP_ERR_UNSUPPORTED,
              {"add", "bool"});
  check_error(ref, ref.run(BP_OP_ADD, {f, f}, ref.empty(BP_FLOAT64, {2})), BP_ERR_UNSUPPORTED,
              {"add", "float32", "float64"});
  check_error(ref, ref.run(BP_OP_EQ, {f, f}, ref.empty(BP_FLOAT32, {2})), BP_ERR_UNSUPPORTED,
              {"eq"});
  check_error(ref, ref.run(BP_OP_EXP, {i}, ref.empty(BP_INT32, {2})), BP_ERR_UNSUPPORTED,
              {"exp", "int32"});
  check_error(ref, ref.run(BP_OP_NEG, {b}, ref.empty(BP_BOOL, {2})), BP_ERR_UNSUPPORTED, {"neg"});
  check_error(ref, ref.run(BP_OP_WHERE, {i, f, f}, ref.empty(BP_FLOAT32, {2})), BP_ERR_DTYPE,
              {"where", "condition", "int32"});
  check_error(ref, ref.run(BP_OP_WHERE, {b, f, d}, ref.empty(BP_FLOAT32, {2})), BP_ERR_DTYPE,
              {"where", "float32", "float64"});
  check_error(ref, ref.run(BP_OP_WHERE, {b, f, f}, ref.empty(BP_FLOAT64, {2})), BP_ERR_UNSUPPORTED,
              {"where"});
}

TEST_CASE("execute reads no attribute past attrs.struct_size", "[errors][execute]") {
  Reference ref;
  // An (imaginary) older core whose attrs end before `scalar`: FILL must use
  // the default 0, not the 5 that lies beyond the struct's announced size.
  bp_op_attrs attrs = default_attrs();
  attrs.struct_size = offsetof(bp_op_attrs, scalar);
  attrs.scalar = 5;
  bp_plugin_tensor out = ref.tensor<double>({2}, {9, 9});
  ref.exec(BP_OP_FILL, {}, out, attrs);
  check_values(ref.values<double>(out), std::vector<double>{0, 0});
}
