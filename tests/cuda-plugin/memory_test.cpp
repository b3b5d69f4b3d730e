// Device memory and transfers of the CUDA plugin: host round trips at any
// offset and size (also several times the pinned staging ring), empty
// buffers, out-of-range and out-of-memory errors, device info, copies
// within a device (overlapping too) and between devices.
#include <numeric>
#include <string>

#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> bytes(n);
  uint32_t x = seed * 2654435761u + 1;
  for (uint8_t &b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return bytes;
}

// cuda:0's device info, REQUIREd to be read.
bp_plugin_device_info device_zero_info(const bp_plugin_api &api) {
  bp_plugin_device_info info = blank_device_info();
  REQUIRE(api.device_info(0, &info) == BP_OK);
  return info;
}

// Frees on scope exit, so that a failed REQUIRE leaks nothing.
struct Owned {
  const bp_test::PluginHandle &plugin;
  bp_buffer buffer;
  ~Owned() { plugin.api().free(buffer); }
};

}  // namespace

TEST_CASE("cuda: bytes written at any offset read back the same", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  Owned b{plugin, plugin.alloc(0, 1000)};
  const std::vector<uint8_t> zeros(1000, 0), part = pattern(517, 1);
  REQUIRE(api.write(b.buffer, 0, zeros.data(), zeros.size()) == BP_OK);
  REQUIRE(api.write(b.buffer, 3, part.data(), part.size()) == BP_OK);
  std::vector<uint8_t> expected = zeros;
  std::copy(part.begin(), part.end(), expected.begin() + 3);
  CHECK(plugin.download<uint8_t>(b.buffer, 1000) == expected);
  CHECK(plugin.download<uint8_t>(b.buffer, 10, 515) ==
        std::vector<uint8_t>(expected.begin() + 515, expected.begin() + 525));
}

TEST_CASE("cuda: transfers larger than the staging ring are chunked correctly", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  // 40 MiB and a few bytes: several 4 MiB chunks, and more than the 16 MiB
  // ring, so writing waits for earlier chunks' copies to free it.
  const size_t n = (size_t(40) << 20) + 13;
  Owned b{plugin, plugin.alloc(0, n + 5)};
  const std::vector<uint8_t> data = pattern(n, 2);
  REQUIRE(api.write(b.buffer, 5, data.data(), n) == BP_OK);
  std::vector<uint8_t> back(n);
  REQUIRE(api.read(b.buffer, 5, back.data(), n) == BP_OK);
  CHECK(back == data);
  // A read across chunk boundaries at an odd offset.
  const size_t at = (size_t(4) << 20) - 7, len = (size_t(9) << 20) + 3;
  std::vector<uint8_t> middle(len);
  REQUIRE(api.read(b.buffer, 5 + at, middle.data(), len) == BP_OK);
  CHECK(std::equal(middle.begin(), middle.end(), data.begin() + static_cast<std::ptrdiff_t>(at)));
}

TEST_CASE("cuda: many small writes in a row stay asynchronous and correct", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  // More writes than the ring holds at once if each took a chunk; the
  // source is reused (overwritten) right after every call.
  const size_t count = 5000, size = 24;
  Owned b{plugin, plugin.alloc(0, count * size)};
  std::vector<uint8_t> expected(count * size), scratch(size);
  for (size_t i = 0; i < count; ++i) {
    scratch = pattern(size, static_cast<uint32_t>(i + 10));
    std::copy(scratch.begin(), scratch.end(), expected.begin() + static_cast<std::ptrdiff_t>(i * size));
    REQUIRE(api.write(b.buffer, i * size, scratch.data(), size) == BP_OK);
    std::fill(scratch.begin(), scratch.end(), 0xEE);
  }
  CHECK(plugin.download<uint8_t>(b.buffer, count * size) == expected);
}

TEST_CASE("cuda: empty buffers and empty transfers", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  bp_buffer empty = plugin.alloc(0, 0);
  CHECK(api.write(empty, 0, nullptr, 0) == BP_OK);
  CHECK(api.read(empty, 0, nullptr, 0) == BP_OK);
  CHECK(api.copy(empty, 0, empty, 0, 0) == BP_OK);
  const bp_op_attrs attrs = bp_test::default_attrs();
  const bp_plugin_tensor none = bp_test::dense_view(nullptr, BP_FLOAT32, {0, 3});
  CHECK(api.execute(0, BP_OP_FILL, &attrs, nullptr, 0, &none) == BP_OK);
  CHECK(api.free(empty) == BP_OK);
  CHECK(api.free(empty) == BP_ERR_INVALID_ARGUMENT);  // freed already
}

TEST_CASE("cuda: ranges outside a buffer are refused", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  Owned b{plugin, plugin.alloc(0, 64)};
  std::vector<uint8_t> host(128);
  CHECK(api.write(b.buffer, 60, host.data(), 8) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.read(b.buffer, 0, host.data(), 65) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.read(b.buffer, ~uint64_t(0), host.data(), 2) == BP_ERR_INVALID_ARGUMENT);
  CHECK(api.copy(b.buffer, 32, b.buffer, 0, 33) == BP_ERR_INVALID_ARGUMENT);
  // A view reaching past its buffer is refused before any kernel runs.
  const bp_op_attrs attrs = bp_test::default_attrs();
  const bp_plugin_tensor too_big = bp_test::dense_view(b.buffer, BP_FLOAT32, {17});
  CHECK(api.execute(0, BP_OP_FILL, &attrs, nullptr, 0, &too_big) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(api.last_error()).find("beyond") != std::string::npos);
}

