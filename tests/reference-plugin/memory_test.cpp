// Buffers: alloc, free, write, read, copy, host_address, bounds and out-of-memory.
#include "reference_test.hpp"

using namespace ref_test;

TEST_CASE("write and read round-trip, at offsets", "[memory]") {
  Reference ref;
  bp_buffer b = ref.alloc(32);
  const std::vector<int32_t> all = {1, 2, 3, 4, 5, 6, 7, 8};
  REQUIRE(ref.api().write(b, 0, all.data(), 32) == BP_OK);
  CHECK(ref.contents<int32_t>(b, 8) == all);

  const int32_t middle[2] = {-10, -20};
  REQUIRE(ref.api().write(b, 12, middle, 8) == BP_OK);
  CHECK(ref.contents<int32_t>(b, 8) == std::vector<int32_t>{1, 2, 3, -10, -20, 6, 7, 8});

  int32_t tail[3] = {0, 0, 0};
  REQUIRE(ref.api().read(b, 20, tail, 12) == BP_OK);
  CHECK(tail[0] == 6);
  CHECK(tail[1] == 7);
  CHECK(tail[2] == 8);
}

TEST_CASE("fresh buffers read as zeros", "[memory]") {
  Reference ref;
  bp_buffer b = ref.alloc(64);
  CHECK(ref.contents<uint8_t>(b, 64) == std::vector<uint8_t>(64, 0));
}

TEST_CASE("zero-byte buffers are real buffers", "[memory]") {
  Reference ref;
  bp_buffer b = ref.alloc(0);
  CHECK(b != nullptr);
  CHECK(ref.api().write(b, 0, nullptr, 0) == BP_OK);
  CHECK(ref.api().read(b, 0, nullptr, 0) == BP_OK);
  void *address = nullptr;
  CHECK(ref.api().host_address(b, &address) == BP_OK);
  CHECK(address != nullptr);
  int32_t x = 5;
  check_error(ref, ref.api().write(b, 0, &x, 4), BP_ERR_INVALID_ARGUMENT, {"write", "0 bytes"});
}

TEST_CASE("copy between buffers and within one buffer", "[memory]") {
  Reference ref;
  bp_buffer a = ref.buffer<int64_t>({1, 2, 3, 4});
  bp_buffer b = ref.buffer<int64_t>({0, 0, 0, 0});
  REQUIRE(ref.api().copy(a, 8, b, 16, 16) == BP_OK);
  CHECK(ref.contents<int64_t>(b, 4) == std::vector<int64_t>{0, 0, 2, 3});

  // Overlapping ranges of one buffer behave like memmove.
  REQUIRE(ref.api().copy(a, 0, a, 8, 24) == BP_OK);
  CHECK(ref.contents<int64_t>(a, 4) == std::vector<int64_t>{1, 1, 2, 3});
  REQUIRE(ref.api().copy(a, 8, a, 0, 24) == BP_OK);
  CHECK(ref.contents<int64_t>(a, 4) == std::vector<int64_t>{1, 2, 3, 3});
  CHECK(ref.api().copy(a, 32, b, 0, 0) == BP_OK);
}

TEST_CASE("host_address exposes the buffer's bytes", "[memory]") {
  Reference ref;
  bp_buffer b = ref.buffer<float>({1.5f, 2.5f});
  void *address = nullptr;
  REQUIRE(ref.api().host_address(b, &address) == BP_OK);
  float *data = static_cast<float *>(address);
  CHECK(data[0] == 1.5f);
  CHECK(data[1] == 2.5f);
  data[1] = 9.0f;
  CHECK(ref.contents<float>(b, 2) == std::vector<float>{1.5f, 9.0f});
}

