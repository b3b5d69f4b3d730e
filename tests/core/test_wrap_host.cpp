// bp_wrap_host: tensors over host memory the caller owns, without a copy
// (backplane.h). Runs on every device whose backend has wrap_host.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "backplane/half.h"
#include "runtime_fixture.hpp"
#include "skip.hpp"

namespace {

bp_device host_device() {
  bp_test::start(bp_test::kHostAndOpenCL);
  const std::string name = GENERATE(as<std::string>{}, "cpu:0", "reference:0");
  bp_device d = -1;
  REQUIRE(bp_device_get(name.c_str(), &d) == BP_OK);
  return d;
}

// Counts the release calls of one wrapped block.
struct Owner {
  std::atomic<int> released{0};
  static void release(void *context) { static_cast<Owner *>(context)->released.fetch_add(1); }
};

template <class T>
std::vector<T> read(bp_tensor t, size_t n) {
  std::vector<T> out(n);
  REQUIRE(bp_to_host(t, out.data(), n * sizeof(T)) == BP_OK);
  return out;
}

bool mentions(const std::string &part) { return std::string(bp_last_error()).find(part) != std::string::npos; }

}  // namespace

TEST_CASE("bp_wrap_host shares memory both ways and releases it once when the last view is gone") {
  const bp_device d = host_device();
  std::vector<float> memory = {1, 2, 3, 4, 5, 6};
  Owner owner;
  const int64_t shape[] = {2, 3};
  bp_tensor t = 0;
  REQUIRE(bp_wrap_host(d, BP_FLOAT32, 2, shape, nullptr, memory.data(), Owner::release, &owner, &t) == BP_OK);
  void *address = nullptr;
  REQUIRE(bp_tensor_host_address(t, &address) == BP_OK);
  CHECK(address == memory.data());
  CHECK(read<float>(t, 6) == memory);

  // Backplane's writes land in the owner's memory.
  REQUIRE(bp_binary_scalar_kind_out(BP_OP_MUL, t, 10.0, BP_SCALAR_KIND_FLOAT, 0, t) == BP_OK);
  REQUIRE(bp_tensor_wait(t) == BP_OK);
  CHECK(memory == std::vector<float>{10, 20, 30, 40, 50, 60});
  // And the owner's writes are what Backplane reads next.
  memory[0] = -1;
  CHECK(read<float>(t, 6)[0] == -1);

  // A view keeps the memory: release comes with the last one.
  bp_tensor row = 0;
  REQUIRE(bp_slice(t, 0, 1, 2, 1, &row) == BP_OK);
  REQUIRE(bp_tensor_release(t) == BP_OK);
  CHECK(owner.released.load() == 0);
  CHECK(read<float>(row, 3) == std::vector<float>{40, 50, 60});
  REQUIRE(bp_tensor_release(row) == BP_OK);
  REQUIRE(bp_synchronize(d) == BP_OK);
  CHECK(owner.released.load() == 1);
}

