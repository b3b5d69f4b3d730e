// Buffers: host round trips, copies within and between the two devices,
// ordering of asynchronous work, memory accounting and out-of-memory.
#include <thread>

#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

Bytes random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bytes b(n);
  for (auto &x : b) x = static_cast<unsigned char>(rng());
  return b;
}

uint64_t in_use(int32_t device) {
  bp_plugin_device_info info = blank_device_info();
  ocl().check(ocl().api().device_info(device, &info), "device_info");
  return info.memory_in_use;
}

}  // namespace

TEST_CASE("host round trips are bit exact, at offsets too", "[memory]") {
  PluginHandle &p = ocl();
  for (int32_t device : {0, 1}) {
    const Bytes data = random_bytes(100003, 31 + static_cast<uint64_t>(device));
    bp_buffer b = p.upload(device, data);
    CHECK(p.download<unsigned char>(b, data.size()) == data);
    // Partial write and read at odd offsets.
    const Bytes patch = random_bytes(777, 32);
    p.check(p.api().write(b, 12345, patch.data(), patch.size()), "write");
    CHECK(p.download<unsigned char>(b, patch.size(), 12345) == patch);
    CHECK(p.download<unsigned char>(b, 100, 12345 + 777) ==
          Bytes(data.begin() + 12345 + 777, data.begin() + 12345 + 877));
    p.check(p.api().free(b), "free");
  }
}

TEST_CASE("zero-byte buffers and transfers are fine", "[memory]") {
  PluginHandle &p = ocl();
  bp_buffer b = p.alloc(0, 0);
  REQUIRE(b != nullptr);
  CHECK(p.api().write(b, 0, nullptr, 0) == BP_OK);
  CHECK(p.api().read(b, 0, nullptr, 0) == BP_OK);
  bp_buffer c = p.alloc(1, 16);
  CHECK(p.api().copy(b, 0, c, 16, 0) == BP_OK);
  p.check(p.api().free(b), "free");
  p.check(p.api().free(c), "free");
}

TEST_CASE("copies between the two devices and back are bit exact", "[memory]") {
  PluginHandle &p = ocl();
  REQUIRE(p.device_count() == 2);
  const Bytes data = random_bytes(1 << 20, 33);
  bp_buffer d0 = p.upload(0, data);
  bp_buffer d1 = p.alloc(1, data.size());
  bp_buffer back = p.alloc(0, data.size());
  p.check(p.api().copy(d0, 0, d1, 0, data.size()), "copy 0->1");
  p.check(p.api().copy(d1, 0, back, 0, data.size()), "copy 1->0");
  CHECK(p.download<unsigned char>(d1, data.size()) == data);
  CHECK(p.download<unsigned char>(back, data.size()) == data);
  // Partial copy at offsets.
  p.check(p.api().copy(d0, 1000, d1, 3, 5000), "partial copy");
  const Bytes part = p.download<unsigned char>(d1, 5000, 3);
  CHECK(part == Bytes(data.begin() + 1000, data.begin() + 6000));
  for (bp_buffer b : {d0, d1, back}) p.check(p.api().free(b), "free");
}

TEST_CASE("copies within one buffer may overlap (memmove semantics)", "[memory]") {
  PluginHandle &p = ocl();
  const Bytes data = random_bytes(4096, 34);
  bp_buffer b = p.upload(1, data);
  p.check(p.api().copy(b, 0, b, 100, 3000), "overlapping copy");
  Bytes want = data;
  std::memmove(want.data() + 100, want.data(), 3000);
  CHECK(p.download<unsigned char>(b, want.size()) == want);
  p.check(p.api().free(b), "free");
}

