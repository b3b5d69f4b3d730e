// Collectives across the devices of one process in the 8- and 16-bit dtypes,
// staged through host memory: cpu:0, reference:0 and the test plugin's
// fake:0 are three backends, so the core reduces on the host. float16 and
// bfloat16 are summed (and divided) in float32 and rounded once; the values
// are chosen so that rounding after every step would give other bits.
// int8, uint8 and int16 wrap as add does. Tensors are filled and read as
// bits through the C API, which takes every dtype.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "backplane/half.h"
#include "runtime_fixture.hpp"

namespace {

using bp_test::elements;
using bp_test::from_elements;
using bp_test::trace_text;

std::vector<bp::Device> three_backends() {
  bp_test::start(bp_test::with_test_plugins());
  return {bp::Device("cpu:0"), bp::Device("reference:0"), bp::Device("fake:0")};
}

// Participant j's tensor holds column j of `rows` (one row per element).
template <class S>
std::vector<bp::Tensor> participants(bp_dtype dtype, const std::vector<std::vector<S>> &rows,
                                     const std::vector<bp::Device> &devices) {
  std::vector<bp::Tensor> ts;
  for (size_t j = 0; j < devices.size(); ++j) {
    std::vector<S> column;
    for (const std::vector<S> &row : rows) column.push_back(row[j]);
    ts.push_back(from_elements<S>(dtype, column, devices[j]));
  }
  return ts;
}

// all_reduce with op across participants holding `rows`: each must end with want.
template <class S>
void check_all_reduce(bp_dtype dtype, const std::vector<std::vector<S>> &rows, const std::vector<bp::Device> &devices,
                      bp::Reduce op, const std::vector<S> &want) {
  std::vector<bp::Tensor> ts = participants<S>(dtype, rows, devices);
  bp::all_reduce(ts, op);
  for (const bp::Tensor &t : ts) CHECK(elements<S>(t) == want);
}

uint16_t bf16(float x) { return bp_bf16_from_f32(x); }
uint16_t f16(float x) { return bp_f16_from_f32(x); }

// What rounding to bfloat16 after every addition would give.
uint16_t bf16_stepwise_sum(const std::vector<float> &xs) {
  uint16_t acc = bf16(xs[0]);
  for (size_t j = 1; j < xs.size(); ++j) acc = bf16(bp_f32_from_bf16(acc) + xs[j]);
  return acc;
}

}  // namespace

TEST_CASE("staged bfloat16 sum adds in float32 and rounds once, on every participant") {
  const std::vector<bp::Device> devices = three_backends();
  const std::vector<std::vector<float>> rows = {
      {1.0f, 0x1p-8f, 0x1p-8f},  // 1 + 2^-7 once; each step alone ties back to 1
      {256.0f, 1.0f, 1.0f},      // 258 once; 257 ties to 256, twice
      {-2.0f, 0.5f, 3.0f},       // exact either way
  };
  const std::vector<uint16_t> want = {0x3F81, 0x4381, bf16(1.5f)};
  CHECK(bf16_stepwise_sum(rows[0]) == 0x3F80);
  CHECK(bf16_stepwise_sum(rows[1]) == 0x4380);
  std::vector<std::vector<uint16_t>> bits;
  for (const auto &row : rows) bits.push_back({bf16(row[0]), bf16(row[1]), bf16(row[2])});
  std::vector<bp::Tensor> ts = participants<uint16_t>(BP_BFLOAT16, bits, devices);
  REQUIRE(bp_trace_clear() == BP_OK);
  REQUIRE(bp_trace_enable(1) == BP_OK);
  bp::all_reduce(ts, bp::Reduce::sum);
  REQUIRE(bp_trace_enable(0) == BP_OK);
  for (const bp::Tensor &t : ts) CHECK(elements<uint16_t>(t) == want);
  CHECK(trace_text().find("all_reduce bfloat16 [3] x3 (sum): on cpu:0, reference:0, fake:0, staged through host "
                          "memory (devices of several backends)") != std::string::npos);
}

TEST_CASE("staged float16 mean divides the float32 sum before its one rounding") {
  const std::vector<bp::Device> devices = three_backends();
  // (2 + 2^-11) / 3: 0x3956 rounded once; 0x3955 when the sum is rounded first.
  CHECK(f16(bp_f32_from_f16(f16(2.0f + 0x1p-11f)) / 3.0f) == 0x3955);
  const std::vector<std::vector<uint16_t>> bits = {
      {f16(1.0f), f16(0x1p-11f), f16(1.0f)},
      {f16(-6.0f), f16(1.5f), f16(0.0f)},
  };
  check_all_reduce<uint16_t>(BP_FLOAT16, bits, devices, bp::Reduce::mean, {0x3956, f16(-1.5f)});
}

