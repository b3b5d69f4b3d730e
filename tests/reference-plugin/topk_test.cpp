// Known values for TOPK (since 1.6): plugin.h's order, the specification the
// other backends are compared against (tests/support/family_checks.hpp),
// and every malformed call refused before anything is written.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

bp_op_attrs topk_attrs(int32_t option) {
  bp_op_attrs attrs = default_attrs();
  attrs.option = option;
  return attrs;
}

// TOPK of the views, both outputs read back: values, then positions.
template <class T>
std::pair<std::vector<T>, std::vector<int64_t>> topk(Reference &ref, const bp_plugin_tensor &in,
                                                     const bp_plugin_tensor &values, const bp_plugin_tensor &indices,
                                                     int32_t option) {
  const bp_plugin_tensor outputs[2] = {values, indices};
  const bp_op_attrs attrs = topk_attrs(option);
  const bp_status s = ref.api().execute(0, BP_OP_TOPK, &attrs, &in, 1, outputs);
  INFO(ref.error());
  REQUIRE(s == BP_OK);
  return {ref.values<T>(values), ref.values<int64_t>(indices)};
}

}  // namespace

TEST_CASE("topk orders floats as NumPy's sort: ties by position, NaN last, -0 tied with +0", "[topk]") {
  Reference ref;
  const double nan = std::nan(""), inf = INFINITY;
  // Positions:                                  0     1    2     3    4    5     6     7
  const bp_plugin_tensor x = ref.tensor<double>({8}, {1.0, nan, -0.0, inf, 0.0, -inf, 1.0, -nan});
  auto [v, i] = topk<double>(ref, x, ref.empty(BP_FLOAT64, {8}), ref.empty(BP_INT64, {8}), 0);
  CHECK(i == std::vector<int64_t>{5, 2, 4, 0, 6, 3, 1, 7});
  CHECK(std::signbit(v[1]));  // the element's own bits: -0 stays -0
  CHECK(!std::signbit(v[2]));
  CHECK(std::isnan(v[6]));
  auto [lv, li] = topk<double>(ref, x, ref.empty(BP_FLOAT64, {3}), ref.empty(BP_INT64, {3}), BP_OPTION_LARGEST);
  CHECK(li == std::vector<int64_t>{1, 7, 3});
  CHECK(lv[2] == inf);
}

TEST_CASE("topk runs along the last axis of strided views into strided outputs", "[topk]") {
  Reference ref;
  // in is the transpose of [[3, 1, 2, 1], [0, 5, 5, 4]]: rows (3, 0), (1, 5), (2, 5), (1, 4).
  const bp_plugin_tensor in = ref.view<int32_t>({3, 1, 2, 1, 0, 5, 5, 4}, {4, 2}, {1, 4});
  // Every other element of a [4, 2] buffer, column by column.
  const bp_plugin_tensor values = ref.view<int32_t>(std::vector<int32_t>(8, -1), {4, 1}, {2, 1});
  const bp_plugin_tensor indices = ref.view<int64_t>(std::vector<int64_t>(8, -1), {4, 1}, {2, 1}, 1);
  auto [v, i] = topk<int32_t>(ref, in, values, indices, BP_OPTION_LARGEST);
  CHECK(v == std::vector<int32_t>{3, 5, 5, 4});
  CHECK(i == std::vector<int64_t>{0, 1, 1, 1});
  CHECK(ref.contents<int32_t>(values.buffer, 8) == std::vector<int32_t>{3, -1, 5, -1, 5, -1, 4, -1});
  CHECK(ref.contents<int64_t>(indices.buffer, 8) == std::vector<int64_t>{-1, 0, -1, 1, -1, 1, -1, 1});
}

