// bp_reduce_axes, bp_where_scalar and bp_full_kind through the C API and
// the C++ header on every host device and OpenCL: NumPy's results, the
// scalar-kind rule, and the errors (duplicate and out-of-range axes, an
// integer a dtype cannot hold). Their gradients are in test_autograd.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "runtime_fixture.hpp"

TEST_CASE("reductions over a set of axes match NumPy") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i % 7) - 2;
  const bp::Tensor x = bp::from_vector<double>(v, {2, 3, 4}, d);
  // np.sum(x, axis=(0, 2)), np.max(x, axis=(-1, 0), keepdims=True) and
  // np.mean(x), computed by NumPy.
  CHECK(x.sum({0, 2}).to_vector<double>() == std::vector<double>{2, 13, 3});
  const bp::Tensor m = x.max({-1, 0}, true);
  CHECK(m.shape() == bp::Shape{1, 3, 1});
  CHECK(m.to_vector<double>() == std::vector<double>{4, 4, 4});
  CHECK(x.mean({0, 1, 2}).item<double>() == Approx(0.75));
  const bp::Tensor same = x.sum(std::vector<int32_t>{});
  CHECK(same.handle() != x.handle());
  CHECK(same.to_vector<double>() == v);
  bp_tensor out = BP_NO_TENSOR;
  const int32_t twice[2] = {1, -2};
  CHECK(bp_reduce_axes(BP_OP_SUM, x.handle(), twice, 2, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("axis 1 is given twice"));
  const int32_t far[1] = {3};
  CHECK(bp_reduce_axes(BP_OP_SUM, x.handle(), far, 1, 0, &out) == BP_ERR_SHAPE);
  CHECK(bp_test::last_error_mentions("bp_reduce_axes: axis 3"));
  const int32_t two[2] = {0, 1};
  CHECK(bp_reduce_axes(BP_OP_ARGMAX, x.handle(), two, 2, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_reduce_axes(BP_OP_ADD, x.handle(), two, 2, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_reduce_axes(BP_OP_SUM, x.handle(), nullptr, 2, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_reduce_axes(BP_OP_SUM, x.handle(), two, 2, 0, nullptr) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("where with a scalar operand takes the dtype its kind gives") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const bp::Tensor c = bp::from_vector<bool>({true, false, true}, {3}, d);
  const bp::Tensor i8 = bp::from_vector<int64_t>({1, 2, 3}, {3}, d).astype(BP_INT8);
  // An int scalar keeps an int8 tensor's dtype; a float one makes float64.
  const bp::Tensor ints = bp::where(c, i8, 100);
  CHECK(ints.dtype() == BP_INT8);
  CHECK(ints.astype(BP_INT64).to_vector<int64_t>() == std::vector<int64_t>{1, 100, 3});
  const bp::Tensor floats = bp::where(c, 0.5, i8);
  CHECK(floats.dtype() == BP_FLOAT64);
  CHECK(floats.to_vector<double>() == std::vector<double>{0.5, 2, 0.5});
  // bool with an int scalar meets in int64; with a bool scalar stays bool.
  CHECK(bp::where(c, c, 7).dtype() == BP_INT64);
  CHECK(bp::where(c, c, false).dtype() == BP_BOOL);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_where_scalar(c.handle(), i8.handle(), 300, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("does not fit int8"));
  CHECK(bp_where_scalar(c.handle(), i8.handle(), 0.5, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_where_scalar(c.handle(), i8.handle(), 1, 9, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_where_scalar(i8.handle(), i8.handle(), 1, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_DTYPE);
  CHECK(bp_where_scalar(c.handle(), BP_NO_TENSOR, 1, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_INVALID_HANDLE);
}

TEST_CASE("fills with a kind refuse an integer the dtype cannot hold instead of saturating it") {
  const bp::Device d = bp_test::each_host_device();
  const int64_t shape[1] = {2};
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_full_kind(d.id(), BP_INT8, 1, shape, 300, BP_SCALAR_KIND_INT, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("bp_full_kind: the integer 300 does not fit int8"));
  CHECK(bp_full_kind(d.id(), BP_UINT8, 1, shape, -1, BP_SCALAR_KIND_INT, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_full_kind(d.id(), BP_BOOL, 1, shape, 2, BP_SCALAR_KIND_BOOL, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_full_kind(d.id(), 99, 1, shape, 1, BP_SCALAR_KIND_INT, &out) == BP_ERR_DTYPE);
  REQUIRE(bp_full_kind(d.id(), BP_INT8, 1, shape, -128, BP_SCALAR_KIND_INT, &out) == BP_OK);
  CHECK(bp::Tensor::adopt(out).astype(BP_INT64).to_vector<int64_t>() == std::vector<int64_t>{-128, -128});
  // A float converts by the conversion rules: truncated, saturated.
  REQUIRE(bp_full_kind(d.id(), BP_INT8, 1, shape, 300.5, BP_SCALAR_KIND_FLOAT, &out) == BP_OK);
  CHECK(bp::Tensor::adopt(out).astype(BP_INT64).to_vector<int64_t>() == std::vector<int64_t>{127, 127});
}