TEST_CASE("staged float16 and bfloat16 max and min keep the chosen input's bits, -0 and subnormals included") {
  const std::vector<bp::Device> devices = three_backends();
  for (bp_dtype dtype : {BP_FLOAT16, BP_BFLOAT16}) {
    INFO(bp_dtype_name(dtype));
    // A subnormal of either format, a negative, -0 against a smaller negative.
    const std::vector<std::vector<uint16_t>> bits = {{0x0001, 0x0000, 0x8001}, {0xC000, 0xC200, 0xBC00}, {0x8000, 0xC000, 0x8000}};
    check_all_reduce<uint16_t>(dtype, bits, devices, bp::Reduce::max, {0x0001, 0xBC00, 0x8000});
    check_all_reduce<uint16_t>(dtype, bits, devices, bp::Reduce::min, {0x8001, 0xC200, 0xC000});
  }
}

TEST_CASE("staged int8 and int16 sums wrap as add does, means truncate the wrapped sum toward zero") {
  const std::vector<bp::Device> devices = three_backends();
  const std::vector<std::vector<int8_t>> i8 = {{100, 27, 1}, {-128, -1, 0}, {-7, 0, 0}, {100, 100, 100}};
  check_all_reduce<int8_t>(BP_INT8, i8, devices, bp::Reduce::sum, {-128, 127, -7, 44});
  // 128 wraps to -128: -42; -129 to 127: 42; 300 to 44: 14.
  check_all_reduce<int8_t>(BP_INT8, i8, devices, bp::Reduce::mean, {-42, 42, -2, 14});
  const std::vector<std::vector<int16_t>> i16 = {{30000, 30000, 10}, {-32768, -1, -5}};
  check_all_reduce<int16_t>(BP_INT16, i16, devices, bp::Reduce::sum, {-5526, 32762});
}

TEST_CASE("staged uint8 max and min compare unsigned, sum wraps") {
  const std::vector<bp::Device> devices = three_backends();
  const std::vector<std::vector<uint8_t>> u8 = {{200, 7, 255}, {0, 1, 0}, {128, 127, 129}};
  check_all_reduce<uint8_t>(BP_UINT8, u8, devices, bp::Reduce::max, {255, 1, 129});
  check_all_reduce<uint8_t>(BP_UINT8, u8, devices, bp::Reduce::min, {7, 0, 127});
  check_all_reduce<uint8_t>(BP_UINT8, u8, devices, bp::Reduce::sum, {206, 1, 128});
}

TEST_CASE("staged broadcast and all_gather move 16-bit floats as bits, NaN payloads included") {
  const std::vector<bp::Device> devices = three_backends();
  const std::vector<std::vector<uint16_t>> bits = {{0x7FC1, 0x0001, 0x7F80}, {0x8000, 0xFFFF, 0x3F80}};
  for (bp_dtype dtype : {BP_FLOAT16, BP_BFLOAT16}) {
    INFO(bp_dtype_name(dtype));
    std::vector<bp::Tensor> ts = participants<uint16_t>(dtype, bits, devices);
    bp::broadcast(ts, 2);
    for (const bp::Tensor &t : ts) CHECK(elements<uint16_t>(t) == std::vector<uint16_t>{0x7F80, 0x3F80});
    const std::vector<bp::Tensor> gathered = bp::all_gather(participants<uint16_t>(dtype, bits, devices));
    REQUIRE(gathered.size() == 3);
    for (size_t j = 0; j < 3; ++j) {
      CHECK(gathered[j].device().name() == devices[j].name());
      CHECK(gathered[j].shape() == bp::Shape{3, 2});
      CHECK(elements<uint16_t>(gathered[j]) == std::vector<uint16_t>{0x7FC1, 0x8000, 0x0001, 0xFFFF, 0x7F80, 0x3F80});
    }
  }
}

TEST_CASE("staged bfloat16 reduce_scatter sums each row in float32 and rounds once") {
  const std::vector<bp::Device> devices = three_backends();
  // Participant j's tensor [3]: row i is its share for participant i.
  const std::vector<std::vector<uint16_t>> bits = {
      {bf16(1.0f), bf16(0x1p-8f), bf16(0x1p-8f)},
      {bf16(256.0f), bf16(1.0f), bf16(1.0f)},
      {bf16(-3.0f), bf16(-3.0f), bf16(7.0f)},
  };
  const std::vector<bp::Tensor> out = bp::reduce_scatter(participants<uint16_t>(BP_BFLOAT16, bits, devices));
  REQUIRE(out.size() == 3);
  CHECK(elements<uint16_t>(out[0]) == std::vector<uint16_t>{0x3F81});
  CHECK(elements<uint16_t>(out[1]) == std::vector<uint16_t>{0x4381});
  CHECK(elements<uint16_t>(out[2]) == std::vector<uint16_t>{bf16(1.0f)});
}