TEST_CASE("topk of the 8- and 16-bit dtypes and bool", "[topk]") {
  Reference ref;
  {
    bp_plugin_tensor as_bool = ref.tensor<uint8_t>({5}, {1, 0, 1, 1, 0});
    as_bool.dtype = BP_BOOL;
    auto [v, i] = topk<uint8_t>(ref, as_bool, ref.empty(BP_BOOL, {5}), ref.empty(BP_INT64, {5}), BP_OPTION_LARGEST);
    CHECK(i == std::vector<int64_t>{0, 2, 3, 1, 4});
    CHECK(v == std::vector<uint8_t>{1, 1, 1, 0, 0});
  }
  {
    const bp_plugin_tensor x = ref.tensor<int8_t>({4}, {-128, 127, 0, -1});
    auto [v, i] = topk<int8_t>(ref, x, ref.empty(BP_INT8, {4}), ref.empty(BP_INT64, {4}), 0);
    CHECK(i == std::vector<int64_t>{0, 3, 2, 1});
  }
  {
    // float16: 2.0 (0x4000), -0 (0x8000), NaN (0x7e01), +0 (0x0000), -inf (0xfc00).
    using H = bp_plugin::float16;
    bp_plugin_tensor x = ref.tensor<H>({5}, {H(0x4000), H(0x8000), H(0x7e01), H(0x0000), H(0xfc00)});
    auto [v, i] = topk<uint16_t>(ref, x, ref.empty(BP_FLOAT16, {5}), ref.empty(BP_INT64, {5}), 0);
    CHECK(i == std::vector<int64_t>{4, 1, 3, 0, 2});
    CHECK(v == std::vector<uint16_t>{0xfc00, 0x8000, 0x0000, 0x4000, 0x7e01});
    // As bfloat16 the bits are 2.0, -0, 0x1.02p+125, +0 and -0x1p+121.
    x.dtype = BP_BFLOAT16;
    auto [bv, bi] = topk<uint16_t>(ref, x, ref.empty(BP_BFLOAT16, {2}), ref.empty(BP_INT64, {2}), BP_OPTION_LARGEST);
    CHECK(bi == std::vector<int64_t>{2, 0});
  }
}

TEST_CASE("malformed topk calls are refused before anything is written", "[topk][errors]") {
  Reference ref;
  const bp_plugin_tensor x = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const bp_op_attrs attrs = topk_attrs(0);
  auto refuse = [&](const bp_plugin_tensor &in, const bp_plugin_tensor &values, const bp_plugin_tensor &indices,
                    bp_status expected, const bp_op_attrs &a, const std::vector<std::string> &words) {
    const bp_plugin_tensor outputs[2] = {values, indices};
    check_error(ref, ref.api().execute(0, BP_OP_TOPK, &a, &in, 1, outputs), expected, words);
    CHECK(ref.contents<uint8_t>(values.buffer, 1) == std::vector<uint8_t>{0});
  };
  // k = 4 > n = 3, rows that differ, a rank-0 input, indices not int64.
  refuse(x, ref.empty(BP_FLOAT32, {2, 4}), ref.empty(BP_INT64, {2, 4}), BP_ERR_SHAPE, attrs, {"topk", "k <= n"});
  refuse(x, ref.empty(BP_FLOAT32, {3, 2}), ref.empty(BP_INT64, {3, 2}), BP_ERR_SHAPE, attrs, {"topk"});
  refuse(x, ref.empty(BP_FLOAT32, {2, 2}), ref.empty(BP_INT64, {2, 1}), BP_ERR_SHAPE, attrs, {"topk"});
  refuse(ref.tensor<float>({}, {1}), ref.empty(BP_FLOAT32, {}), ref.empty(BP_INT64, {}), BP_ERR_SHAPE, attrs, {"topk"});
  refuse(x, ref.empty(BP_FLOAT32, {2, 2}), ref.empty(BP_INT32, {2, 2}), BP_ERR_DTYPE, attrs, {"indices", "int64"});
  refuse(x, ref.empty(BP_FLOAT64, {2, 2}), ref.empty(BP_INT64, {2, 2}), BP_ERR_UNSUPPORTED, attrs, {"topk"});
  // An option bit plugin.h does not define.
  refuse(x, ref.empty(BP_FLOAT32, {2, 2}), ref.empty(BP_INT64, {2, 2}), BP_ERR_INVALID_ARGUMENT, topk_attrs(2),
         {"option", "BP_OPTION_LARGEST"});
  // One output only: the second is a view of no buffer.
  bp_plugin_tensor none{};
  none.dtype = BP_INT64;
  none.rank = 2;
  none.shape[0] = 2;
  none.shape[1] = 2;
  refuse(x, ref.empty(BP_FLOAT32, {2, 2}), none, BP_ERR_INVALID_ARGUMENT, attrs, {"output 1"});
}
