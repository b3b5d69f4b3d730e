// MATMUL: plain, transposed (swapped strides), batched with broadcast batch
// axes, empty inner dimension, integer wrap-around and shape errors.
#include "reference_test.hpp"

using namespace ref_test;

namespace {

template <class T>
std::vector<T> matmul(Reference &ref, const bp_plugin_tensor &a, const bp_plugin_tensor &b,
                      const Shape &out_shape) {
  bp_plugin_tensor out = ref.empty(dtype_of<T>::value, out_shape);
  ref.exec(BP_OP_MATMUL, {a, b}, out);
  return ref.values<T>(out);
}

}  // namespace

TEMPLATE_TEST_CASE("matmul of two matrices", "[matmul]", float, double, int32_t, int64_t) {
  Reference ref;
  using T = TestType;
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
  bp_plugin_tensor a = ref.tensor<T>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor b = ref.tensor<T>({3, 2}, {7, 8, 9, 10, 11, 12});
  check_values(matmul<T>(ref, a, b, {2, 2}), std::vector<T>{58, 64, 139, 154});
  // And the other way round: 3x2 x 2x3.
  check_values(matmul<T>(ref, b, a, {3, 3}),
               std::vector<T>{39, 54, 69, 49, 68, 87, 59, 82, 105});
}

TEMPLATE_TEST_CASE("transposes arrive as swapped strides", "[matmul][strided]", float, int64_t) {
  Reference ref;
  using T = TestType;
  // a = [[1,2,3],[4,5,6]] stored transposed (3x2), b = [[7,8],[9,10],[11,12]]
  // stored transposed (2x3).
  bp_plugin_tensor a = ref.view<T>({1, 4, 2, 5, 3, 6}, {2, 3}, {1, 2});
  bp_plugin_tensor b = ref.view<T>({7, 9, 11, 8, 10, 12}, {3, 2}, {1, 3});
  check_values(matmul<T>(ref, a, b, {2, 2}), std::vector<T>{58, 64, 139, 154});
  // A transposed output: out[i][j] stored at j * 2 + i.
  bp_plugin_tensor out = ref.view<T>(std::vector<T>(4, 0), {2, 2}, {1, 2});
  ref.exec(BP_OP_MATMUL, {a, b}, out);
  check_values(ref.contents<T>(out.buffer, 4), std::vector<T>{58, 139, 64, 154});
}

TEST_CASE("batched matmul with a broadcast batch axis", "[matmul][strided]") {
  Reference ref;
  // Two different a matrices (2x2), one b matrix shared by both batches.
  bp_plugin_tensor a = ref.tensor<double>({2, 2, 2}, {1, 0, 0, 1, /**/ 1, 2, 3, 4});
  bp_plugin_tensor b = ref.view<double>({5, 6, 7, 8}, {2, 2, 2}, {0, 2, 1});
  check_values(matmul<double>(ref, a, b, {2, 2, 2}),
               std::vector<double>{5, 6, 7, 8, /**/ 19, 22, 43, 50});
  // The broadcast on the other side, with rank 4 (batch 2 x 1).
  bp_plugin_tensor a1 = ref.view<int32_t>({1, 1}, {2, 1, 1, 2}, {0, 0, 2, 1});
  bp_plugin_tensor b2 = ref.tensor<int32_t>({2, 1, 2, 1}, {1, 2, 3, 4});
  check_values(matmul<int32_t>(ref, a1, b2, {2, 1, 1, 1}), std::vector<int32_t>{3, 7});
}

