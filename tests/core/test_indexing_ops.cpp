// Bitwise operators, cumsum, gather_nd, scatter_nd, scatter_add_nd,
// logsumexp, nonzero and expand_dims through the C API and the C++ header,
// on every host device: the dtype rules of the core, negative and
// out-of-range indices, writes through views.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using bp_test::last_error_mentions;

namespace {

using Scatter = bp_status (*)(bp_tensor dst, bp_tensor index, bp_tensor values);

// y = [1, 2, 3] scattered into itself at `rows` (its values read before
// anything is written) holds `want`; a row `outside` its axis is then
// BP_ERR_INDEX, with a message that names `op` when one is given, and
// changes nothing. Returns y.
template <class T>
bp::Tensor check_scatter_into_itself(Scatter scatter, const std::vector<int64_t> &rows, const std::vector<T> &want,
                                     int64_t outside, const char *op, const bp::Device &d) {
  const bp::Tensor y = bp::from_vector<T>({1, 2, 3}, {3}, d);
  CHECK(scatter(y.handle(), bp::from_vector<int64_t>(rows, {3, 1}, d).handle(), y.handle()) == BP_OK);
  CHECK(y.to_vector<T>() == want);
  CHECK(scatter(y.handle(), bp::from_vector<int64_t>({outside}, {1, 1}, d).handle(), y.handle()) == BP_ERR_INDEX);
  if (op) CHECK(last_error_mentions(op));
  CHECK(y.to_vector<T>() == want);
  return y;
}

}  // namespace

TEST_CASE("bitwise operators on integers and bool, and the dtype error for floats") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor a = bp::from_vector<int32_t>({12, -1, 5}, {3}, d);
  const bp::Tensor b = bp::from_vector<int64_t>({10, 7, 1}, {3}, d);
  const bp::Tensor both = a & b;
  CHECK(both.dtype() == BP_INT64);
  CHECK(both.to_vector<int64_t>() == std::vector<int64_t>{8, 7, 1});
  CHECK((a | 16).to_vector<int32_t>() == std::vector<int32_t>{28, -1, 21});
  CHECK((a ^ b).to_vector<int64_t>() == std::vector<int64_t>{6, -8, 4});
  CHECK((~a).to_vector<int32_t>() == std::vector<int32_t>{-13, 0, -6});
  const bp::Tensor m = bp::from_vector<bool>({true, false, true}, {3}, d);
  const bp::Tensor n = bp::from_vector<bool>({true, true, false}, {3}, d);
  CHECK((m & n).dtype() == BP_BOOL);
  CHECK((m ^ n).to_vector<bool>() == std::vector<bool>{false, true, true});
  CHECK((~m).to_vector<bool>() == std::vector<bool>{false, true, false});
  // An int's bits with a bool tensor: int64 (true & 2 is 0, not true).
  CHECK((m & 2).dtype() == BP_INT64);
  CHECK((m & 2).to_vector<int64_t>() == std::vector<int64_t>{0, 0, 0});
  const bp::Tensor f = bp::from_vector<float>({1, 2, 3}, {3}, d);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_binary(BP_OP_BITWISE_AND, f.handle(), a.handle(), &out) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("bitwise_and"));
  CHECK(last_error_mentions("float32"));
  CHECK(bp_unary(BP_OP_BITWISE_NOT, f.handle(), &out) == BP_ERR_DTYPE);
  CHECK(bp_binary_scalar(BP_OP_BITWISE_OR, a.handle(), 2.5, 0, &out) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("2.5"));
}

