// LOGSUMEXP: log(sum(exp(x))) over the reduced axes, without overflow, and
// the values plugin.h gives where the maximum is not finite.
#include <cmath>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

template <class T>
std::vector<T> logsumexp(Reference &ref, const bp_plugin_tensor &in, const Shape &out_shape) {
  return op_values<T>(ref, BP_OP_LOGSUMEXP, in, out_shape);
}

}  // namespace

TEMPLATE_TEST_CASE("logsumexp over one axis, all axes, or none", "[reduce][logsumexp]", float, double) {
  Reference ref;
  using T = TestType;
  bp_plugin_tensor x = ref.tensor<T>({2, 3}, {1, 2, 3, 4, 5, 6});
  const double e1 = std::log(1 + std::exp(-1.0) + std::exp(-2.0));  // three terms a step apart
  check_close(logsumexp<T>(ref, x, {2, 1}), {3 + e1, 6 + e1}, libm_closeness<T>());
  const double e3 = std::log(1 + std::exp(-3.0));  // columns: x and x + 3
  check_close(logsumexp<T>(ref, x, {1, 3}), {4 + e3, 5 + e3, 6 + e3}, libm_closeness<T>());
  double all = 0;
  for (int v = 1; v <= 6; ++v) all += std::exp(v - 6.0);
  check_close(logsumexp<T>(ref, x, {1, 1}), {6 + std::log(all)}, libm_closeness<T>());
  // Nothing reduced: log(exp(x)) is x itself, exactly.
  check_values(logsumexp<T>(ref, x, {2, 3}), std::vector<T>{1, 2, 3, 4, 5, 6});
}

TEMPLATE_TEST_CASE("logsumexp does not overflow or underflow", "[reduce][logsumexp]", float, double) {
  Reference ref;
  using T = TestType;
  // exp(1000) and exp(-1000) are beyond every float dtype; the shifted sums are not.
  bp_plugin_tensor x = ref.tensor<T>({2, 2}, {1000, 1000, -1000, -1000});
  const double log2 = std::log(2.0);
  check_close(logsumexp<T>(ref, x, {2, 1}), {1000 + log2, -1000 + log2}, libm_closeness<T>());
  // A term far below the maximum adds nothing.
  bp_plugin_tensor far = ref.tensor<T>({2}, {0, -1000});
  check_values(logsumexp<T>(ref, far, {1}), std::vector<T>{0});
}

TEMPLATE_TEST_CASE("logsumexp of NaN, infinities and nothing", "[reduce][logsumexp][zero-size]", float, double) {
  Reference ref;
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  // Rows: a NaN among infinities; +inf; only -inf; -inf among numbers.
  bp_plugin_tensor x = ref.tensor<T>({4, 3}, {inf, nan, -inf, 1, inf, 2, -inf, -inf, -inf, -inf, 0, 0});
  check_close(logsumexp<T>(ref, x, {4, 1}), {kNaN, kInf, -kInf, std::log(2.0)}, libm_closeness<T>());
  // The empty set: log(0) = -inf, like NumPy and PyTorch.
  bp_plugin_tensor none = dense_view(nullptr, dtype_of<T>::value, {2, 0});
  check_values(logsumexp<T>(ref, none, {2, 1}), std::vector<T>{-inf, -inf});
}

TEST_CASE("logsumexp is defined for floats only", "[reduce][logsumexp][errors]") {
  Reference ref;
  bp_plugin_tensor i = ref.tensor<int32_t>({2}, {1, 2});
  check_error(ref, ref.run(BP_OP_LOGSUMEXP, {i}, ref.empty(BP_INT32, {1})), BP_ERR_UNSUPPORTED,
              {"logsumexp", "int32"});
}
