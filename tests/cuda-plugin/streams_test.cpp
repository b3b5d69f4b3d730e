// Asynchrony of the CUDA plugin: work is enqueued and runs in issue order,
// reads wait for it, memory freed while work on it is pending is reused
// safely, several threads share a device, and work on two devices is
// ordered through copies.
#include <atomic>
#include <thread>

#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

bp_op_attrs scalar_attrs(double scalar, bp_scalar_mode mode = BP_SCALAR_NONE) {
  bp_op_attrs a = bp_test::default_attrs();
  a.scalar = scalar;
  a.scalar_mode = mode;
  return a;
}

}  // namespace

TEST_CASE("cuda: enqueued work runs in order and a read waits for it", "[cuda][streams]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  const int64_t n = 1 << 22;
  bp_buffer b = plugin.alloc(0, n * 4);
  const bp_plugin_tensor x = bp_test::dense_view(b, BP_INT32, {n});
  const bp_op_attrs zero = scalar_attrs(0), plus_one = scalar_attrs(1, BP_SCALAR_RHS);
  REQUIRE(api.execute(0, BP_OP_FILL, &zero, nullptr, 0, &x) == BP_OK);
  for (int i = 0; i < 200; ++i) REQUIRE(api.execute(0, BP_OP_ADD, &plus_one, &x, 1, &x) == BP_OK);
  const std::vector<int32_t> values = plugin.download<int32_t>(b, static_cast<size_t>(n));
  CHECK(std::all_of(values.begin(), values.end(), [](int32_t v) { return v == 200; }));
  CHECK(api.synchronize(0) == BP_OK);
  CHECK(api.free(b) == BP_OK);
}

TEST_CASE("cuda: memory freed while work on it is pending is reused safely", "[cuda][streams]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  const int64_t n = 1 << 22;
  std::vector<float> data(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) data[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  bp_buffer result = plugin.alloc(0, n * 4);
  const bp_plugin_tensor out = bp_test::dense_view(result, BP_FLOAT32, {n});
  for (int round = 0; round < 20; ++round) {
    bp_buffer source = plugin.upload(0, data);
    const bp_plugin_tensor in = bp_test::dense_view(source, BP_FLOAT32, {n});
    const bp_op_attrs times_two = scalar_attrs(2, BP_SCALAR_RHS);
    REQUIRE(api.execute(0, BP_OP_MUL, &times_two, &in, 1, &out) == BP_OK);
    REQUIRE(api.free(source) == BP_OK);  // the multiply may not have run yet
    // Same size: the cache hands the same memory out again at once; the
    // new owner's write must not overtake the multiply still reading it.
    bp_buffer reuse = plugin.alloc(0, n * 4);
    const std::vector<float> junk(static_cast<size_t>(n), -1.0f);
    REQUIRE(api.write(reuse, 0, junk.data(), junk.size() * 4) == BP_OK);
    REQUIRE(api.free(reuse) == BP_OK);
  }
  const std::vector<float> values = plugin.download<float>(result, static_cast<size_t>(n));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += values[static_cast<size_t>(i)] != 2 * data[static_cast<size_t>(i)];
  CHECK(wrong == 0);
  CHECK(api.free(result) == BP_OK);
  bp_plugin_device_info info = blank_device_info();
  REQUIRE(api.device_info(0, &info) == BP_OK);
  CHECK(info.memory_in_use == 0);
}

TEST_CASE("cuda: several threads share a device", "[cuda][streams]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const int64_t n = 10000 + t;
      for (int i = 0; i < 50; ++i) {
        bp_buffer b = nullptr;
        if (api.alloc(0, n * 8, &b) != BP_OK) {
          ++failures;
          return;
        }
        const bp_plugin_tensor x = bp_test::dense_view(b, BP_INT64, {n});
        bp_op_attrs arange = scalar_attrs(t * 1000 + i);  // start
        arange.scalar2 = 1;                               // step
        std::vector<int64_t> back(static_cast<size_t>(n));
        const bool ok = api.execute(0, BP_OP_ARANGE, &arange, nullptr, 0, &x) == BP_OK &&
                        api.read(b, 0, back.data(), back.size() * 8) == BP_OK;
        for (int64_t j = 0; ok && j < n; ++j)
          if (back[static_cast<size_t>(j)] != t * 1000 + i + j) {
            ++failures;
            break;
          }
        if (!ok) ++failures;
        api.free(b);
      }
    });
  }
  for (std::thread &th : threads) th.join();
  CHECK(failures == 0);
}

TEST_CASE("cuda: work on two devices is ordered through copies", "[cuda][streams]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  if (devices(plugin).count < 2) {
    bp_test::skip("needs two CUDA devices, found " + std::to_string(devices(plugin).count));
    return;
  }
  const int64_t n = 1 << 22;
  bp_buffer x0 = plugin.alloc(0, n * 4), x1 = plugin.alloc(1, n * 4), y1 = plugin.alloc(1, n * 4);
  const bp_plugin_tensor v0 = bp_test::dense_view(x0, BP_FLOAT32, {n}), v1 = bp_test::dense_view(x1, BP_FLOAT32, {n}),
                         w1 = bp_test::dense_view(y1, BP_FLOAT32, {n});
  const bp_op_attrs three = scalar_attrs(3), plus_one = scalar_attrs(1, BP_SCALAR_RHS);
  REQUIRE(api.execute(0, BP_OP_FILL, &three, nullptr, 0, &v0) == BP_OK);
  for (int i = 0; i < 50; ++i) REQUIRE(api.execute(0, BP_OP_ADD, &plus_one, &v0, 1, &v0) == BP_OK);  // 53
  REQUIRE(api.copy(x0, 0, x1, 0, n * 4) == BP_OK);  // waits for cuda:0's queue
  const bp_plugin_tensor in[2] = {v1, v1};
  const bp_op_attrs none = bp_test::default_attrs();
  REQUIRE(api.execute(1, BP_OP_ADD, &none, in, 2, &w1) == BP_OK);  // 106, after the copy
  // Overwriting the copy's source right away must not change what was copied.
  REQUIRE(api.execute(0, BP_OP_FILL, &three, nullptr, 0, &v0) == BP_OK);
  const std::vector<float> values = plugin.download<float>(y1, static_cast<size_t>(n));
  CHECK(std::all_of(values.begin(), values.end(), [](float v) { return v == 106.0f; }));
  CHECK(api.synchronize(0) == BP_OK);
  CHECK(api.synchronize(1) == BP_OK);
  for (bp_buffer b : {x0, x1, y1}) CHECK(api.free(b) == BP_OK);
}