TEST_CASE("cumsum along an axis, over everything, and into an output") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  CHECK(x.cumsum(0).dtype() == BP_INT64);
  CHECK(x.cumsum(0).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 5, 7, 9});
  CHECK(x.cumsum(-1).to_vector<int64_t>() == std::vector<int64_t>{1, 3, 6, 4, 9, 15});
  const bp::Tensor flat = x.cumsum();
  CHECK(flat.shape() == bp::Shape{6});
  CHECK(flat.to_vector<int64_t>() == std::vector<int64_t>{1, 3, 6, 10, 15, 21});
  // A transposed input: rows of x.T are the columns of x.
  CHECK(x.T().cumsum(1).to_vector<int64_t>() == std::vector<int64_t>{1, 5, 2, 7, 3, 9});
  const bp::Tensor f = bp::from_vector<double>({0.5, 0.25, 0.25}, {3}, d);
  const bp::Tensor into = bp::empty({3}, bp::f64, d);
  REQUIRE(bp_scan_out(BP_OP_CUMSUM, f.handle(), 0, into.handle()) == BP_OK);
  CHECK(into.to_vector<double>() == std::vector<double>{0.5, 0.75, 1.0});
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_scan(BP_OP_CUMSUM, x.handle(), 2, &out) == BP_ERR_SHAPE);
  CHECK(bp_scan(BP_OP_SUM, x.handle(), 0, &out) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("gather_nd picks rows and elements, counting negative indices from the end") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({0, 1, 2, 3, 4, 5}, {3, 2}, d);
  const bp::Tensor rows = bp::from_vector<int32_t>({2, -3}, {2, 1}, d);
  const bp::Tensor picked = x.gather_nd(rows);
  CHECK(picked.shape() == bp::Shape{2, 2});
  CHECK(picked.to_vector<float>() == std::vector<float>{4, 5, 0, 1});
  // Index rows of k = 2 in a [2, 1, 2] batch: one element each.
  const bp::Tensor points = bp::from_vector<int64_t>({1, 0, -1, -1}, {2, 1, 2}, d);
  const bp::Tensor elements = x.gather_nd(points);
  CHECK(elements.shape() == bp::Shape{2, 1});
  CHECK(elements.to_vector<float>() == std::vector<float>{2, 5});
  bp_tensor out = BP_NO_TENSOR;
  const bp::Tensor bad = bp::from_vector<int64_t>({3}, {1, 1}, d);
  CHECK(bp_gather_nd(x.handle(), bad.handle(), &out) == BP_ERR_INDEX);
  CHECK(last_error_mentions("index 3 is out of range for axis 0 of extent 3"));
  const bp::Tensor too_low = bp::from_vector<int64_t>({0, -3}, {1, 2}, d);
  CHECK(bp_gather_nd(x.handle(), too_low.handle(), &out) == BP_ERR_INDEX);
  const bp::Tensor mask = bp::from_vector<bool>({true}, {1, 1}, d);
  CHECK(bp_gather_nd(x.handle(), mask.handle(), &out) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("bp_nonzero"));
  const bp::Tensor deep = bp::from_vector<int64_t>({0, 0, 0}, {1, 3}, d);
  CHECK(bp_gather_nd(x.handle(), deep.handle(), &out) == BP_ERR_SHAPE);
}

TEST_CASE("scatter_nd writes through a view, broadcasts and converts its values") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::zeros({3, 4}, bp::i64, d);
  // The view x[:, 1:3]; rows 0 and 2 of it get 7.5, converted to int64 7.
  const bp::Tensor view = x.slice(1, 1, 3);
  view.scatter_nd(bp::from_vector<int64_t>({0, 2}, {2, 1}, d), bp::full({}, 7.5, bp::f64, d));
  CHECK(x.to_vector<int64_t>() == std::vector<int64_t>{0, 7, 7, 0, 0, 0, 0, 0, 0, 7, 7, 0});
  // Values the shape of the picked rows.
  const bp::Tensor y = check_scatter_into_itself<int32_t>(bp_scatter_nd, {2, 1, 0}, {3, 2, 1}, 5, nullptr, d);
  CHECK(bp_scatter_nd(y.handle(), bp::from_vector<int64_t>({0}, {1, 1}, d).handle(),
                      bp::zeros({2}, bp::i32, d).handle()) == BP_ERR_SHAPE);
}

