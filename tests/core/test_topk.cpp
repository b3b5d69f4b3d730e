// bp_topk, bp_topk_out, bp_sort and bp_argsort through the C API and the C++
// header on every host device and OpenCL: plugin.h's order (stable ties in
// both directions, NaN after every number, -0 tied with +0, bool false
// first), every dtype, every axis of strided views, rank 0, and every
// malformed call answered with a status naming the function. The gradients
// are in test_autograd.cpp; tests/python/test_topk.py compares many random
// cases with NumPy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "runtime_fixture.hpp"

namespace {

using bp_test::last_error_mentions;

const double kNaN = std::nan("");
const double kInf = INFINITY;

// Bits of a float64 (NaN payloads aside, every value's own bits).
uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// plugin.h's ascending order of float64 values: -1, 0 or 1.
int order(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return int(std::isnan(a)) - int(std::isnan(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

// The stable order of a row, ascending or descending: its positions.
std::vector<int64_t> stable_positions(const std::vector<double> &row, bool descending) {
  std::vector<int64_t> p(row.size());
  std::iota(p.begin(), p.end(), 0);
  std::stable_sort(p.begin(), p.end(), [&](int64_t i, int64_t j) {
    const int o = order(row[size_t(i)], row[size_t(j)]);
    return descending ? o > 0 : o < 0;
  });
  return p;
}

}  // namespace

TEST_CASE("topk and sort order ties, NaN, infinities and signed zeros as plugin.h says") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  // Positions:                     0    1     2    3     4   5    6     7     8    9
  const std::vector<double> row = {2.0, kNaN, -0.0, 2.0, kInf, 0.0, -kInf, kNaN, 1.0, 2.0};
  const bp::Tensor x = bp::from_vector<double>(row, {10}, d);
  auto [v, i] = x.sort();
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{6, 2, 5, 8, 0, 3, 9, 4, 1, 7});
  auto [dv, di] = x.sort(-1, true);
  CHECK(di.to_vector<int64_t>() == std::vector<int64_t>{1, 7, 4, 0, 3, 9, 8, 2, 5, 6});
  // The values are the elements' own bits: -0 stays -0.
  const std::vector<double> values = v.to_vector<double>();
  CHECK(bits(values[1]) == bits(-0.0));
  CHECK(bits(values[2]) == bits(0.0));
  CHECK(std::isnan(values[8]));
  auto [tv, ti] = x.topk(4);
  CHECK(ti.to_vector<int64_t>() == std::vector<int64_t>{1, 7, 4, 0});
  auto [sv, si] = x.topk(3, 0, false);
  CHECK(si.to_vector<int64_t>() == std::vector<int64_t>{6, 2, 5});
  CHECK(sv.to_vector<double>()[0] == -kInf);
  CHECK(x.argsort().to_vector<int64_t>() == i.to_vector<int64_t>());
  CHECK(x.argsort(0, true).to_vector<int64_t>() == di.to_vector<int64_t>());
}

// OpenCL's programs for each dtype are compiled on first use (a second
// each with PoCL): its dtypes are the plugin tests' and the kit's.
TEST_CASE("topk takes every dtype as it is") {
  const bp::Device d = bp_test::each_host_device();
  auto check_sort = [&](bp_dtype dtype, auto elements, std::vector<int64_t> ascending, std::vector<int64_t> descending) {
    INFO(bp_dtype_name(dtype));
    const bp::Tensor x = bp_test::from_elements(dtype, elements, d);
    CHECK(x.argsort().to_vector<int64_t>() == ascending);
    CHECK(x.argsort(0, true).to_vector<int64_t>() == descending);
    auto [values, indices] = x.topk(2);
    CHECK(values.dtype() == dtype);
    CHECK(indices.dtype() == BP_INT64);
    auto got = bp_test::elements<typename decltype(elements)::value_type>(values);
    CHECK(got[0] == elements[size_t(descending[0])]);
    CHECK(got[1] == elements[size_t(descending[1])]);
  };
  check_sort(BP_BOOL, std::vector<uint8_t>{1, 0, 1, 0}, {1, 3, 0, 2}, {0, 2, 1, 3});
  check_sort(BP_INT8, std::vector<int8_t>{-128, 127, -1, 127, 0}, {0, 2, 4, 1, 3}, {1, 3, 4, 2, 0});
  check_sort(BP_UINT8, std::vector<uint8_t>{255, 0, 128, 0}, {1, 3, 2, 0}, {0, 2, 1, 3});
  check_sort(BP_INT16, std::vector<int16_t>{-32768, 5, 32767, 5}, {0, 1, 3, 2}, {2, 1, 3, 0});
  check_sort(BP_INT32, std::vector<int32_t>{INT32_MIN, 7, -7, INT32_MAX}, {0, 2, 1, 3}, {3, 1, 2, 0});
  check_sort(BP_INT64, std::vector<int64_t>{INT64_MAX, INT64_MIN, 0, INT64_MIN}, {1, 3, 2, 0}, {0, 2, 1, 3});
  // float16 bits: 1.0 0x3c00, -2.0 0xc000, NaN 0x7e00, -0 0x8000, +0 0x0000, inf 0x7c00.
  check_sort(BP_FLOAT16, std::vector<uint16_t>{0x3c00, 0xc000, 0x7e00, 0x8000, 0x0000, 0x7c00},
             {1, 3, 4, 0, 5, 2}, {2, 5, 0, 3, 4, 1});
  // bfloat16 bits: 1.0 0x3f80, -2.0 0xc000, NaN 0xffc0 (negative sign), inf 0x7f80, -inf 0xff80.
  check_sort(BP_BFLOAT16, std::vector<uint16_t>{0x3f80, 0xc000, 0xffc0, 0x7f80, 0xff80}, {4, 1, 0, 3, 2},
             {2, 3, 0, 1, 4});
  check_sort(BP_FLOAT32, std::vector<float>{0.5f, -0.5f, 1e-45f, -1e-45f}, {1, 3, 2, 0}, {0, 2, 3, 1});
}

TEST_CASE("topk along every axis of strided views agrees with a stable sort") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> small(-3, 3);  // many ties
  std::vector<double> data(4 * 5 * 6);
  for (double &x : data) x = small(rng) == 3 ? kNaN : double(small(rng)) * 0.5;
  const bp::Tensor base = bp::from_vector<double>(data, {4, 5, 6}, d);
  const bp::Tensor x = base.permute({2, 0, 1});  // [6, 4, 5], strided
  const std::vector<int64_t> shape = {6, 4, 5};
  const std::vector<double> host = x.contiguous().to_vector<double>();
  for (int32_t axis = 0; axis < 3; ++axis)
    for (bool largest : {false, true})
      for (int64_t k : {int64_t(0), int64_t(1), int64_t(3), shape[size_t(axis)]}) {
        INFO("axis " << axis << ", k " << k << (largest ? ", largest" : ", smallest"));
        auto [values, indices] = x.topk(k, axis, largest);
        std::vector<int64_t> want_shape = shape;
        want_shape[size_t(axis)] = k;
        REQUIRE(values.shape() == bp::Shape(want_shape.begin(), want_shape.end()));
        const std::vector<double> got_v = values.to_vector<double>();
        const std::vector<int64_t> got_i = indices.to_vector<int64_t>();
        // Every row along the axis, by its index on the other two.
        const int32_t a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int64_t p = 0; p < shape[size_t(a)]; ++p)
          for (int64_t q = 0; q < shape[size_t(b)]; ++q) {
            auto flat = [&](const std::vector<int64_t> &ext, int64_t j) {
              int64_t idx[3];
              idx[axis] = j;
              idx[a] = p;
              idx[b] = q;
              return size_t((idx[0] * ext[1] + idx[1]) * ext[2] + idx[2]);
            };
            std::vector<double> line;
            for (int64_t j = 0; j < shape[size_t(axis)]; ++j) line.push_back(host[flat(shape, j)]);
            const std::vector<int64_t> want = stable_positions(line, largest);
            for (int64_t j = 0; j < k; ++j) {
              CHECK(got_i[flat(want_shape, j)] == want[size_t(j)]);
              CHECK(bits(got_v[flat(want_shape, j)]) == bits(line[size_t(want[size_t(j)])]));
            }
          }
      }
}