TEST_CASE("bp_wrap_host takes element strides and 16-bit dtypes") {
  const bp_device d = host_device();
  SECTION("a transposed layout reads transposed") {
    std::vector<int32_t> memory = {0, 1, 2, 3, 4, 5};  // a [2, 3] matrix seen as its [3, 2] transpose
    const int64_t shape[] = {3, 2}, strides[] = {1, 3};
    bp_tensor t = 0;
    REQUIRE(bp_wrap_host(d, BP_INT32, 2, shape, strides, memory.data(), nullptr, nullptr, &t) == BP_OK);
    CHECK(read<int32_t>(t, 6) == std::vector<int32_t>{0, 3, 1, 4, 2, 5});
    REQUIRE(bp_tensor_release(t) == BP_OK);
  }
  SECTION("bfloat16 bits are used in place") {
    std::vector<uint16_t> memory = {bp_bf16_from_f32(1.5f), bp_bf16_from_f32(-2.0f)};
    Owner owner;
    const int64_t shape[] = {2};
    bp_tensor t = 0, doubled = 0;
    REQUIRE(bp_wrap_host(d, BP_BFLOAT16, 1, shape, nullptr, memory.data(), Owner::release, &owner, &t) == BP_OK);
    REQUIRE(bp_binary(BP_OP_ADD, t, t, &doubled) == BP_OK);
    CHECK(read<uint16_t>(doubled, 2) == std::vector<uint16_t>{bp_bf16_from_f32(3.0f), bp_bf16_from_f32(-4.0f)});
    REQUIRE(bp_tensor_release(doubled) == BP_OK);
    REQUIRE(bp_tensor_release(t) == BP_OK);
    REQUIRE(bp_synchronize(d) == BP_OK);
    CHECK(owner.released.load() == 1);
  }
  SECTION("an empty tensor needs no memory") {
    const int64_t shape[] = {0, 4};
    bp_tensor t = 0;
    REQUIRE(bp_wrap_host(d, BP_FLOAT64, 2, shape, nullptr, nullptr, nullptr, nullptr, &t) == BP_OK);
    REQUIRE(bp_tensor_release(t) == BP_OK);
  }
}

TEST_CASE("bp_wrap_host refuses what it cannot use and then never calls release") {
  const bp_device d = host_device();
  std::vector<double> memory(8, 0.0);
  Owner owner;
  const int64_t shape[] = {2, 2};
  bp_tensor t = 0;
  SECTION("a negative stride") {
    const int64_t strides[] = {-2, 1};
    CHECK(bp_wrap_host(d, BP_FLOAT64, 2, shape, strides, memory.data() + 4, Owner::release, &owner, &t) ==
          BP_ERR_INVALID_ARGUMENT);
    CHECK(mentions("negative"));
  }
  SECTION("memory not aligned to the elements") {
    auto *odd = reinterpret_cast<unsigned char *>(memory.data()) + 1;
    CHECK(bp_wrap_host(d, BP_FLOAT64, 2, shape, nullptr, odd, Owner::release, &owner, &t) == BP_ERR_INVALID_ARGUMENT);
    CHECK(mentions("aligned"));
  }
  SECTION("no memory for a tensor with elements") {
    CHECK(bp_wrap_host(d, BP_FLOAT64, 2, shape, nullptr, nullptr, Owner::release, &owner, &t) == BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("a bad dtype, shape or out pointer") {
    CHECK(bp_wrap_host(d, 99, 2, shape, nullptr, memory.data(), Owner::release, &owner, &t) == BP_ERR_DTYPE);
    const int64_t negative[] = {-1, 2};
    CHECK(bp_wrap_host(d, BP_FLOAT64, 2, negative, nullptr, memory.data(), Owner::release, &owner, &t) == BP_ERR_SHAPE);
    CHECK(bp_wrap_host(d, BP_FLOAT64, 2, shape, nullptr, memory.data(), Owner::release, &owner, nullptr) ==
          BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("a device that does not exist") {
    CHECK(bp_wrap_host(12345, BP_FLOAT64, 2, shape, nullptr, memory.data(), Owner::release, &owner, &t) != BP_OK);
  }
  CHECK(owner.released.load() == 0);
}

TEST_CASE("bp_wrap_host on a device without the entry is BP_ERR_UNSUPPORTED naming it") {
  bp_test::start(bp_test::kHostAndOpenCL);
  bp_device d = -1;
  if (bp_device_get("opencl:0", &d) != BP_OK)
    return bp_test::skip("no opencl:0 here (the opencl plugin or PoCL is missing)");
  std::vector<float> memory(4, 0.0f);
  Owner owner;
  const int64_t shape[] = {4};
  bp_tensor t = 0;
  CHECK(bp_wrap_host(d, BP_FLOAT32, 1, shape, nullptr, memory.data(), Owner::release, &owner, &t) == BP_ERR_UNSUPPORTED);
  CHECK(mentions("opencl"));
  CHECK(mentions("bp_from_host"));
  CHECK(owner.released.load() == 0);
}