TEST_CASE("scatter_add_nd adds every row through a view, broadcasts and converts its values") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::zeros({3, 4}, bp::i64, d);
  // The view x[:, 1:3]; row 2 of it named twice, with a negative index once.
  const bp::Tensor view = x.slice(1, 1, 3);
  view.scatter_add_nd(bp::from_vector<int64_t>({0, 2, -1}, {3, 1}, d), bp::full({}, 7.5, bp::f64, d));
  CHECK(x.to_vector<int64_t>() == std::vector<int64_t>{0, 7, 7, 0, 0, 0, 0, 0, 0, 14, 14, 0});
  // Every row added to the values as they were, even when they are dst itself.
  check_scatter_into_itself<float>(bp_scatter_add_nd, {0, 0, 0}, {7, 2, 3}, 3, "scatter_add_nd", d);
  // A bool dst has no sum, and cannot be converted in place.
  const bp::Tensor flags = bp::zeros({2}, bp::boolean, d);
  CHECK(bp_scatter_add_nd(flags.handle(), bp::from_vector<int64_t>({0}, {1, 1}, d).handle(),
                          bp::full({}, 1, bp::boolean, d).handle()) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("bool"));
}

TEST_CASE("logsumexp through bp_reduce: axes, keepdims, integers into float64, the empty set") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({0, 0, 1000, 1000}, {2, 2}, d);
  const bp::Tensor rows = x.logsumexp(1, true);
  CHECK(rows.dtype() == BP_FLOAT32);
  CHECK(rows.shape() == bp::Shape{2, 1});
  const std::vector<float> got = rows.to_vector<float>();
  CHECK(got[0] == Approx(std::log(2.0f)));
  CHECK(got[1] == Approx(1000 + std::log(2.0f)));
  const bp::Tensor ints = bp::from_vector<int32_t>({1, 2, 3}, {3}, d).logsumexp();
  CHECK(ints.dtype() == BP_FLOAT64);
  CHECK(ints.item<double>() == Approx(3 + std::log(1 + std::exp(-1.0) + std::exp(-2.0))));
  CHECK(bp::zeros({0, 3}, bp::f64, d).logsumexp(0).to_vector<double>() ==
        std::vector<double>(3, -HUGE_VAL));
}

TEST_CASE("nonzero gives C-order multi-indices, and an empty [0, rank] when nothing is set") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({0, 3, 0, -1, 0, 0.5}, {2, 3}, d);
  const bp::Tensor at = x.nonzero();
  CHECK(at.dtype() == BP_INT64);
  CHECK(at.shape() == bp::Shape{3, 2});
  CHECK(at.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 1, 0, 1, 2});
  // gather_nd of nonzero reads a masked selection: x[x != 0].
  CHECK(x.gather_nd((x != 0).nonzero()).to_vector<float>() == std::vector<float>{3, -1, 0.5});
  const bp::Tensor none = bp::zeros({2, 0, 3}, bp::boolean, d).nonzero();
  CHECK(none.shape() == bp::Shape{0, 3});
  CHECK(bp::zeros({4}, bp::i32, d).nonzero().shape() == bp::Shape{0, 1});
  const bp::Tensor cube = bp::from_vector<bool>({false, false, false, true, true, false, false, true},
                                                {2, 2, 2}, d);
  CHECK(cube.nonzero().to_vector<int64_t>() ==
        std::vector<int64_t>{0, 1, 1, 1, 0, 0, 1, 1, 1});
}

TEST_CASE("expand_dims is a view with a new unit axis") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  const bp::Tensor front = x.expand_dims(0);
  CHECK(front.shape() == bp::Shape{1, 2, 3});
  const bp::Tensor back = x.slice(1, 0, 3, 2).expand_dims(-1);
  CHECK(back.shape() == bp::Shape{2, 2, 1});
  back.assign(bp::full({}, 0, bp::i32, d));
  CHECK(x.to_vector<int32_t>() == std::vector<int32_t>{0, 2, 0, 0, 5, 0});
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_expand_dims(x.handle(), 3, &out) == BP_ERR_SHAPE);
  CHECK(bp_expand_dims(x.handle(), -4, &out) == BP_ERR_SHAPE);
}
