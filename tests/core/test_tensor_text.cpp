// bp's tensor printing (tools/tensor_text.cpp) for every dtype: float16 and
// bfloat16 widened exactly (backplane/half.h) and shown as floats, integers
// of every width shown whole.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"
#include "tensor_text.hpp"

namespace {

template <class S>
bp::Tensor tensor(bp_dtype dtype, const std::vector<S> &values, std::vector<int64_t> shape) {
  bp_tensor h = BP_NO_TENSOR;
  bp::check(bp_from_host(bp::Device("cpu:0").id(), dtype, int32_t(shape.size()), shape.data(), values.data(), &h));
  return bp::Tensor::adopt(h);
}

}  // namespace

TEST_CASE("bp prints float16 and bfloat16 as the floats they hold") {
  bp_test::start(bp_test::kHostOnly);
  // 1.5, -0.1 rounded (float16 0xAE66 is -0.0999755859375), infinity, a NaN.
  CHECK(bptool::tensor_values(tensor<uint16_t>(BP_FLOAT16, {0x3E00, 0xAE66, 0x7C00, 0x7E00}, {2, 2})) ==
        "[[1.5, -0.09998], [inf, nan]]");
  // 0.1 rounded (bfloat16 0x3DCD is 0.10009765625), -0, the largest finite, a subnormal.
  CHECK(bptool::tensor_values(tensor<uint16_t>(BP_BFLOAT16, {0x3DCD, 0x8000, 0x7F7F, 0x0001}, {4})) ==
        "[0.1001, -0, 3.39e+38, 9.184e-41]");
  CHECK(bptool::tensor_values(tensor<uint16_t>(BP_BFLOAT16, {0xC040}, {})) == "-3");
}

TEST_CASE("bp prints integers of every width whole") {
  bp_test::start(bp_test::kHostOnly);
  CHECK(bptool::tensor_values(tensor<int8_t>(BP_INT8, {-128, 127, 0}, {3})) == "[-128, 127, 0]");
  CHECK(bptool::tensor_values(tensor<uint8_t>(BP_UINT8, {255, 0}, {1, 2})) == "[[255, 0]]");
  CHECK(bptool::tensor_values(tensor<int16_t>(BP_INT16, {-32768, 32767}, {2})) == "[-32768, 32767]");
  CHECK(bptool::tensor_values(tensor<int64_t>(BP_INT64, {(int64_t(1) << 55) + 1}, {1})) == "[36028797018963969]");
  CHECK(bptool::tensor_values(tensor<int32_t>(BP_INT32, {123456789, -1}, {2})) == "[123456789, -1]");
}

TEST_CASE("bp stops printing after the elements it was asked for") {
  bp_test::start(bp_test::kHostOnly);
  CHECK(bptool::tensor_values(tensor<int8_t>(BP_INT8, {1, 2, 3, 4, 5, 6}, {2, 3}), 4) == "[[1, 2, 3], [4, ...");
}
