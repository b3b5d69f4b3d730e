// Views share storage with their base: reshape, transpose, permute, slice, select.
#include <catch2/catch.hpp>

#include "runtime_fixture.hpp"

using bp_test::start;
using Catch::Matchers::Equals;

TEST_CASE("views share storage: writing through a view changes the base") {
  const bp::Device d = bp_test::each_host_device();
  bp::Tensor a = bp::arange(0, 6, 1, bp::f32, d).reshape({2, 3});
  bp::Tensor row = a[1];
  CHECK(row.shape() == bp::Shape{3});
  row.assign(bp::full({}, 9, bp::f32, d));
  CHECK_THAT(a.to_vector<float>(), Equals(std::vector<float>{0, 1, 2, 9, 9, 9}));
  bp::Tensor col = a.slice(1, 1, 2).reshape({2});
  CHECK_THAT(col.to_vector<float>(), Equals(std::vector<float>{1, 9}));
}

TEST_CASE("transpose and permute reorder axes without copying") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::arange(0, 6, 1, bp::i32, bp::cpu()).reshape({2, 3});
  bp::Tensor t = a.T();
  CHECK(t.shape() == bp::Shape{3, 2});
  CHECK(!t.is_contiguous());
  CHECK(t.strides() == bp::Shape{1, 3});
  CHECK_THAT(t.to_vector<int32_t>(), Equals(std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  bp::Tensor b = bp::arange(0, 24, 1, bp::i32, bp::cpu()).reshape({2, 3, 4});
  bp::Tensor p = b.permute({2, 0, 1});
  CHECK(p.shape() == bp::Shape{4, 2, 3});
  CHECK(p.to_vector<int32_t>()[1] == 4);  // p[0,0,1] = b[0,1,0]
  CHECK_THROWS_AS(b.permute({0, 0, 1}), bp::ShapeError);
  CHECK_THROWS_AS(b.permute({0, 1, 5}), bp::ShapeError);
}

TEST_CASE("slices follow Python rules with clamping and steps") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::arange(0, 10, 1, bp::i64, bp::cpu());
  CHECK_THAT(a.slice(0, 2, 8, 3).to_vector<int64_t>(), Equals(std::vector<int64_t>{2, 5}));
  CHECK_THAT(a.slice(0, -3, 100).to_vector<int64_t>(), Equals(std::vector<int64_t>{7, 8, 9}));
  CHECK(a.slice(0, 5, 2).numel() == 0);
  CHECK_THROWS_AS(a.slice(0, 0, 5, 0), bp::Error);
  CHECK_THROWS_AS(a.slice(1, 0, 5), bp::ShapeError);
  CHECK(a[-1].item() == 9);
  CHECK_THROWS_AS(a[10], bp::ShapeError);
}

TEST_CASE("reshape of a non-contiguous view copies, with -1 inferred") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::arange(0, 6, 1, bp::f64, bp::cpu()).reshape({2, -1});
  CHECK(a.shape() == bp::Shape{2, 3});
  bp::Tensor flat = a.T().reshape({6});
  CHECK_THAT(flat.to_vector<double>(), Equals(std::vector<double>{0, 3, 1, 4, 2, 5}));
  CHECK_THROWS_AS(a.reshape({4, -1}), bp::ShapeError);
  CHECK_THROWS_AS(a.reshape({-1, -1}), bp::ShapeError);
  bp::Tensor c = a.contiguous();
  CHECK(c.is(a));  // already contiguous: the same tensor
  CHECK(a.T().contiguous().is_contiguous());
}

TEST_CASE("reshape and slice reject overflowing extents and steps") {
  start(bp_test::kHostOnly);
  bp::Tensor empty = bp::zeros({0}, bp::f32, bp::cpu());
  bp_tensor out = BP_NO_TENSOR;
  const int64_t wraps[2] = {int64_t(1) << 32, int64_t(1) << 32};  // product wraps to 0
  CHECK(bp_reshape(empty.handle(), 2, wraps, &out) == BP_ERR_SHAPE);
  bp::Tensor six = bp::arange(0, 6, 1, bp::f32, bp::cpu());
  const int64_t wraps6[2] = {9, 6148914691236517206};  // 9 * that wraps to 6
  CHECK(bp_reshape(six.handle(), 2, wraps6, &out) == BP_ERR_SHAPE);
  CHECK(out == BP_NO_TENSOR);
  bp::Tensor ten = bp::arange(0, 10, 1, bp::i32, bp::cpu());
  bp::Tensor one = ten.slice(0, 3, 10, INT64_MAX);  // Python: t[3::huge] is one element
  CHECK(one.shape() == bp::Shape{1});
  CHECK(one.item() == 3);
  CHECK(ten.slice(0, 0, 10, INT64_MAX - 5).shape() == bp::Shape{1});
}
