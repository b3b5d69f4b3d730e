// The ABI table of cpu-openblas: identity, devices, memory, capabilities
// (identical to the reference's), and that every bad argument is answered
// with a status and a message, never a crash.
#include <cinttypes>
#include <thread>

#include "cpu_vs_reference.hpp"
#include "table_identity.hpp"

using namespace cpu_test;

namespace {

std::string last_error(const bp_test::PluginHandle &p) { return p.api().last_error(); }

bool mentions(const bp_test::PluginHandle &p, const std::string &text) {
  return last_error(p).find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("the table names the backend and declares thread safety", "[api]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  const bp_plugin_api &api = cpu.api();
  bp_test::check_table_identity(api, "cpu-openblas", "cpu");
  CHECK((api.flags & BP_PLUGIN_THREAD_SAFE) != 0);
  CHECK(api.copy != nullptr);
  CHECK(api.host_address != nullptr);
  CHECK(api.device_properties != nullptr);

  void *lib = dlopen(bp_test::plugin_path("cpu-openblas").c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  REQUIRE(lib);
  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  REQUIRE(get);
  CHECK(get(BP_PLUGIN_ABI_MAJOR + 1, 0) == nullptr);
  CHECK(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR + 5) == &api);
}

TEST_CASE("cpu:0 describes the host CPU, its memory and OpenBLAS", "[api]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  CHECK(cpu.device_count() == 1);
  const char *why = "not reset";
  int32_t count = 0;
  REQUIRE(cpu.api().device_count(&count, &why) == BP_OK);
  CHECK(why == nullptr);

  bp_plugin_device_info info = blank_device_info();
  REQUIRE(cpu.api().device_info(0, &info) == BP_OK);
  CHECK(info.kind == BP_DEVICE_CPU);
  CHECK(std::strlen(info.model) > 0);
  CHECK(info.memory_total > 0);
  CHECK(info.memory_free > 0);
  CHECK(info.memory_free <= info.memory_total);

  // A core built against an older, shorter struct: nothing past its size is written.
  bp_plugin_device_info small;
  std::memset(&small, 0x5A, sizeof small);
  small.struct_size = offsetof(bp_plugin_device_info, memory_total);
  REQUIRE(cpu.api().device_info(0, &small) == BP_OK);
  CHECK(small.kind == BP_DEVICE_CPU);
  CHECK(small.memory_total == 0x5A5A5A5A5A5A5A5Aull);

  bp_property props[32];
  int32_t n = 0;
  REQUIRE(cpu.api().device_properties(0, props, 32, &n) == BP_OK);
  std::vector<std::string> keys;
  for (int32_t i = 0; i < n; ++i) keys.emplace_back(props[i].key);
  for (const char *key : {"model", "cores", "threads", "openblas_core", "openblas_threads", "memory_total",
                          "memory_available", "memory_cached"}) {
    INFO(key);
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
  REQUIRE(cpu.api().device_properties(0, props, 2, &n) == BP_OK);
  CHECK(n == 2);
  REQUIRE(cpu.api().device_properties(0, nullptr, 0, &n) == BP_OK);
  CHECK(n == 0);
}

TEST_CASE("memory_in_use counts live buffers exactly", "[api][memory]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  auto in_use = [&] {
    bp_plugin_device_info info = blank_device_info();
    cpu.check(cpu.api().device_info(0, &info), "device_info");
    return info.memory_in_use;
  };
  const uint64_t before = in_use();
  std::vector<bp_buffer> buffers;
  uint64_t total = 0;
  for (uint64_t bytes : {uint64_t(0), uint64_t(1), uint64_t(100), uint64_t(4096), uint64_t(3) << 20}) {
    buffers.push_back(cpu.alloc(0, bytes));
    total += bytes;
    CHECK(in_use() == before + total);
  }
  for (bp_buffer b : buffers) REQUIRE(cpu.api().free(b) == BP_OK);
  CHECK(in_use() == before);
  // A freed size comes back from the cache: still counted exactly.
  bp_buffer again = cpu.alloc(0, 100);
  CHECK(in_use() == before + 100);
  REQUIRE(cpu.api().free(again) == BP_OK);
}

TEST_CASE("buffers are 64-byte aligned host memory that write, read, copy and host_address agree on", "[api][memory]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  bp_buffer a = cpu.upload(0, data);
  bp_buffer b = cpu.alloc(0, 2000);
  void *address = nullptr;
  REQUIRE(cpu.api().host_address(a, &address) == BP_OK);
  CHECK(reinterpret_cast<uintptr_t>(address) % 64 == 0);
  CHECK(std::memcmp(address, data.data(), data.size()) == 0);

  REQUIRE(cpu.api().copy(a, 10, b, 500, 900) == BP_OK);
  CHECK(cpu.download<uint8_t>(b, 900, 500) == std::vector<uint8_t>(data.begin() + 10, data.begin() + 910));
  // Overlapping copy within one buffer behaves like memmove.
  REQUIRE(cpu.api().copy(a, 0, a, 1, 999) == BP_OK);
  const std::vector<uint8_t> shifted = cpu.download<uint8_t>(a, 1000);
  CHECK(std::equal(data.begin(), data.begin() + 999, shifted.begin() + 1));
  REQUIRE(cpu.api().write(a, 1000, nullptr, 0) == BP_OK);  // empty write at the very end
  REQUIRE(cpu.api().read(a, 0, nullptr, 0) == BP_OK);
  REQUIRE(cpu.api().synchronize(0) == BP_OK);
  cpu.api().free(a);
  cpu.api().free(b);
}

TEST_CASE("supports() answers exactly like the reference for every op and dtype pair", "[api]") {
  Pair pair;
  for (int32_t op = -1; op <= BP_OP_LIMIT + 1; ++op)
    for (int32_t dtype = -1; dtype <= BP_DTYPE_COUNT; ++dtype)
      for (int32_t out = -1; out <= BP_DTYPE_COUNT; ++out) {
        int32_t cpu_answer = -1, ref_answer = -1;
        REQUIRE(pair.cpu.api().supports(0, op, dtype, out, &cpu_answer) == BP_OK);
        REQUIRE(pair.ref.api().supports(0, op, dtype, out, &ref_answer) == BP_OK);
        INFO("op " << op << ", " << dtype << " -> " << out);
        CHECK(cpu_answer == ref_answer);
      }
}

TEST_CASE("absurd allocations fail with BP_ERR_OUT_OF_MEMORY naming cpu:0 and the size", "[api][memory]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  for (uint64_t bytes : {UINT64_MAX, uint64_t(1) << 62, uint64_t(1) << 50}) {
    bp_buffer b = nullptr;
    INFO(bytes << " bytes");
    CHECK(cpu.api().alloc(0, bytes, &b) == BP_ERR_OUT_OF_MEMORY);
    CHECK(b == nullptr);
    CHECK(mentions(cpu, "cpu:0"));
    CHECK(mentions(cpu, std::to_string(bytes)));
  }
  // The plugin still works afterwards.
  bp_buffer ok = cpu.alloc(0, 64);
  CHECK(cpu.api().free(ok) == BP_OK);
}

TEST_CASE("NULL pointers, bad devices and bad ranges are errors with messages", "[api][errors]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  const bp_plugin_api &api = cpu.api();
  bp_buffer buf = cpu.alloc(0, 64);
  bp_buffer out = nullptr;
  void *address = nullptr;
  uint8_t bytes[128] = {};
  int32_t n = 0;
  bp_plugin_device_info info = blank_device_info();

  CHECK(api.device_count(nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.device_info(0, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.device_info(1, &info) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(mentions(cpu, "cpu:0"));
  CHECK(api.device_properties(0, nullptr, 3, &n) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.device_properties(0, nullptr, 0, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.device_properties(-1, nullptr, 0, &n) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(api.alloc(0, 16, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.alloc(2, 16, &out) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(api.free(nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.write(nullptr, 0, bytes, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.write(buf, 0, nullptr, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.write(buf, 60, bytes, 5) == BP_ERR_INVALID_ARGUMENT);
  CHECK(mentions(cpu, "64 bytes"));
  CHECK(api.write(buf, UINT64_MAX, bytes, 2) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.read(buf, 1, bytes, 64) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.read(buf, 0, nullptr, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.copy(buf, 0, nullptr, 0, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.copy(buf, 32, buf, 0, 33) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.copy(buf, 0, buf, UINT64_MAX - 1, 8) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.supports(0, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.supports(5, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &n) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(api.synchronize(1) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(api.host_address(buf, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.host_address(nullptr, &address) == BP_ERR_INVALID_ARGUMENT);
  const char *keys[] = {nullptr}, *values[] = {"1"};
  CHECK(api.init(keys, values, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.init(nullptr, nullptr, 2) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.init(nullptr, nullptr, -1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.init(nullptr, nullptr, 0) == BP_OK);
  CHECK(api.free(buf) == BP_OK);
}

TEST_CASE("execute checks the operator, its inputs and every view", "[api][errors]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  const bp_plugin_api &api = cpu.api();
  bp_buffer buf = cpu.alloc(0, 4 * 12);
  const bp_plugin_tensor a = bp_test::dense_view(buf, BP_FLOAT32, {3, 4});
  const bp_plugin_tensor in2[2] = {a, a};
  bp_op_attrs at = attrs();
  auto exec = [&](int32_t op, const bp_plugin_tensor *inputs, int32_t n, const bp_plugin_tensor *out,
                  const bp_op_attrs *attributes) { return api.execute(0, op, attributes, inputs, n, out); };

  CHECK(exec(BP_OP_ADD, in2, 2, &a, &at) == BP_OK);
  CHECK(api.execute(1, BP_OP_ADD, &at, in2, 2, &a) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(exec(99, in2, 2, &a, &at) == BP_ERR_UNSUPPORTED);
  CHECK(exec(BP_OP_ADD, in2, 2, &a, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(exec(BP_OP_ADD, in2, 2, nullptr, &at) == BP_ERR_INVALID_ARGUMENT);
  CHECK(exec(BP_OP_ADD, nullptr, 2, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  CHECK(exec(BP_OP_ADD, in2, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  CHECK(exec(BP_OP_EXP, in2, 2, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  CHECK(exec(BP_OP_FILL, in2, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  bp_op_attrs bad_mode = attrs();
  bad_mode.scalar_mode = 7;
  CHECK(exec(BP_OP_ADD, in2, 1, &a, &bad_mode) == BP_ERR_INVALID_ARGUMENT);

  // dtypes: not implemented, mixed, a non-bool condition.
  bp_plugin_tensor ints = a;
  ints.dtype = BP_INT32;
  const bp_plugin_tensor int2[2] = {ints, ints};
  CHECK(exec(BP_OP_DIV, int2, 2, &ints, &at) == BP_ERR_UNSUPPORTED);
  CHECK(mentions(cpu, "div"));
  CHECK(mentions(cpu, "int32"));
  CHECK(exec(BP_OP_EXP, &ints, 1, &ints, &at) == BP_ERR_UNSUPPORTED);
  CHECK(exec(BP_OP_ADD, in2, 2, &ints, &at) == BP_ERR_UNSUPPORTED);
  const bp_plugin_tensor mixed[2] = {a, ints};
  CHECK(exec(BP_OP_ADD, mixed, 2, &a, &at) == BP_ERR_DTYPE);
  const bp_plugin_tensor where_in[3] = {a, a, a};
  CHECK(exec(BP_OP_WHERE, where_in, 3, &a, &at) == BP_ERR_DTYPE);

  // Views: bad dtype, rank, extents, strides, offsets, buffers.
  bp_plugin_tensor v = a;
  v.dtype = BP_DTYPE_COUNT;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  v = a;
  v.rank = BP_MAX_RANK + 1;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_SHAPE);
  v = a;
  v.shape[0] = -1;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_SHAPE);
  v = a;
  v.strides[1] = -1;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  v = a;
  v.offset = 4;  // one element too far: the last element is past the buffer
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  CHECK(mentions(cpu, "48 bytes"));
  v = a;
  v.offset = 2;  // not a multiple of the element size
  v.shape[0] = 2;
  const bp_plugin_tensor small_out = bp_test::dense_view(buf, BP_FLOAT32, {2, 4});
  CHECK(exec(BP_OP_NEG, &v, 1, &small_out, &at) == BP_ERR_INVALID_ARGUMENT);
  v = a;
  v.strides[0] = INT64_MAX / 2;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  v = a;
  v.shape[0] = INT64_MAX / 2;
  v.shape[1] = 4;
  v.strides[0] = 0;
  v.strides[1] = 0;
  bp_plugin_tensor huge_out = v;
  huge_out.strides[0] = 4;
  huge_out.strides[1] = 1;
  CHECK(exec(BP_OP_NEG, &v, 1, &huge_out, &at) == BP_ERR_INVALID_ARGUMENT);
  v = a;
  v.buffer = nullptr;
  CHECK(exec(BP_OP_NEG, &v, 1, &a, &at) == BP_ERR_INVALID_ARGUMENT);
  bp_plugin_tensor overlapping_out = a;
  overlapping_out.strides[0] = 0;  // output rows on top of each other
  CHECK(exec(BP_OP_NEG, &a, 1, &overlapping_out, &at) == BP_ERR_INVALID_ARGUMENT);
  // An empty view needs no buffer.
  bp_plugin_tensor empty = a;
  empty.buffer = nullptr;
  empty.shape[0] = 0;
  CHECK(exec(BP_OP_NEG, &empty, 1, &empty, &at) == BP_OK);

  // Shapes.
  const bp_plugin_tensor row = bp_test::dense_view(buf, BP_FLOAT32, {1, 4});
  const bp_plugin_tensor mismatch[2] = {a, row};
  CHECK(exec(BP_OP_ADD, mismatch, 2, &a, &at) == BP_ERR_SHAPE);
  const bp_plugin_tensor col = bp_test::dense_view(buf, BP_FLOAT32, {3, 2});
  CHECK(exec(BP_OP_SUM, &a, 1, &col, &at) == BP_ERR_SHAPE);
  const bp_plugin_tensor flat = bp_test::dense_view(buf, BP_FLOAT32, {12});
  CHECK(exec(BP_OP_SUM, &a, 1, &flat, &at) == BP_ERR_SHAPE);
  CHECK(exec(BP_OP_MATMUL, in2, 2, &a, &at) == BP_ERR_SHAPE);  // [3,4] x [3,4]
  const bp_plugin_tensor vec[2] = {flat, flat};
  CHECK(exec(BP_OP_MATMUL, vec, 2, &flat, &at) == BP_ERR_SHAPE);  // rank 1
  bp_plugin_tensor empty_in = a;
  empty_in.shape[1] = 0;
  const bp_plugin_tensor one = bp_test::dense_view(buf, BP_FLOAT32, {3, 1});
  CHECK(exec(BP_OP_MAX, &empty_in, 1, &one, &at) == BP_ERR_SHAPE);
  CHECK(exec(BP_OP_SUM, &empty_in, 1, &one, &at) == BP_OK);
  api.free(buf);
}

TEST_CASE("the last error message belongs to the calling thread", "[api][errors]") {
  bp_test::PluginHandle cpu("cpu-openblas");
  bp_buffer b = nullptr;
  REQUIRE(cpu.api().alloc(0, UINT64_MAX, &b) == BP_ERR_OUT_OF_MEMORY);
  const std::string mine = last_error(cpu);
  std::string other;
  std::thread([&] {
    cpu.api().device_info(3, nullptr);
    other = last_error(cpu);
  }).join();
  CHECK(last_error(cpu) == mine);
  CHECK(other != mine);
  CHECK(!other.empty());
}
