// What a failing call says: the status types.h gives that kind of failure,
// the function the caller called, the input at fault, and no more of the
// caller's own text than a message needs.
#include <catch2/catch.hpp>

#include <string>

#include "runtime_fixture.hpp"

namespace {

std::string message() { return bp_last_error(); }

bool starts_with(const std::string &s, const std::string &prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("a device mismatch names the input at fault and lists the output's device last") {
  bp_test::start(bp_test::kHostOnly);
  bp::Tensor a = bp::ones({2}, bp::f32, bp::Device("cpu:0")), b = bp::ones({2}, bp::f32, bp::Device("reference:0"));
  bp_tensor out = 0;
  REQUIRE(bp_binary(BP_OP_ADD, a.handle(), b.handle(), &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(bp_last_error_input() == 1);
  CHECK(bp_last_error_device_count() == 2);
  bp::Tensor o = bp::zeros({2}, bp::f32, bp::Device("reference:0"));
  REQUIRE(bp_binary_out(BP_OP_ADD, a.handle(), a.handle(), o.handle()) == BP_ERR_DEVICE_MISMATCH);
  CHECK(bp_last_error_input() == -1);  // only the output is elsewhere
  REQUIRE(bp_last_error_device_count() == 3);
  CHECK(bp_last_error_device(2) == o.device().id());
}

TEST_CASE("a number that is no dtype and a dtype an operator refuses are both dtype errors naming the function") {
  bp_test::start(bp_test::kHostOnly);
  bp_device cpu = bp::cpu().id();
  const int64_t shape[] = {2};
  bp_tensor t = 0;
  CHECK(bp_full(cpu, 99, 1, shape, 1.0, &t) == BP_ERR_DTYPE);  // as in 1.0 (types.h)
  CHECK(message() == "bp_full: invalid dtype 99");
  bp::Tensor a = bp::ones({2}, bp::f32, bp::cpu());
  CHECK(bp_cast(a.handle(), -3, &t) == BP_ERR_DTYPE);
  CHECK(message() == "bp_cast: invalid dtype -3");
  CHECK(bp_random_uniform(cpu, BP_INT32, 1, shape, 0, 1, 1, &t) == BP_ERR_DTYPE);
}

// The test above, for every function that takes a dtype: as since 1.0,
// whose header text called any bad enum value an invalid argument.
TEST_CASE("a number that is no dtype is BP_ERR_DTYPE from every function taking a dtype") {
  bp_test::start(bp_test::kHostOnly);
  const bp_device cpu = bp::cpu().id();
  const int64_t shape[1] = {4};
  const int64_t strides[1] = {1};
  float host[4] = {0, 1, 2, 3};
  bp::Tensor a = bp::ones({4}, bp::f32, bp::cpu());
  for (int32_t dtype : {int32_t(BP_DTYPE_INVALID), int32_t(BP_DTYPE_COUNT), 99, -1}) {
    CAPTURE(dtype);
    bp_tensor out = BP_NO_TENSOR;
    CHECK(bp_empty(cpu, dtype, 1, shape, &out) == BP_ERR_DTYPE);
    CHECK(bp_zeros(cpu, dtype, 1, shape, &out) == BP_ERR_DTYPE);
    CHECK(bp_ones(cpu, dtype, 1, shape, &out) == BP_ERR_DTYPE);
    CHECK(bp_full(cpu, dtype, 1, shape, 2.0, &out) == BP_ERR_DTYPE);
    CHECK(bp_arange(cpu, dtype, 0, 4, 1, &out) == BP_ERR_DTYPE);
    CHECK(bp_random_uniform(cpu, dtype, 1, shape, 0, 1, 7, &out) == BP_ERR_DTYPE);
    CHECK(bp_random_normal(cpu, dtype, 1, shape, 0, 1, 7, &out) == BP_ERR_DTYPE);
    CHECK(bp_random_integers(cpu, dtype, 1, shape, 0, 9, 7, &out) == BP_ERR_DTYPE);
    CHECK(bp_from_host(cpu, dtype, 1, shape, host, &out) == BP_ERR_DTYPE);
    CHECK(bp_wrap_host(cpu, dtype, 1, shape, strides, host, nullptr, nullptr, &out) == BP_ERR_DTYPE);
    CHECK(bp_eye(cpu, dtype, 3, 3, 0, &out) == BP_ERR_DTYPE);
    CHECK(bp_linspace(cpu, dtype, 0, 1, 5, 1, &out) == BP_ERR_DTYPE);
    CHECK(bp_cast(a.handle(), dtype, &out) == BP_ERR_DTYPE);
    CHECK(std::string(bp_last_error()).find(std::to_string(dtype)) != std::string::npos);
    CHECK(out == BP_NO_TENSOR);
  }
}

TEST_CASE("a shape of more than 2^56 elements is a shape error at creation as at reshape") {
  bp_test::start(bp_test::kHostOnly);
  const int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 20};
  bp_tensor t = 0;
  CHECK(bp_empty(bp::cpu().id(), BP_FLOAT32, 2, huge, &t) == BP_ERR_SHAPE);
  CHECK(message() == "bp_empty: shape [1099511627776, 1048576] has more than 2^56 elements");
  bp::Tensor a = bp::ones({2}, bp::f32, bp::cpu());
  CHECK(bp_reshape(a.handle(), 2, huge, &t) == BP_ERR_SHAPE);
  CHECK(message().find("has more than 2^56 elements") != std::string::npos);
}

TEST_CASE("each function names itself in its errors") {
  bp_test::start(bp_test::kHostOnly);
  bp_device cpu = bp::cpu().id();
  const int64_t bad[] = {-1};
  bp_tensor t = 0;
  CHECK(bp_zeros(cpu, BP_FLOAT32, 1, bad, &t) == BP_ERR_SHAPE);
  CHECK(starts_with(message(), "bp_zeros: negative extent -1"));
  CHECK(bp_ones(cpu, BP_FLOAT32, 1, bad, &t) == BP_ERR_SHAPE);
  CHECK(starts_with(message(), "bp_ones: "));
  CHECK(bp_arange(cpu, BP_FLOAT32, 0, 1, 0, &t) == BP_ERR_INVALID_ARGUMENT);
  CHECK(starts_with(message(), "bp_arange: "));
  bp::Tensor a = bp::ones({4}, bp::f32, bp::cpu()), b = bp::ones({3}, bp::f32, bp::cpu());
  CHECK(bp_assign(a.handle(), b.handle()) == BP_ERR_SHAPE);
  CHECK(starts_with(message(), "bp_assign: "));
  CHECK(bp_cast(a.handle(), BP_FLOAT64, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(message() == "bp_cast: out is NULL");
  CHECK(bp_init(nullptr) == BP_ERR_STATE);
  CHECK(starts_with(message(), "bp_init: "));
}

TEST_CASE("bp_config_entry refuses NULL out-pointers and names the valid range") {
  bp_test::start(bp_test::kHostOnly);
  const char *k = nullptr, *v = nullptr, *o = nullptr;
  CHECK(bp_config_entry(0, nullptr, &v, &o) == BP_ERR_INVALID_ARGUMENT);
  CHECK(message() == "bp_config_entry: key is NULL");
  CHECK(bp_config_entry(0, &k, &v, nullptr) == BP_ERR_INVALID_ARGUMENT);
  const int32_t n = bp_config_count();
  CHECK(bp_config_entry(n, &k, &v, &o) == BP_ERR_INVALID_ARGUMENT);
  CHECK(message() == "bp_config_entry: index " + std::to_string(n) + " is outside 0.." + std::to_string(n - 1));
  CHECK(bp_config_entry(n - 1, &k, &v, &o) == BP_OK);
}

TEST_CASE("device indices: no leading zeros, and a large index is a device that does not exist") {
  bp_test::start(bp_test::kHostOnly);
  bp_device d = -1;
  CHECK(bp_device_get("cpu:00", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(message().find("without a sign or leading zeros") != std::string::npos);
  CHECK(bp_device_get("cpu:+1", &d) == BP_ERR_UNKNOWN_DEVICE);
  for (const char *name : {"cpu:2147483647", "cpu:99999999999999999999"}) {
    INFO(name);
    CHECK(bp_device_get(name, &d) == BP_ERR_UNKNOWN_DEVICE);
    CHECK(message().find("backend cpu-openblas has 1 devices") != std::string::npos);
  }
  CHECK(bp_device_get("cpu:0", &d) == BP_OK);
}

TEST_CASE("a message echoes at most 64 bytes of the caller's text") {
  bp_test::start(bp_test::kHostOnly);
  const std::string name(100000, 'q');
  bp_device d = -1;
  REQUIRE(bp_device_get(name.c_str(), &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(message().size() < 1000);
  CHECK(message().find(std::string(64, 'q') + "... (100000 bytes)") != std::string::npos);
}

TEST_CASE("bp_init's own checks and bp_backend_counters_get echo as much as any message") {
  const std::string big(100000, 'q'), shown = std::string(64, 'q') + "... (100000 bytes)";
  REQUIRE(bp_init_from_string(("[plugins]\nrequired = [\"" + big + "\"]\n").c_str(), "t.toml") == BP_ERR_PLUGIN);
  CHECK(message().rfind("required plugin '" + shown + "' ", 0) == 0);
  CHECK(message().size() < 300);
  // A path is shown whole up to PATH_MAX, the longest the system opens.
  REQUIRE(bp_init_from_string(("[plugins]\npaths = [\"/" + big + "\"]\n").c_str(), "t.toml") == BP_ERR_CONFIG);
  CHECK(message() == "t.toml:2:1: plugins.paths: '/" + std::string(4095, 'q') + "... (100001 bytes)' does not exist");
  REQUIRE(bp_init_from_string(("[backend.cpu-openblas]\n" + big + " = 1\n").c_str(), "t.toml") == BP_ERR_CONFIG);
  CHECK(message().rfind("t.toml:2:1: backend.cpu-openblas." + std::string(43, 'q') + "... (100021 bytes): ", 0) == 0);
  const std::string source(5000, 's');  // its position goes with it: "<source>:2:1"
  // Naming the devices there are starts every backend, with the options
  // bp_test::start gives below (a backend starts once per process).
  REQUIRE(bp_init_from_string("[devices]\ndefault = \"tpu:0\"\n[backend.cpu-openblas]\nthreads = 1\n", source.c_str()) ==
          BP_ERR_CONFIG);
  CHECK(message().rfind(std::string(4096, 's') + "... (5004 bytes): devices.default: unknown device 'tpu:0'", 0) == 0);
  bp_test::start(bp_test::kHostOnly);
  bp_backend_counters counters{};
  counters.struct_size = sizeof counters;
  REQUIRE(bp_backend_counters_get(big.c_str(), &counters) == BP_ERR_INVALID_ARGUMENT);
  CHECK(message() == "bp_backend_counters_get: no backend named '" + shown + "'");
}
