// A plugin built against ABI 1.3 (abi13_collective_plugin.c) never sees a
// dtype of 1.4 in its collective entry: the core stages such a collective
// through host memory and says why, while float32 still runs on the plugin.
// Nor is it asked about an operator of 1.5 (ERF).
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

std::vector<bp::Device> abi13_devices() {
  bp_test::start(bp_test::with_plugins_in(BP_TEST_ABI13_PLUGIN_DIR));
  return {bp::Device("abi13:0"), bp::Device("abi13:1")};
}

// The routing trace of f().
template <class F>
std::string traced(F f) {
  REQUIRE(bp_trace_clear() == BP_OK);
  REQUIRE(bp_trace_enable(1) == BP_OK);
  f();
  REQUIRE(bp_trace_enable(0) == BP_OK);
  return trace_text();
}

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an ABI 1.3 plugin's collective entry still runs its float32 sum") {
  const std::vector<bp::Device> d = abi13_devices();
  std::vector<bp::Tensor> ts{from_elements<float>(BP_FLOAT32, {1.5f, -2}, d[0]),
                             from_elements<float>(BP_FLOAT32, {2, 4}, d[1])};
  const std::string trace = traced([&] { bp::all_reduce(ts, bp::Reduce::sum); });
  CHECK(has(trace, "all_reduce float32 [2] x2 (sum): on abi13:0, abi13:1, ran on backend abi13 (its collective entry)"));
  for (const bp::Tensor &t : ts) CHECK(elements<float>(t) == std::vector<float>{3.5f, 2});
}

TEST_CASE("an ABI 1.3 plugin never sees a 1.4 dtype in its collective entry: the core stages it") {
  const std::vector<bp::Device> d = abi13_devices();
  // Handed to the plugin, it would answer BP_ERR_INVALID_ARGUMENT (a dtype it does not know).
  const std::vector<uint16_t> a = {bp_bf16_from_f32(1.0f), bp_bf16_from_f32(-3.0f)};
  const std::vector<uint16_t> b = {bp_bf16_from_f32(0x1p-8f), bp_bf16_from_f32(0.5f)};
  std::vector<bp::Tensor> ts{from_elements<uint16_t>(BP_BFLOAT16, a, d[0]),
                             from_elements<uint16_t>(BP_BFLOAT16, b, d[1])};
  const std::string trace = traced([&] { bp::all_reduce(ts, bp::Reduce::sum); });
  CHECK(has(trace, "all_reduce bfloat16 [2] x2 (sum): on abi13:0, abi13:1, staged through host memory (backend "
                   "abi13 was built for ABI 1.3, before bfloat16 came in 1.4)"));
  for (const bp::Tensor &t : ts) CHECK(elements<uint16_t>(t) == std::vector<uint16_t>{0x3F80, bp_bf16_from_f32(-2.5f)});

  std::vector<bp::Tensor> bytes{from_elements<int8_t>(BP_INT8, {-5, 7}, d[0]),
                                from_elements<int8_t>(BP_INT8, {1, 1}, d[1])};
  const std::string staged = traced([&] {
    bp::broadcast(bytes, 0);
    const std::vector<bp::Tensor> rows = bp::all_gather(bytes);
    CHECK(elements<int8_t>(rows[1]) == std::vector<int8_t>{-5, 7, -5, 7});
  });
  CHECK(has(staged, "broadcast int8 [2] x2: on abi13:0, abi13:1, staged through host memory (backend abi13 was "
                    "built for ABI 1.3, before int8 came in 1.4)"));
  CHECK(has(staged, "all_gather int8 [2] x2: on abi13:0, abi13:1, staged through host memory"));
  CHECK(elements<int8_t>(bytes[1]) == std::vector<int8_t>{-5, 7});
}

TEST_CASE("an ABI 1.3 plugin is never asked about nor handed a 1.4 dtype by an operator") {
  const std::vector<bp::Device> d = abi13_devices();
  const bp::Tensor x = from_elements<uint16_t>(BP_BFLOAT16, {bp_bf16_from_f32(1.0f)}, d[0]);
  bp_tensor out = BP_NO_TENSOR;
  // The plugin says yes to NEG of any dtype number; the core knows better.
  CHECK(bp_unary(BP_OP_NEG, x.handle(), &out) == BP_ERR_UNSUPPORTED);
  CHECK(has(bp_last_error(), "neg"));
  CHECK(has(bp_last_error(), "bfloat16"));
}

TEST_CASE("an ABI 1.3 plugin is never asked about nor handed an operator of 1.5") {
  const std::vector<bp::Device> d = abi13_devices();
  const bp::Tensor x = from_elements<float>(BP_FLOAT32, {0.5f}, d[0]);
  bp_tensor out = BP_NO_TENSOR;
  // The plugin says yes to ERF; handed it, execute would fail naming operator 32.
  CHECK(bp_unary(BP_OP_ERF, x.handle(), &out) == BP_ERR_UNSUPPORTED);
  CHECK(has(bp_last_error(), "backend abi13 does not implement erf for float32"));
}