TEST_CASE("a cross-device copy waits for earlier work on the source and holds back later work",
          "[memory]") {
  // x on device 0 is computed by a chain of enqueued ops, copied to device 1
  // before anyone waits, then overwritten on device 0: device 1 must see the
  // chain's result, device 0 the overwrite.
  PluginHandle &p = ocl();
  const int64_t n = 1 << 16;
  const View s = dense(BP_FLOAT32, {n});
  bp_buffer x = p.upload(0, std::vector<float>(static_cast<size_t>(n), 0.0f));
  const bp_plugin_tensor tx = plugin_view(x, s);
  const bp_op_attrs plus_one = attrs_with(1.0, 0, 0, BP_SCALAR_RHS);
  for (int i = 0; i < 50; ++i)
    p.check(p.api().execute(0, BP_OP_ADD, &plus_one, &tx, 1, &tx), "add");
  bp_buffer y = p.alloc(1, static_cast<uint64_t>(n) * 4);
  p.check(p.api().copy(x, 0, y, 0, static_cast<uint64_t>(n) * 4), "copy");
  const bp_op_attrs fill = attrs_with(-7.0);
  p.check(p.api().execute(0, BP_OP_FILL, &fill, nullptr, 0, &tx), "fill");
  const std::vector<float> on1 = p.download<float>(y, static_cast<size_t>(n));
  const std::vector<float> on0 = p.download<float>(x, static_cast<size_t>(n));
  CHECK(on1 == std::vector<float>(static_cast<size_t>(n), 50.0f));
  CHECK(on0 == std::vector<float>(static_cast<size_t>(n), -7.0f));
  p.check(p.api().free(x), "free");
  p.check(p.api().free(y), "free");
}

TEST_CASE("many enqueued operators then one read give the right result", "[memory]") {
  PluginHandle &p = ocl();
  const View s = dense(BP_INT64, {1000});
  std::vector<int64_t> host(1000);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int64_t>(i);
  for (int32_t device : {0, 1}) {
    bp_buffer x = p.upload(device, host);
    const bp_plugin_tensor tx = plugin_view(x, s);
    // x = (x * 3 + 1) - 1, 20 times: x * 3^20, as int64.
    const bp_op_attrs times3 = attrs_with(3.0, 0, 0, BP_SCALAR_RHS);
    const bp_op_attrs plus1 = attrs_with(1.0, 0, 0, BP_SCALAR_RHS);
    const bp_op_attrs minus1 = attrs_with(1.0, 0, 0, BP_SCALAR_RHS);
    for (int i = 0; i < 20; ++i) {
      p.check(p.api().execute(device, BP_OP_MUL, &times3, &tx, 1, &tx), "mul");
      p.check(p.api().execute(device, BP_OP_ADD, &plus1, &tx, 1, &tx), "add");
      p.check(p.api().execute(device, BP_OP_SUB, &minus1, &tx, 1, &tx), "sub");
    }
    const std::vector<int64_t> got = p.download<int64_t>(x, host.size());
    int64_t factor = 1;
    for (int i = 0; i < 20; ++i) factor *= 3;
    for (size_t i = 0; i < host.size(); ++i) REQUIRE(got[i] == host[i] * factor);
    p.check(p.api().free(x), "free");
  }
}

TEST_CASE("write returns with src reusable while earlier work still runs", "[memory]") {
  PluginHandle &p = ocl();
  const int64_t n = 1 << 18;
  const View s = dense(BP_FLOAT32, {n});
  bp_buffer busy = p.upload(0, std::vector<float>(static_cast<size_t>(n), 1.0f));
  const bp_plugin_tensor tb = plugin_view(busy, s);
  const bp_op_attrs attrs = attrs_with();
  for (int i = 0; i < 20; ++i) p.check(p.api().execute(0, BP_OP_EXP, &attrs, &tb, 1, &tb), "exp");
  std::vector<float> src(1024, 3.0f);
  bp_buffer dst = p.alloc(0, src.size() * 4);
  p.check(p.api().write(dst, 0, src.data(), src.size() * 4), "write");
  std::fill(src.begin(), src.end(), -1.0f);  // the plugin must have kept its own copy
  CHECK(p.download<float>(dst, 1024) == std::vector<float>(1024, 3.0f));
  p.check(p.api().free(busy), "free");
  p.check(p.api().free(dst), "free");
}