TEST_CASE("topk of a rank-0 tensor is one element, as in PyTorch") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::full({}, 2.5, BP_FLOAT32, d);
  auto [v, i] = x.topk(1);
  CHECK(v.rank() == 0);
  CHECK(v.item<float>() == 2.5f);
  CHECK(i.item<int64_t>() == 0);
  auto [ev, ei] = x.topk(0, 0);
  CHECK(ev.shape() == bp::Shape{0});
  CHECK(x.sort().values.rank() == 0);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_topk(x.handle(), 2, 0, 1, &out, nullptr) == BP_ERR_SHAPE);
  CHECK(bp_topk(x.handle(), 1, 1, 1, &out, nullptr) == BP_ERR_SHAPE);
}

TEST_CASE("bp_topk_out writes into existing, strided tensors and records nothing") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const bp::Tensor x = bp::from_vector<int32_t>({3, 1, 4, 1, 5, 9, 2, 6}, {2, 4}, d);
  // Columns 0 and 2 of a [2, 4] buffer: strided outputs.
  const bp::Tensor values_base = bp::zeros({2, 4}, BP_INT32, d), indices_base = bp::zeros({2, 4}, BP_INT64, d);
  const bp::Tensor values = values_base.slice(1, 0, 4, 2), indices = indices_base.slice(1, 0, 4, 2);
  REQUIRE(bp_topk_out(x.handle(), 2, 1, 0, values.handle(), indices.handle()) == BP_OK);
  CHECK(values_base.to_vector<int32_t>() == std::vector<int32_t>{1, 0, 1, 0, 2, 0, 5, 0});
  CHECK(indices_base.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 3, 0, 2, 0, 0, 0});
}