TEST_CASE("matmul over an empty inner dimension gives zeros", "[matmul][zero-size]") {
  Reference ref;
  bp_plugin_tensor a = dense_view(nullptr, BP_FLOAT32, {2, 0});
  bp_plugin_tensor b = dense_view(nullptr, BP_FLOAT32, {0, 3});
  bp_plugin_tensor out = ref.tensor<float>({2, 3}, {9, 9, 9, 9, 9, 9});
  ref.exec(BP_OP_MATMUL, {a, b}, out);
  check_values(ref.values<float>(out), std::vector<float>(6, 0.0f));
  // An empty output needs nothing at all.
  bp_plugin_tensor a0 = dense_view(nullptr, BP_INT64, {0, 4});
  bp_plugin_tensor b0 = ref.tensor<int64_t>({4, 1}, {1, 2, 3, 4});
  CHECK(ref.run(BP_OP_MATMUL, {a0, b0}, dense_view(nullptr, BP_INT64, {0, 1})) == BP_OK);
}

TEST_CASE("integer matmul wraps around, float matmul accumulates in double", "[matmul]") {
  Reference ref;
  bp_plugin_tensor a32 = ref.tensor<int32_t>({1, 2}, {65536, 1});
  bp_plugin_tensor b32 = ref.tensor<int32_t>({2, 1}, {65536, 5});
  check_values(matmul<int32_t>(ref, a32, b32, {1, 1}), std::vector<int32_t>{5});
  bp_plugin_tensor a64 = ref.tensor<int64_t>({1, 2}, {int64_t(1) << 32, 3});
  bp_plugin_tensor b64 = ref.tensor<int64_t>({2, 1}, {int64_t(1) << 32, -1});
  check_values(matmul<int64_t>(ref, a64, b64, {1, 1}), std::vector<int64_t>{-3});
  bp_plugin_tensor af = ref.tensor<float>({1, 3}, {1e8f, 1.0f, -1e8f});
  bp_plugin_tensor bf = ref.tensor<float>({3, 1}, {1.0f, 1.0f, 1.0f});
  check_values(matmul<float>(ref, af, bf, {1, 1}), std::vector<float>{1.0f});
}

TEST_CASE("matmul shapes and dtypes are checked", "[matmul][errors]") {
  Reference ref;
  bp_plugin_tensor a = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor b = ref.tensor<float>({2, 2}, {1, 2, 3, 4});
  check_error(ref, ref.run(BP_OP_MATMUL, {a, b}, ref.empty(BP_FLOAT32, {2, 2})), BP_ERR_SHAPE,
              {"matmul", "[2, 3]", "[2, 2]"});
  bp_plugin_tensor v = ref.tensor<float>({3}, {1, 2, 3});
  check_error(ref, ref.run(BP_OP_MATMUL, {v, v}, ref.empty(BP_FLOAT32, {1})), BP_ERR_SHAPE,
              {"matmul", "[3] x [3] -> [1]"});
  bp_plugin_tensor c = ref.tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  check_error(ref, ref.run(BP_OP_MATMUL, {a, c}, ref.empty(BP_FLOAT32, {2, 3})), BP_ERR_SHAPE,
              {"[2, 3] x [3, 2] -> [2, 3]"});
  bp_plugin_tensor a3 = ref.tensor<float>({2, 1, 1}, {1, 2});
  bp_plugin_tensor b3 = ref.tensor<float>({3, 1, 1}, {1, 2, 3});
  check_error(ref, ref.run(BP_OP_MATMUL, {a3, b3}, ref.empty(BP_FLOAT32, {2, 1, 1})),
              BP_ERR_SHAPE, {"[2, 1, 1] x [3, 1, 1]"});
  bp_plugin_tensor d = ref.tensor<double>({3, 2}, {1, 2, 3, 4, 5, 6});
  check_error(ref, ref.run(BP_OP_MATMUL, {a, d}, ref.empty(BP_FLOAT32, {2, 2})), BP_ERR_DTYPE,
              {"float32", "float64"});
  bp_plugin_tensor t = ref.tensor<uint8_t>({1, 1}, {1});
  check_error(ref, ref.run(BP_OP_MATMUL, {t, t}, ref.empty(BP_BOOL, {1, 1})), BP_ERR_UNSUPPORTED,
              {"matmul", "bool"});
}
