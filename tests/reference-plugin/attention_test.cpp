// ATTENTION by plugin.h's formula, with values worked out by hand: the
// scores, the softmax and the weighted values; the mask (added, and -inf
// hiding a key), causal with Lq below and above Lk, a row with every key
// hidden (NaN), no keys (zeros), broadcast batch axes, float16 rounded once,
// and the shapes the SDK refuses.
#include <cmath>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

bp_op_attrs attention_attrs(double scale, bool causal) {
  bp_op_attrs a = attrs_with(scale);
  a.option = causal ? BP_OPTION_CAUSAL : 0;
  return a;
}

const bp_plugin_tensor kAbsent{};  // dtype 0, rank 0, no buffer

// softmax over two scores x, y: the weight of the first.
double first(double x, double y) { return 1 / (1 + std::exp(y - x)); }

// The reference's values against a formula written here with libm: equal
// up to the last bits of exp and of the order of the sums.
void check_formula(const std::vector<double> &got, const std::vector<double> &want) {
  check_close(got, want, table_tolerance(TestBound::libm, BP_FLOAT64).rtol);
}

}  // namespace

TEST_CASE("attention: softmax(s q k^T + mask) v, worked by hand", "[attention]") {
  Reference ref;
  // q = [[1, 0], [0, 2]], k = [[1, 1], [0, 1]], v = [[1, 10], [3, 30]]:
  // q k^T = [[1, 0], [2, 2]].
  bp_plugin_tensor q = ref.tensor<double>({2, 2}, {1, 0, 0, 2});
  bp_plugin_tensor k = ref.tensor<double>({2, 2}, {1, 1, 0, 1});
  bp_plugin_tensor v = ref.tensor<double>({2, 2}, {1, 10, 3, 30});
  SECTION("scale 0.5") {
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 2});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(0.5, false));
    const double w = first(0.5, 0);  // row 1's scores are equal: weights 1/2
    check_formula(ref.values<double>(out), {w * 1 + (1 - w) * 3, w * 10 + (1 - w) * 30, 2, 20});
  }
  SECTION("an added mask, -inf hiding a key") {
    bp_plugin_tensor mask = ref.tensor<double>({2, 2}, {0.25, -1, -INFINITY, 0});
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 2});
    ref.exec(BP_OP_ATTENTION, {q, k, v, mask}, out, attention_attrs(1, false));
    const double w = first(1.25, -1);
    check_formula(ref.values<double>(out), {w * 1 + (1 - w) * 3, w * 10 + (1 - w) * 30, 3, 30});
  }
  SECTION("causal: query 0 sees key 0 only") {
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 2});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, true));
    check_values(ref.values<double>(out), std::vector<double>{1, 10, 2, 20});
  }
  SECTION("a row with every key hidden is NaN") {
    bp_plugin_tensor mask = ref.tensor<double>({2, 2}, {-INFINITY, -INFINITY, 0, 0});
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 2});
    ref.exec(BP_OP_ATTENTION, {q, k, v, mask}, out, attention_attrs(1, false));
    const std::vector<double> got = ref.values<double>(out);
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[1]));
    CHECK(got[2] == 2);
    CHECK(got[3] == 20);
  }
}

TEST_CASE("attention: causal is the top-left triangle when Lq and Lk differ", "[attention]") {
  Reference ref;
  // Zero queries: every visible key weighs the same.
  bp_plugin_tensor v = ref.tensor<double>({3, 1}, {3, 6, 9});
  SECTION("Lq 2 < Lk 3: query i sees keys 0..i") {
    bp_plugin_tensor q = ref.tensor<double>({2, 1}, {0, 0});
    bp_plugin_tensor k = ref.tensor<double>({3, 1}, {1, 2, 3});
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 1});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, true));
    check_values(ref.values<double>(out), std::vector<double>{3, 4.5});
  }
  SECTION("Lq 4 > Lk 3: the last queries see every key") {
    bp_plugin_tensor q = ref.tensor<double>({4, 1}, {0, 0, 0, 0});
    bp_plugin_tensor k = ref.tensor<double>({3, 1}, {1, 2, 3});
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {4, 1});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, true));
    check_values(ref.values<double>(out), std::vector<double>{3, 4.5, 6, 6});
  }
}