TEST_CASE("free while work on the buffer is pending, and synchronize", "[memory]") {
  PluginHandle &p = ocl();
  const View s = dense(BP_FLOAT64, {1 << 16});
  bp_buffer a = p.upload(1, std::vector<double>(1 << 16, 2.0));
  bp_buffer out = p.alloc(1, (1 << 16) * 8);
  const bp_plugin_tensor ta = plugin_view(a, s), to = plugin_view(out, s);
  const bp_op_attrs attrs = attrs_with();
  p.check(p.api().execute(1, BP_OP_SQRT, &attrs, &ta, 1, &to), "sqrt");
  p.check(p.api().free(a), "free with work pending");
  p.check(p.api().synchronize(1), "synchronize");
  p.check(p.api().synchronize(0), "synchronize an idle device");
  CHECK(p.download<double>(out, 4) == std::vector<double>(4, std::sqrt(2.0)));
  p.check(p.api().free(out), "free");
}

TEST_CASE("memory_in_use follows alloc and free per device", "[memory]") {
  const uint64_t before0 = in_use(0), before1 = in_use(1);
  bp_buffer a = ocl().alloc(0, 1000), b = ocl().alloc(1, 3000);
  CHECK(in_use(0) == before0 + 1000);
  CHECK(in_use(1) == before1 + 3000);
  ocl().check(ocl().api().free(a), "free");
  ocl().check(ocl().api().free(b), "free");
  CHECK(in_use(0) == before0);
  CHECK(in_use(1) == before1);
}

TEST_CASE("out of memory is an error naming the device and the size", "[memory]") {
  PluginHandle &p = ocl();
  bp_buffer b = nullptr;
  const uint64_t huge = uint64_t{1} << 50;
  Outcome r = outcome(p, p.api().alloc(1, huge, &b));
  CHECK(r.status == BP_ERR_OUT_OF_MEMORY);
  CHECK(b == nullptr);
  CHECK_THAT(r.message, Catch::Contains("opencl:1") && Catch::Contains(std::to_string(huge)));
  // Just over the largest single allocation.
  bp_plugin_device_info info = blank_device_info();
  p.check(p.api().device_info(0, &info), "device_info");
  r = outcome(p, p.api().alloc(0, info.memory_total + 1, &b));
  CHECK(r.status == BP_ERR_OUT_OF_MEMORY);
  CHECK_THAT(r.message, Catch::Contains("opencl:0"));
}

TEST_CASE("transfers outside a buffer and dead handles are errors", "[memory]") {
  PluginHandle &p = ocl();
  bp_buffer b = p.alloc(0, 64);
  unsigned char host[128] = {};
  CHECK(p.api().write(b, 60, host, 8) == BP_ERR_INVALID_ARGUMENT);
  CHECK(p.api().read(b, 65, host, 0) == BP_ERR_INVALID_ARGUMENT);
  CHECK(p.api().read(b, 0, nullptr, 8) == BP_ERR_INVALID_ARGUMENT);
  CHECK(p.api().copy(b, 0, b, 32, 40) == BP_ERR_INVALID_ARGUMENT);
  CHECK(p.api().free(nullptr) == BP_ERR_INVALID_ARGUMENT);
  p.check(p.api().free(b), "free");
  Outcome r = outcome(p, p.api().free(b));
  CHECK(r.status == BP_ERR_INVALID_ARGUMENT);
  CHECK_THAT(r.message, Catch::Contains("not a live buffer"));
  CHECK(p.api().read(b, 0, host, 8) == BP_ERR_INVALID_ARGUMENT);
  bp_buffer out = nullptr;
  CHECK(p.api().alloc(5, 8, &out) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(p.api().alloc(0, 8, nullptr) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("the plugin may be called from several threads at once", "[memory]") {
  PluginHandle &p = ocl();
  REQUIRE((p.api().flags & BP_PLUGIN_THREAD_SAFE) != 0);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const int32_t device = t % 2;
      const View s = dense(BP_INT32, {4096});
      std::vector<int32_t> host(4096, t);
      bp_buffer x = p.upload(device, host);
      const bp_plugin_tensor tx = plugin_view(x, s);
      const bp_op_attrs plus = attrs_with(1.0, 0, 0, BP_SCALAR_RHS);
      for (int i = 0; i < 25; ++i) p.check(p.api().execute(device, BP_OP_ADD, &plus, &tx, 1, &tx), "add");
      ok[static_cast<size_t>(t)] = p.download<int32_t>(x, 4096) == std::vector<int32_t>(4096, t + 25);
      p.check(p.api().free(x), "free");
    });
  for (auto &th : threads) th.join();
  CHECK(ok == std::vector<int>(4, 1));
}