TEST_CASE("cuda: out of device memory is an error naming the device and the bytes", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  bp_plugin_device_info info = device_zero_info(api);
  for (uint64_t bytes : {info.memory_total + 1, info.memory_total, ~uint64_t(0)}) {
    bp_buffer b = nullptr;
    const bp_status status = api.alloc(0, bytes, &b);
    if (status == BP_OK) {  // the whole memory may just fit an idle device
      api.free(b);
      continue;
    }
    const std::string message = api.last_error();
    INFO(message);
    CHECK(status == BP_ERR_OUT_OF_MEMORY);
    CHECK(message.find("cuda:0") != std::string::npos);
    CHECK(message.find(std::to_string(bytes)) != std::string::npos);
  }
  // The device still works afterwards.
  Owned b{plugin, plugin.alloc(0, 1 << 20)};
  const std::vector<uint8_t> data = pattern(1 << 20, 3);
  REQUIRE(api.write(b.buffer, 0, data.data(), data.size()) == BP_OK);
  CHECK(plugin.download<uint8_t>(b.buffer, data.size()) == data);
}

TEST_CASE("cuda: device info and properties describe the GPU", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  bp_plugin_device_info info = device_zero_info(api);
  CHECK(info.kind == BP_DEVICE_GPU);
  CHECK(std::string(info.model).size() > 0);
  CHECK(info.memory_total > 0);
  const uint64_t in_use = info.memory_in_use;
  Owned b{plugin, plugin.alloc(0, 12345)};
  REQUIRE(api.device_info(0, &info) == BP_OK);
  CHECK(info.memory_in_use == in_use + 12345);
  CHECK(info.memory_free > 0);  // known once the device is in use
  CHECK(info.memory_free <= info.memory_total);

  bp_property props[32];
  int32_t n = 0;
  REQUIRE(api.device_properties(0, props, 32, &n) == BP_OK);
  std::vector<std::string> keys;
  for (int32_t i = 0; i < n; ++i) {
    keys.push_back(props[i].key);
    INFO(props[i].key << " = " << props[i].value);
    CHECK(std::string(props[i].value).size() > 0);
  }
  for (const char *key : {"compute_capability", "multiprocessors", "driver_version", "runtime_version", "memory_in_use",
                          "memory_cached", "peer_access"})
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  int32_t two = 0;
  REQUIRE(api.device_properties(0, props, 2, &two) == BP_OK);
  CHECK(two == 2);
}

TEST_CASE("cuda: copies within a device, overlapping ones included, behave like memmove", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  const std::vector<uint8_t> data = pattern(4096, 4);
  Owned a{plugin, plugin.upload(0, data)};
  Owned b{plugin, plugin.alloc(0, 4096)};
  REQUIRE(api.copy(a.buffer, 100, b.buffer, 0, 3000) == BP_OK);
  CHECK(plugin.download<uint8_t>(b.buffer, 3000) == std::vector<uint8_t>(data.begin() + 100, data.begin() + 3100));
  for (int direction : {+1, -1}) {
    REQUIRE(api.write(a.buffer, 0, data.data(), data.size()) == BP_OK);
    const uint64_t from = direction > 0 ? 0 : 700, to = direction > 0 ? 700 : 0;
    REQUIRE(api.copy(a.buffer, from, a.buffer, to, 3000) == BP_OK);
    std::vector<uint8_t> expected = data;
    std::memmove(expected.data() + to, data.data() + from, 3000);
    CHECK(plugin.download<uint8_t>(a.buffer, data.size()) == expected);
  }
}

TEST_CASE("cuda: copies between two devices", "[cuda][memory]") {
  bp_test::PluginHandle plugin(kPlugin);
  if (!has_device(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  const Devices d = devices(plugin);
  if (d.count < 2) {
    bp_test::skip("needs two CUDA devices, found " + std::to_string(d.count));
    return;
  }
  // Large enough for several staging chunks when the devices have no peer access.
  const std::vector<uint8_t> data = pattern((size_t(9) << 20) + 5, 5);
  Owned a{plugin, plugin.upload(0, data)};
  Owned b{plugin, plugin.alloc(1, data.size() + 3)};
  REQUIRE(api.copy(a.buffer, 0, b.buffer, 3, data.size()) == BP_OK);
  CHECK(plugin.download<uint8_t>(b.buffer, data.size(), 3) == data);
  // And back, after work on the source device that the copy must wait for.
  const bp_op_attrs attrs = [] {
    bp_op_attrs at = bp_test::default_attrs();
    at.scalar = 7;
    return at;
  }();
  const bp_plugin_tensor ones = bp_test::dense_view(b.buffer, BP_BOOL, {static_cast<int64_t>(data.size())}, 3);
  REQUIRE(api.execute(1, BP_OP_FILL, &attrs, nullptr, 0, &ones) == BP_OK);  // every byte 1
  REQUIRE(api.copy(b.buffer, 3, a.buffer, 0, data.size()) == BP_OK);
  CHECK(plugin.download<uint8_t>(a.buffer, data.size()) == std::vector<uint8_t>(data.size(), 1));
  // A buffer on another device is not an operand of this one.
  const bp_plugin_tensor on_one = bp_test::dense_view(b.buffer, BP_FLOAT32, {4});
  CHECK(api.execute(0, BP_OP_FILL, &attrs, nullptr, 0, &on_one) == BP_ERR_DEVICE_MISMATCH);
}
