// MATMUL against the reference: float32/float64 through CLBlast (few and
// small cases: its first call per precision compiles for seconds) and the
// integer kernel, with transposes, slices, batches, broadcast batches and
// outputs CLBlast cannot write directly.
#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

// float32 GEMM accumulates in float, the reference in compensated float64.
Tolerance tolerance(int32_t dtype) {
  return table_tolerance(TestBound::gemm, dtype);
}

struct Case {
  std::string name;
  View a, b, out;
};

// Matrices of a [.., M, K] x [.., K, N] problem in many layouts.
std::vector<Case> cases() {
  const int64_t M = 5, K = 7, N = 3;
  std::vector<Case> all;
  all.push_back({"plain", dense(0, {M, K}), dense(0, {K, N}), dense(0, {M, N})});
  // a = t(a') for a dense a' [K, M]; b likewise: CLBlast's transpose flags.
  all.push_back({"transposed a and b", strided(0, {M, K}, {1, M}), strided(0, {K, N}, {1, K}),
                 dense(0, {M, N})});
  // Sub-matrices with a leading dimension larger than the row.
  all.push_back({"sliced", strided(0, {M, K}, {K + 3, 1}, 2), strided(0, {K, N}, {N + 1, 1}, 1),
                 strided(0, {M, N}, {N + 2, 1}, 3)});
  // Column-major output: computed as out^T = b^T a^T.
  all.push_back({"column-major output", dense(0, {M, K}), dense(0, {K, N}),
                 strided(0, {M, N}, {1, M})});
  // Unit stride in neither matrix axis: copied to scratch first.
  all.push_back({"no unit stride", strided(0, {M, K}, {2 * K, 2}), strided(0, {K, N}, {3 * N, 3}),
                 strided(0, {M, N}, {2 * N, 2})});
  all.push_back({"batched", dense(0, {2, M, K}), dense(0, {2, K, N}), dense(0, {2, M, N})});
  all.push_back({"broadcast batch", strided(0, {3, M, K}, {0, K, 1}), dense(0, {3, K, N}),
                 dense(0, {3, M, N})});
  // Two batch axes that do not merge (b broadcast on the first only).
  all.push_back({"two batch axes", dense(0, {2, 2, M, K}), strided(0, {2, 2, K, N}, {0, K * N, N, 1}),
                 strided(0, {2, 2, M, N}, {2 * M * N + 1, M * N, N, 1})});
  all.push_back({"vector times matrix", dense(0, {1, K}), dense(0, {K, N}), dense(0, {1, N})});
  all.push_back({"outer product", dense(0, {M, 1}), dense(0, {1, N}), dense(0, {M, N})});
  all.push_back({"K = 0", dense(0, {M, 0}), dense(0, {0, N}), dense(0, {M, N})});
  all.push_back({"empty output", dense(0, {0, K}), dense(0, {K, N}), dense(0, {0, N})});
  return all;
}

}  // namespace

namespace {

void check_float_matmul(int32_t dtype, uint64_t seed) {
  std::mt19937_64 rng(seed);
  REQUIRE(supported(ocl(), BP_OP_MATMUL, dtype, dtype));
  int device = 0;
  for (const Case &c : cases()) {
    // float64 only where plain Gemm serves: each CLBlast routine (Gemm,
    // GemmStridedBatched) compiles for tens of seconds on a cold PoCL cache.
    if (dtype == BP_FLOAT64 && c.a.layout.shape.size() > 2) continue;
    check_against_reference(
        BP_OP_MATMUL, attrs_with(),
        {random_tensor(with_dtype(c.a, dtype), rng), random_tensor(with_dtype(c.b, dtype), rng)},
        with_dtype(c.out, dtype), tolerance(dtype),
        std::string("matmul ") + dtype_name(dtype) + " " + c.name, device);
    device = 1 - device;
  }
}

}  // namespace

TEST_CASE("float32 matmul through CLBlast matches the reference", "[matmul]") {
  check_float_matmul(BP_FLOAT32, 21);
}

TEST_CASE("float64 matmul through CLBlast matches the reference", "[matmul]") {
  check_float_matmul(BP_FLOAT64, 23);
}

TEST_CASE("integer matmul matches the reference and wraps", "[matmul]") {
  std::mt19937_64 rng(22);
  for (int32_t dtype : {BP_INT32, BP_INT64}) {
    REQUIRE(supported(ocl(), BP_OP_MATMUL, dtype, dtype));
    int device = 0;
    for (const Case &c : cases()) {
      check_against_reference(
          BP_OP_MATMUL, attrs_with(),
          {random_tensor(with_dtype(c.a, dtype), rng), random_tensor(with_dtype(c.b, dtype), rng)},
          with_dtype(c.out, dtype), kExact, std::string("matmul ") + dtype_name(dtype) + " " + c.name,
          device);
      device = 1 - device;
    }
    const View s = dense(dtype, {4, 4});
    check_against_reference(BP_OP_MATMUL, attrs_with(),
                            {random_tensor(s, rng, Values::full), random_tensor(s, rng, Values::full)},
                            s, kExact, std::string("full-range matmul ") + dtype_name(dtype));
  }
  CHECK_FALSE(supported(ocl(), BP_OP_MATMUL, BP_BOOL, BP_BOOL));
}

TEST_CASE("CLBlast ignores whatever the output held before (beta = 0)", "[matmul]") {
  // The output buffer starts as NaN: any read of it would leak into the result.
  PluginHandle &p = ocl();
  const View a = dense(BP_FLOAT32, {2, 2});
  bp_buffer ba = p.upload(0, std::vector<float>{1, 2, 3, 4});
  bp_buffer bb = p.upload(0, std::vector<float>{5, 6, 7, 8});
  bp_buffer bc = p.upload(0, std::vector<float>(4, std::nanf("")));
  const bp_plugin_tensor in[2] = {plugin_view(ba, a), plugin_view(bb, a)};
  const bp_plugin_tensor out = plugin_view(bc, a);
  const bp_op_attrs attrs = attrs_with();
  p.check(p.api().execute(0, BP_OP_MATMUL, &attrs, in, 2, &out), "matmul");
  CHECK(p.download<float>(bc, 4) == std::vector<float>{19, 22, 43, 50});
  for (bp_buffer b : {ba, bb, bc}) p.check(p.api().free(b), "free");
}
