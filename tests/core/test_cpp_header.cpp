// backplane.hpp beyond the operators: truth values (a comparison in an `if`
// is its element's truth value, as in PyTorch and NumPy), item<T>() and
// operator<< (the layout of the Python binding's repr).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

#include "runtime_fixture.hpp"

using bp_test::start;
using Catch::Matchers::Equals;
using Catch::Matchers::Message;

namespace {

std::string printed(const bp::Tensor &t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace

TEST_CASE("a one-element tensor's truth value is its element's, so `if (a == b)` compares") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor two = bp::full({}, 2, bp::f32, d), also_two = bp::full({1}, 2, bp::f32, d);
  const bp::Tensor three = bp::full({1, 1}, 3, bp::f32, d);
  bool taken = false;
  if (two == three) taken = true;
  CHECK_FALSE(taken);
  if (two == also_two) taken = true;
  CHECK(taken);
  CHECK(!(two == three));
  CHECK((two < three && two != three));
  CHECK_FALSE(static_cast<bool>(bp::zeros({}, bp::f64, d)));
  CHECK(static_cast<bool>(bp::full({}, std::nan(""), bp::f64, d)));  // nonzero, as bool(NAN) in C++
  CHECK(static_cast<bool>(bp::full({1}, -1, bp::i64, d)));
  CHECK_FALSE(static_cast<bool>(bp::zeros({1}, bp::boolean, d)));
}

TEST_CASE("the truth value of several elements, of none, or of no tensor is an error") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::arange(0, 3, 1, bp::f32, d);
  CHECK_THROWS_MATCHES(static_cast<bool>(x == x), bp::ShapeError,
                       Message("the truth value of a tensor with 3 elements is ambiguous; use all() or any()"));
  CHECK_THROWS_AS(static_cast<bool>(bp::zeros({0}, bp::f32, d)), bp::ShapeError);
  bp::Tensor none;
  CHECK_FALSE(none.defined());
  CHECK_THROWS_AS(static_cast<bool>(none), bp::InvalidHandleError);
  bp::Tensor held = x;
  CHECK(held.defined());
  bp::Tensor taker = std::move(held);
  CHECK(taker.defined());
  CHECK_FALSE(held.defined());  // NOLINT(bugprone-use-after-move): what moved-from means is the point
}

TEST_CASE("all() and any() reduce a comparison to a truth value, whole or along an axis") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({1, 2, 3, 4}, {2, 2}, d);
  const bp::Tensor y = bp::from_vector<float>({1, 0, 3, 4}, {2, 2}, d);
  CHECK(static_cast<bool>((x == x).all()));
  CHECK_FALSE(static_cast<bool>((x == y).all()));
  CHECK(static_cast<bool>((x == y).any()));
  CHECK_FALSE(static_cast<bool>((x != x).any()));
  CHECK(y.all().dtype() == BP_BOOL);
  CHECK_THAT(y.all(1).to_vector<bool>(), Equals(std::vector<bool>{false, true}));
  CHECK_THAT(y.any(0, true).to_vector<bool>(), Equals(std::vector<bool>{true, true}));
  CHECK(y.any(0, true).shape() == bp::Shape{1, 2});
}

TEST_CASE("item<T>() reads the one element as T, converting as astype() does") {
  const bp::Device d = bp_test::each_host_device();
  static_assert(std::is_same_v<decltype(bp::Tensor().item()), double>);
  CHECK(bp::full({1, 1}, 7, bp::i64, d).item<int64_t>() == 7);
  CHECK(bp::full({}, 2.5, bp::f64, d).item<float>() == 2.5f);
  CHECK(bp::full({}, 2.5, bp::f64, d).item<int32_t>() == 2);
  CHECK(bp::full({1}, 3, bp::i32, d).item<bool>());
  CHECK_FALSE(bp::zeros({1}, bp::f32, d).item<bool>());
  CHECK(bp::full({}, 3, bp::i32, d).item() == 3.0);
  // Read in its own dtype: 2^53 + 1 has no double.
  const int64_t big = (int64_t(1) << 53) + 1;
  CHECK(bp::from_vector<int64_t>({big}, {1}, d).item<int64_t>() == big);
}