TEST_CASE("attention: no keys gives zeros, broadcast batch axes, float16 rounded once", "[attention]") {
  Reference ref;
  SECTION("Lk = 0") {
    bp_plugin_tensor q = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    bp_plugin_tensor k = dense_view(nullptr, BP_FLOAT32, {0, 3});
    bp_plugin_tensor v = dense_view(nullptr, BP_FLOAT32, {0, 2});
    bp_plugin_tensor out = ref.tensor<float>({2, 2}, {7, 7, 7, 7});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, false));
    check_values(ref.values<float>(out), std::vector<float>{0, 0, 0, 0});
  }
  SECTION("k and v shared by two batch elements (stride 0)") {
    bp_plugin_tensor q = ref.tensor<double>({2, 1, 1}, {0, 1});
    bp_plugin_tensor k = ref.view<double>({0, 1}, {2, 2, 1}, {0, 1, 1});
    bp_plugin_tensor v = ref.view<double>({2, 4}, {2, 2, 1}, {0, 1, 1});
    bp_plugin_tensor out = ref.empty(BP_FLOAT64, {2, 1, 1});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, false));
    const double w = first(0, 1);
    check_formula(ref.values<double>(out), {3, w * 2 + (1 - w) * 4});
  }
  SECTION("float16: computed in float64, rounded once") {
    // Two keys of equal score: the mean of v's 0x3555 (about 1/3) and the
    // next float16, 0x3556, lies halfway between them, exactly in float64:
    // rounded once, to nearest even, it is 0x3556.
    auto half = [&](const Shape &shape, const std::vector<uint16_t> &bits) {
      return dense_view(ref.buffer(bits), BP_FLOAT16, shape);
    };
    bp_plugin_tensor q = half({1, 1}, {0x3c00}), k = half({2, 1}, {0x3c00, 0x3c00});
    bp_plugin_tensor v = half({2, 1}, {0x3555, 0x3556});
    bp_plugin_tensor out = ref.empty(BP_FLOAT16, {1, 1});
    ref.exec(BP_OP_ATTENTION, {q, k, v, kAbsent}, out, attention_attrs(1, false));
    CHECK(ref.values<uint16_t>(out)[0] == 0x3556);
  }
}

TEST_CASE("attention: the SDK refuses shapes, dtypes and masks that do not fit", "[attention][errors]") {
  Reference ref;
  bp_plugin_tensor q = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor k = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor v = ref.tensor<float>({2, 1}, {1, 2});
  bp_plugin_tensor out = ref.empty(BP_FLOAT32, {2, 1});
  const bp_op_attrs a = attention_attrs(1, false);
  bp_plugin_tensor inputs[4] = {q, k, v, kAbsent};
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 4, &out) == BP_OK);
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 3, &out) == BP_ERR_INVALID_ARGUMENT);
  bp_plugin_tensor wrong_out = ref.empty(BP_FLOAT32, {2, 2});
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 4, &wrong_out) == BP_ERR_SHAPE);
  CHECK(std::string(ref.api().last_error()).find("attention: q [2, 3], k [2, 3], v [2, 1], mask absent") == 0);
  inputs[3] = ref.tensor<float>({2, 3}, {0, 0, 0, 0, 0, 0});  // the mask must be [Lq, Lk] = [2, 2]
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 4, &out) == BP_ERR_SHAPE);
  inputs[3] = ref.tensor<double>({2, 2}, {0, 0, 0, 0});  // of q's dtype
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 4, &out) == BP_ERR_DTYPE);
  inputs[3] = kAbsent;
  inputs[0] = kAbsent;  // only the mask may be absent
  CHECK(ref.api().execute(0, BP_OP_ATTENTION, &a, inputs, 4, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(ref.api().last_error()).find("input 0 is absent") != std::string::npos);
}