TEST_CASE("malformed topk, sort and argsort calls are refused with a status naming the function") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  bp_tensor v = BP_NO_TENSOR, i = BP_NO_TENSOR;
  CHECK(bp_topk(x.handle(), 4, 1, 1, &v, &i) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("topk: k = 4 is outside 0..3"));
  CHECK(std::string(bp_last_error_op()) == "topk");
  CHECK(bp_topk(x.handle(), -1, 1, 1, &v, &i) == BP_ERR_SHAPE);
  CHECK(bp_topk(x.handle(), 1, 2, 1, &v, &i) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("topk: axis 2 is out of range"));
  CHECK(bp_sort(x.handle(), -3, 0, &v, &i) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("sort: axis -3 is out of range"));
  CHECK(bp_argsort(x.handle(), 5, 0, &i) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("argsort: axis 5"));
  CHECK(bp_topk(x.handle(), 1, 1, 1, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_argsort(x.handle(), 0, 0, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_topk(BP_NO_TENSOR, 1, 1, 1, &v, &i) == BP_ERR_INVALID_HANDLE);
  CHECK(v == BP_NO_TENSOR);
  CHECK(i == BP_NO_TENSOR);
  // Outputs of the wrong dtype or shape, or overlapping.
  const bp::Tensor f = bp::zeros({2, 2}, BP_FLOAT32, d), n = bp::zeros({2, 2}, BP_INT64, d);
  CHECK(bp_topk_out(x.handle(), 2, 1, 1, f.handle(), f.handle()) == BP_ERR_DTYPE);
  CHECK(bp_topk_out(x.handle(), 2, 1, 1, n.handle(), n.handle()) == BP_ERR_DTYPE);
  CHECK(bp_topk_out(x.handle(), 3, 1, 1, f.handle(), n.handle()) == BP_ERR_SHAPE);
  const bp::Tensor wide = bp::zeros({2, 3}, BP_INT64, d);
  CHECK(bp_topk_out(x.astype(BP_INT64).handle(), 2, 1, 1, wide.slice(1, 0, 2).handle(), wide.slice(1, 1, 3).handle()) ==
        BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("the values and indices outputs overlap"));
  const bp::Tensor y = bp::from_vector<float>({3, 1, 2, 0}, {2, 2}, d);
  CHECK(bp_topk_out(y.handle(), 2, 1, 1, y.handle(), n.handle()) == BP_ERR_INVALID_ARGUMENT);
  // Inputs and outputs on different devices: an error, never a copy.
  const bp::Device other = d.name() == "cpu:0" ? bp::Device("reference:0") : bp::Device("cpu:0");
  const bp::Tensor there = bp::zeros({2, 2}, BP_INT64, other);
  CHECK(bp_topk_out(x.handle(), 2, 1, 1, f.handle(), there.handle()) == BP_ERR_DEVICE_MISMATCH);
}
