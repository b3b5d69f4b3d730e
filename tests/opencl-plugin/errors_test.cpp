// execute refuses malformed calls with the right status and a message that
// says what is wrong, instead of running a kernel out of bounds.
#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

// Three float32 [2, 3] buffers on a device, freed at the end, and default
// attributes: the test cases' fixture.
struct Operands {
  explicit Operands(int32_t device = 0) {
    for (auto &b : buffers) b = ocl().upload(device, std::vector<float>(6, 1.0f));
  }
  ~Operands() {
    for (auto b : buffers) ocl().api().free(b);
  }
  bp_plugin_tensor view(int i, int32_t dtype = BP_FLOAT32) const {
    return plugin_view(buffers[i], with_dtype(dense(dtype, {2, 3}), dtype));
  }
  bp_buffer buffers[3];
  const bp_op_attrs attrs = attrs_with();
};

Outcome run(int32_t op, const bp_op_attrs *attrs, const std::vector<bp_plugin_tensor> &in,
            const bp_plugin_tensor *out, int32_t device = 0) {
  return outcome(ocl(), ocl().api().execute(device, op, attrs, in.data(),
                                            static_cast<int32_t>(in.size()), out));
}

}  // namespace

TEST_CASE_METHOD(Operands, "wrong operator, input count, attrs and scalar mode", "[errors]") {
  const bp_plugin_tensor out = view(2);
  CHECK(run(999, &attrs, {view(0)}, &out).status == BP_ERR_UNSUPPORTED);
  Outcome r = run(BP_OP_ADD, &attrs, {view(0)}, &out);
  CHECK(r.status == BP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(r.message, Catch::Contains("add") && Catch::Contains("2 inputs"));
  CHECK(run(BP_OP_ADD, nullptr, {view(0), view(1)}, &out).status == BP_ERR_INVALID_ARGUMENT);
  CHECK(run(BP_OP_ADD, &attrs, {view(0), view(1)}, nullptr).status == BP_ERR_INVALID_ARGUMENT);
  const bp_op_attrs bad_mode = attrs_with(0, 0, 0, 7);
  CHECK(run(BP_OP_ADD, &bad_mode, {view(0)}, &out).status == BP_ERR_INVALID_ARGUMENT);
  CHECK(run(BP_OP_FILL, &attrs, {view(0)}, &out).status == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE_METHOD(Operands, "dtypes that do not fit the operator", "[errors]") {
  const bp_plugin_tensor out_i32 = view(2, BP_INT32);
  Outcome r = run(BP_OP_DIV, &attrs, {view(0, BP_INT32), view(1, BP_INT32)}, &out_i32);
  CHECK(r.status == BP_ERR_UNSUPPORTED);
  CHECK_THAT(r.message, Catch::Contains("div") && Catch::Contains("int32"));
  const bp_plugin_tensor out = view(2);
  CHECK(run(BP_OP_ADD, &attrs, {view(0), view(1, BP_INT32)}, &out).status == BP_ERR_DTYPE);
  CHECK(run(BP_OP_WHERE, &attrs, {view(0), view(1), view(1)}, &out).status == BP_ERR_DTYPE);
  const bp_plugin_tensor out_bool = view(2, BP_BOOL);
  CHECK(run(BP_OP_ADD, &attrs, {view(0), view(1)}, &out_bool).status == BP_ERR_UNSUPPORTED);
  bp_plugin_tensor invalid = view(0);
  invalid.dtype = 42;
  CHECK(run(BP_OP_NEG, &attrs, {invalid}, &out).status == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE_METHOD(Operands, "shapes that do not fit the operator", "[errors]") {
  bp_plugin_tensor small = plugin_view(buffers[2], dense(BP_FLOAT32, {3, 2}));
  CHECK(run(BP_OP_ADD, &attrs, {view(0), view(1)}, &small).status == BP_ERR_SHAPE);
  const bp_plugin_tensor row = plugin_view(buffers[2], dense(BP_FLOAT32, {2, 2}));
  CHECK(run(BP_OP_SUM, &attrs, {view(0)}, &row).status == BP_ERR_SHAPE);
  const bp_plugin_tensor mm = plugin_view(buffers[2], dense(BP_FLOAT32, {2, 2}));
  CHECK(run(BP_OP_MATMUL, &attrs, {view(0), view(1)}, &mm).status == BP_ERR_SHAPE);
  bp_plugin_tensor deep = view(0);
  deep.rank = 9;
  CHECK(run(BP_OP_NEG, &attrs, {deep}, &small).status == BP_ERR_SHAPE);
}

TEST_CASE_METHOD(Operands, "views that reach outside their buffer or are misaligned", "[errors]") {
  const bp_plugin_tensor out = view(2);
  bp_plugin_tensor past = view(0);
  past.offset = 4;  // one element in: the last one is past the end
  Outcome r = run(BP_OP_NEG, &attrs, {past}, &out);
  CHECK(r.status == BP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(r.message, Catch::Contains("input 0"));
  bp_plugin_tensor odd = plugin_view(buffers[0], dense(BP_FLOAT32, {2}));
  odd.offset = 2;  // half a float
  const bp_plugin_tensor out2 = plugin_view(buffers[2], dense(BP_FLOAT32, {2}));
  r = run(BP_OP_NEG, &attrs, {odd}, &out2);
  CHECK(r.status == BP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(r.message, Catch::Contains("multiple of its element size"));
  bp_plugin_tensor broadcast_out = view(2);
  broadcast_out.strides[0] = 0;
  CHECK(run(BP_OP_NEG, &attrs, {view(0)}, &broadcast_out).status == BP_ERR_INVALID_ARGUMENT);
  bp_plugin_tensor no_buffer = view(0);
  no_buffer.buffer = nullptr;
  CHECK(run(BP_OP_NEG, &attrs, {no_buffer}, &out).status == BP_ERR_INVALID_ARGUMENT);
  bp_plugin_tensor negative = view(0);
  negative.strides[1] = -1;
  CHECK(run(BP_OP_NEG, &attrs, {negative}, &out).status == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("inputs on another device are a device mismatch naming both", "[errors]") {
  Operands on0(0), on1(1);
  const bp_op_attrs attrs = attrs_with();
  const bp_plugin_tensor out = on0.view(2);
  Outcome r = run(BP_OP_ADD, &attrs, {on0.view(0), on1.view(0)}, &out);
  CHECK(r.status == BP_ERR_DEVICE_MISMATCH);
  CHECK_THAT(r.message, Catch::Contains("opencl:1") && Catch::Contains("opencl:0"));
}
