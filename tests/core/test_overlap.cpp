// An operator may write into a view of the storage it reads when no element
// is both read and written through different views; any real overlap is
// refused (the result would depend on the order of the backend's loop).
#include <catch2/catch.hpp>

#include "runtime_fixture.hpp"

using Catch::Matchers::Equals;

namespace {

bp_status add_out(const bp::Tensor &a, const bp::Tensor &b, const bp::Tensor &out) {
  return bp_binary_out(BP_OP_ADD, a.handle(), b.handle(), out.handle());
}

}  // namespace

TEST_CASE("disjoint strided views of one storage may be read and written by one operator") {
  const bp::Device d = bp_test::each_host_device();
  SECTION("even elements into odd ones") {
    bp::Tensor x = bp::arange(0, 10, 1, bp::f32, d);
    bp::Tensor even = x.slice(0, 0, 10, 2), odd = x.slice(0, 1, 10, 2);
    REQUIRE(add_out(even, even, odd) == BP_OK);
    CHECK_THAT(x.to_vector<float>(), Equals(std::vector<float>{0, 0, 2, 4, 4, 8, 6, 12, 8, 16}));
  }
  SECTION("one column into another") {
    bp::Tensor m = bp::arange(0, 12, 1, bp::i32, d).reshape({3, 4});
    bp::Tensor col0 = m.permute({1, 0})[0], col2 = m.permute({1, 0})[2];
    REQUIRE(bp_assign(col2.handle(), col0.handle()) == BP_OK);
    CHECK_THAT(m.to_vector<int32_t>(), Equals(std::vector<int32_t>{0, 1, 0, 3, 4, 5, 4, 7, 8, 9, 8, 11}));
  }
  SECTION("a contiguous run inside the gap of a strided view around it") {
    // x[0::4] spans elements 0 to 8, past both ends of x[1:4], and meets none of them.
    bp::Tensor x = bp::arange(0, 9, 1, bp::f32, d);
    bp::Tensor every_fourth = x.slice(0, 0, 9, 4), inside = x.slice(0, 1, 4);
    REQUIRE(add_out(every_fourth, every_fourth, inside) == BP_OK);
    CHECK_THAT(x.to_vector<float>(), Equals(std::vector<float>{0, 0, 8, 16, 4, 5, 6, 7, 8}));
  }
  SECTION("even rows into odd rows") {
    bp::Tensor m = bp::arange(0, 12, 1, bp::f64, d).reshape({4, 3});
    bp::Tensor even = m.slice(0, 0, 4, 2), odd = m.slice(0, 1, 4, 2);
    REQUIRE(add_out(even, even, odd) == BP_OK);
    CHECK_THAT(m.to_vector<double>(),
               Equals(std::vector<double>{0, 1, 2, 0, 2, 4, 6, 7, 8, 12, 14, 16}));
  }
}

TEST_CASE("views of one storage that share an element are refused as overlapping") {
  const bp::Device d = bp_test::each_host_device();
  bp::Tensor x = bp::arange(0, 12, 1, bp::f32, d);
  SECTION("shifted by one element") {
    CHECK(add_out(x.slice(0, 0, 5), x.slice(0, 0, 5), x.slice(0, 1, 6)) == BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("every second and every fourth element") {
    CHECK(add_out(x.slice(0, 0, 12, 4), x.slice(0, 0, 12, 4), x.slice(0, 0, 6, 2)) == BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("a contiguous run and a strided view starting inside it") {
    CHECK(add_out(x.slice(0, 0, 4), x.slice(0, 0, 4), x.slice(0, 2, 12, 3)) == BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("a contiguous run and a strided view ending inside it") {
    CHECK(add_out(x.slice(0, 0, 8, 2), x.slice(0, 0, 8, 2), x.slice(0, 5, 9)) == BP_ERR_INVALID_ARGUMENT);
  }
  SECTION("a square matrix and its transpose") {
    bp::Tensor m = x.slice(0, 0, 9).reshape({3, 3});
    CHECK(add_out(m.T(), m.T(), m) == BP_ERR_INVALID_ARGUMENT);
  }
  CHECK(std::string(bp_last_error()).find("overlaps input 0") != std::string::npos);
  CHECK_THAT(x.to_vector<float>(), Equals(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}