TEST_CASE("item() of a tensor that is not one element names the count and the shape") {
  const bp::Device d = bp_test::each_host_device();
  CHECK_THROWS_MATCHES(bp::zeros({2, 3}, bp::f32, d).item<float>(), bp::ShapeError,
                       Message("item: the tensor has 6 elements (shape [2, 3]); item() needs exactly one"));
  CHECK_THROWS_MATCHES(bp::zeros({0}, bp::f32, d).item(), bp::ShapeError,
                       Message("item: the tensor has 0 elements (shape [0]); item() needs exactly one"));
}

TEST_CASE("operator<< prints values, device and dtype as the Python repr does") {
  const bp::Device d = bp_test::each_host_device();
  const std::string dev = "device='" + d.name() + "'";
  CHECK(printed(bp::ones({1, 2}, bp::f32, d)) == "tensor([[1., 1.]], " + dev + ")");
  CHECK(printed(bp::from_vector<float>({1.5f, -2.25f, 0, 3}, {2, 2}, d)) ==
        "tensor([[ 1.5 , -2.25],\n"
        "        [ 0.  ,  3.  ]], " + dev + ")");
  CHECK(printed(bp::from_vector<float>({1.0f / 3, 2}, {2}, d)) == "tensor([0.33333334, 2.        ], " + dev + ")");
  CHECK(printed(bp::from_vector<int32_t>({1, -20, 300}, {3}, d)) == "tensor([  1, -20, 300], " + dev + ", dtype=int32)");
  CHECK(printed(bp::from_vector<bool>({true, false}, {2}, d)) == "tensor([ True, False], " + dev + ")");
  CHECK(printed(bp::full({}, 7, bp::f64, d)) == "tensor(7., " + dev + ", dtype=float64)");
  CHECK(printed(bp::from_vector<double>({1e-5, 1.5e-5}, {2}, d)) == "tensor([1.0e-05, 1.5e-05], " + dev + ", dtype=float64)");
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(printed(bp::from_vector<float>({std::nanf(""), inf, -1}, {3}, d)) == "tensor([nan, inf, -1.], " + dev + ")");
  CHECK(printed(bp::zeros({0}, bp::f32, d)) == "tensor([], " + dev + ")");
  CHECK(printed(bp::zeros({0, 3}, bp::f32, d)) == "tensor([], size=(0, 3), " + dev + ")");
  CHECK(printed(bp::arange(0, 8, 1, bp::i64, d).reshape({2, 2, 2})) ==
        "tensor([[[0, 1],\n"
        "         [2, 3]],\n"
        "\n"
        "        [[4, 5],\n"
        "         [6, 7]]], " + dev + ")");
  CHECK(printed(bp::Tensor()) == "tensor(undefined)");
}

TEST_CASE("operator<< shows the first and last three rows of each axis beyond 1000 elements") {
  start(bp_test::kHostOnly);
  CHECK(printed(bp::arange(0, 2000, 1, bp::i64, bp::cpu())) ==
        "tensor([   0,    1,    2, ..., 1997, 1998, 1999], device='cpu:0')");
  CHECK(printed(bp::arange(0, 2002, 1, bp::i64, bp::cpu()).reshape({1001, 2})) ==
        "tensor([[   0,    1],\n"
        "        [   2,    3],\n"
        "        [   4,    5],\n"
        "        ...,\n"
        "        [1996, 1997],\n"
        "        [1998, 1999],\n"
        "        [2000, 2001]], device='cpu:0')");
  CHECK(printed(bp::arange(0, 1000, 1, bp::i64, bp::cpu())).find("...") == std::string::npos);
}
