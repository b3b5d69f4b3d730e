// Bad input gets a clear error and loses nothing: handles, devices, ops.
#include <catch2/catch.hpp>

#include "runtime_fixture.hpp"

using bp_test::start;

TEST_CASE("inputs on two devices are a mismatch naming the operator and every device") {
  start(bp_test::kHostOnly);
  bp::Tensor x = bp::ones({2, 3}, bp::f32, bp::cpu());
  bp::Tensor y = bp::ones({2, 3}, bp::f32, bp::Device("reference"));
  bp_tensor out = BP_NO_TENSOR;
  REQUIRE(bp_binary(BP_OP_ADD, x.handle(), y.handle(), &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(out == BP_NO_TENSOR);
  CHECK(std::string(bp_last_error()) ==
        "add: all inputs must be on one device, but input 0 is on cpu:0 and input 1 is on "
        "reference:0 (move one with bp_to)");
  CHECK(std::string(bp_last_error_op()) == "add");
  REQUIRE(bp_last_error_device_count() == 2);
  CHECK(bp_last_error_device(0) == bp::cpu().id());
  CHECK(bp_last_error_device(1) == bp::Device("reference").id());
  CHECK(bp_last_error_device(2) == -1);
  try {
    bp::where(x > 0.0, x, y);
    FAIL("where across devices");
  } catch (const bp::DeviceMismatchError &e) {
    CHECK(std::string(e.what()).find("input 0 is on cpu:0, input 1 is on cpu:0 and input 2 is on reference:0") !=
          std::string::npos);
    CHECK(e.devices().size() == 3);
  }
  bp::Tensor out_ref = bp::empty({2, 3}, bp::f32, bp::Device("reference"));
  CHECK(bp_binary_out(BP_OP_ADD, x.handle(), x.handle(), out_ref.handle()) == BP_ERR_DEVICE_MISMATCH);
  CHECK(std::string(bp_last_error()).find("the output is on reference:0 but the inputs are on cpu:0") !=
        std::string::npos);
  CHECK_THROWS_AS(bp::matmul(x, y.T()), bp::DeviceMismatchError);
}

TEST_CASE("null, released and invented handles are errors, not crashes") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::ones({2}, bp::f32, bp::cpu());
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_binary(BP_OP_ADD, a.handle(), BP_NO_TENSOR, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(std::string(bp_last_error()) == "add: input 1 is a null tensor handle");
  CHECK(bp_last_error_input() == 1);
  bp_tensor released;
  REQUIRE(bp_full(bp::cpu().id(), BP_FLOAT32, 0, nullptr, 1.0, &released) == BP_OK);
  REQUIRE(bp_tensor_release(released) == BP_OK);
  CHECK(bp_tensor_release(released) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_unary(BP_OP_EXP, released, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(std::string(bp_last_error()).find("released or never issued") != std::string::npos);
  CHECK(bp_unary(BP_OP_EXP, 0xdeadbeefcafeull, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_unary(BP_OP_EXP, ~0ull, &out) == BP_ERR_INVALID_HANDLE);
  float f;
  CHECK(bp_to_host(released, &f, sizeof f) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_tensor_retain(released) == BP_ERR_INVALID_HANDLE);
  // A slot reused by a new tensor does not revive the old handle.
  bp::Tensor b = bp::ones({1}, bp::f32, bp::cpu());
  CHECK(bp_tensor_retain(released) == BP_ERR_INVALID_HANDLE);
  CHECK(out == BP_NO_TENSOR);
}

TEST_CASE("NULL out-pointers and wrong operator numbers are invalid arguments") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::ones({2}, bp::f32, bp::cpu());
  bp_tensor out;
  CHECK(bp_binary(BP_OP_ADD, a.handle(), a.handle(), nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_unary(BP_OP_ADD, a.handle(), &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_binary(BP_OP_EXP, a.handle(), a.handle(), &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_binary(999, a.handle(), a.handle(), &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_reduce(BP_OP_ADD, a.handle(), BP_AXIS_ALL, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_cast(a.handle(), 0, &out) == BP_ERR_DTYPE);
  CHECK(bp_tensor_shape(a.handle(), nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_devices(nullptr, 3, nullptr) == BP_ERR_INVALID_ARGUMENT);
  bp_device_info info{};
  info.struct_size = 4;
  CHECK(bp_device_info_get(bp::cpu().id(), &info) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(bp_status_name(BP_ERR_DEVICE_MISMATCH)) == "BP_ERR_DEVICE_MISMATCH");
  CHECK(std::string(bp_op_name(BP_OP_MATMUL)) == "matmul");
  CHECK(std::string(bp_dtype_name(BP_INT64)) == "int64");
  CHECK(bp_dtype_size(BP_BOOL) == 1);
}

TEST_CASE("an operator the owning backend does not implement names backend, op and dtype") {
  start(bp_test::with_test_plugins());
  bp::Device fake("fake:0");
  bp::Tensor t = bp::full({2}, 1.5, bp::f32, fake);  // FILL float32: the one thing it does
  CHECK(t.to_vector<float>() == std::vector<float>{1.5f, 1.5f});
  bp_tensor out = BP_NO_TENSOR;
  REQUIRE(bp_binary(BP_OP_ADD, t.handle(), t.handle(), &out) == BP_ERR_UNSUPPORTED);
  CHECK(std::string(bp_last_error()) == "add: backend fake does not implement add for float32 on fake:0");
  CHECK(std::string(bp_last_error_op()) == "add");
  CHECK(bp_full(fake.id(), BP_INT32, 0, nullptr, 1, &out) == BP_ERR_UNSUPPORTED);
  CHECK(std::string(bp_last_error()).find("int32") != std::string::npos);
  CHECK(out == BP_NO_TENSOR);
  // The rest keeps working.
  CHECK((bp::ones({2}, bp::f32, bp::cpu()) + 1.0).to_vector<float>()[1] == 2);
}

TEST_CASE("with host_fallback on, an unsupported operator runs on cpu:0 and the result stays put") {
  start(R"(
[plugins]
paths = [")" BP_TEST_FAKE_PLUGIN_DIR R"("]
disabled = ["opencl", "cuda"]
[dispatch]
host_fallback = true
trace = true
)");
  bp::Device fake("fake:0");
  bp::Tensor t = bp::full({3}, 1.5, bp::f32, fake);
  bp_trace_clear();
  bp::Tensor sum = t + t;
  CHECK(sum.device() == fake);
  CHECK(sum.to_vector<float>() == std::vector<float>{3, 3, 3});
  REQUIRE(bp_trace_count() == 1);
  char line[512];
  REQUIRE(bp_trace_line(0, line, sizeof line) == BP_OK);
  CHECK(std::string(line).find("ran on backend cpu-openblas (cpu:0) because backend fake does not implement it") !=
        std::string::npos);
  CHECK(std::string(line).find("copies 4") != std::string::npos);
}