TEST_CASE("accesses outside a buffer are refused", "[memory][errors]") {
  Reference ref;
  bp_buffer b = ref.alloc(16);
  bp_buffer c = ref.alloc(16);
  std::vector<uint8_t> host(32, 7);
  check_error(ref, ref.api().write(b, 0, host.data(), 17), BP_ERR_INVALID_ARGUMENT,
              {"write", "17 bytes", "16 bytes"});
  check_error(ref, ref.api().write(b, 12, host.data(), 8), BP_ERR_INVALID_ARGUMENT,
              {"offset 12"});
  check_error(ref, ref.api().read(b, 17, host.data(), 0), BP_ERR_INVALID_ARGUMENT, {"read"});
  // offset + bytes would wrap around 2^64: still refused.
  check_error(ref, ref.api().read(b, UINT64_MAX, host.data(), 2), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().copy(b, 8, c, 0, 9), BP_ERR_INVALID_ARGUMENT, {"copy", "src"});
  check_error(ref, ref.api().copy(b, 0, c, 10, 8), BP_ERR_INVALID_ARGUMENT, {"copy", "dst"});
  // Nothing was written by the refused calls.
  CHECK(ref.contents<uint8_t>(b, 16) == std::vector<uint8_t>(16, 0));
  CHECK(ref.contents<uint8_t>(c, 16) == std::vector<uint8_t>(16, 0));
  // The last byte exactly is fine.
  CHECK(ref.api().write(b, 15, host.data(), 1) == BP_OK);
  CHECK(ref.api().read(b, 16, host.data(), 0) == BP_OK);
}

TEST_CASE("NULL buffers and pointers are refused", "[memory][errors]") {
  Reference ref;
  bp_buffer b = ref.alloc(8);
  uint8_t host[8] = {0};
  void *address = nullptr;
  check_error(ref, ref.api().alloc(0, 8, nullptr), BP_ERR_INVALID_ARGUMENT, {"alloc"});
  check_error(ref, ref.api().free(nullptr), BP_ERR_INVALID_ARGUMENT, {"free"});
  check_error(ref, ref.api().write(nullptr, 0, host, 8), BP_ERR_INVALID_ARGUMENT, {"write"});
  check_error(ref, ref.api().write(b, 0, nullptr, 8), BP_ERR_INVALID_ARGUMENT, {"src"});
  check_error(ref, ref.api().read(nullptr, 0, host, 8), BP_ERR_INVALID_ARGUMENT, {"read"});
  check_error(ref, ref.api().read(b, 0, nullptr, 8), BP_ERR_INVALID_ARGUMENT, {"dst"});
  check_error(ref, ref.api().copy(nullptr, 0, b, 0, 8), BP_ERR_INVALID_ARGUMENT, {"src"});
  check_error(ref, ref.api().copy(b, 0, nullptr, 0, 8), BP_ERR_INVALID_ARGUMENT, {"dst"});
  check_error(ref, ref.api().host_address(nullptr, &address), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().host_address(b, nullptr), BP_ERR_INVALID_ARGUMENT, {"address"});
}

TEST_CASE("a handle that is not one of ours is refused", "[memory][errors]") {
  Reference ref;
  // Looks like a pointer to something, but was never made by alloc (say, a
  // buffer of another plugin handed to the wrong backend).
  alignas(16) unsigned char fake[64] = {0};
  bp_buffer b = reinterpret_cast<bp_buffer>(fake);
  uint8_t host[4] = {0};
  check_error(ref, ref.api().read(b, 0, host, 4), BP_ERR_INVALID_ARGUMENT, {"not a live buffer"});
  check_error(ref, ref.api().free(b), BP_ERR_INVALID_ARGUMENT, {"not a live buffer"});
}

TEST_CASE("allocations that cannot succeed fail with BP_ERR_OUT_OF_MEMORY", "[memory][errors]") {
  Reference ref;
  bp_plugin_device_info info = blank_device_info();
  REQUIRE(ref.api().device_info(0, &info) == BP_OK);
  const uint64_t before = info.memory_in_use;

  bp_buffer b = reinterpret_cast<bp_buffer>(&info);  // must be reset to NULL
  check_error(ref, ref.api().alloc(0, 1ull << 62, &b), BP_ERR_OUT_OF_MEMORY,
              {"reference:0", "4611686018427387904"});
  CHECK(b == nullptr);
  check_error(ref, ref.api().alloc(0, UINT64_MAX, &b), BP_ERR_OUT_OF_MEMORY,
              {"reference:0", "18446744073709551615"});
  CHECK(b == nullptr);

  REQUIRE(ref.api().device_info(0, &info) == BP_OK);
  CHECK(info.memory_in_use == before);
}
