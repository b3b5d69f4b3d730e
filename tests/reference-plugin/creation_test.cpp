// Creation operators: FILL, ARANGE, RANDOM_UNIFORM, RANDOM_NORMAL. Random
// values are checked against the formula of plugin.h, written out here
// independently of the plugin and of backplane/kernels/random.h.
#include <cmath>
#include <limits>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

template <class T>
std::vector<T> create(Reference &ref, int32_t op, const Shape &shape, const bp_op_attrs &attrs) {
  bp_plugin_tensor out = ref.empty(dtype_of<T>::value, shape);
  ref.exec(op, {}, out, attrs);
  return ref.values<T>(out);
}

// r(j) = splitmix64(seed + 0x9E3779B97F4A7C15 * (j + 1)), from plugin.h.
uint64_t r(uint64_t seed, uint64_t j) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (j + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double u64(uint64_t seed, uint64_t j) { return std::ldexp(static_cast<double>(r(seed, j) >> 11), -53); }
float u32(uint64_t seed, uint64_t j) { return std::ldexp(static_cast<float>(r(seed, j) >> 40), -24); }

}  // namespace

TEST_CASE("fill converts its scalar like COPY from float64", "[creation]") {
  Reference ref;
  check_values(create<float>(ref, BP_OP_FILL, {3}, attrs_with(2.5)), std::vector<float>(3, 2.5f));
  check_values(create<double>(ref, BP_OP_FILL, {2, 2}, attrs_with(-0.1)), std::vector<double>(4, -0.1));
  check_values(create<int32_t>(ref, BP_OP_FILL, {2}, attrs_with(-7.9)), std::vector<int32_t>(2, -7));
  check_values(create<int64_t>(ref, BP_OP_FILL, {2}, attrs_with(1e15)),
               std::vector<int64_t>(2, 1000000000000000LL));
  check_values(create<uint8_t>(ref, BP_OP_FILL, {2}, attrs_with(0.5)), std::vector<uint8_t>(2, 1));
  check_values(create<uint8_t>(ref, BP_OP_FILL, {2}, attrs_with(0.0)), std::vector<uint8_t>(2, 0));
  check_values(create<float>(ref, BP_OP_FILL, {}, attrs_with(0.1)), std::vector<float>{0.1f});
}

TEST_CASE("fill of a strided view leaves the gaps alone", "[creation][strided]") {
  Reference ref;
  bp_plugin_tensor out = ref.view<int32_t>(std::vector<int32_t>(8, 0), {2, 2}, {4, 2}, 1);
  ref.exec(BP_OP_FILL, {}, out, attrs_with(3));
  check_values(ref.contents<int32_t>(out.buffer, 8), std::vector<int32_t>{0, 3, 0, 3, 0, 3, 0, 3});
  // One element further would leave the buffer: refused, nothing written.
  bp_plugin_tensor beyond = out;
  beyond.offset = 2 * sizeof(int32_t);
  check_error(ref, ref.run(BP_OP_FILL, {}, beyond, attrs_with(4)), BP_ERR_INVALID_ARGUMENT,
              {"output", "past its buffer"});
  check_values(ref.contents<int32_t>(out.buffer, 8), std::vector<int32_t>{0, 3, 0, 3, 0, 3, 0, 3});
}

TEST_CASE("arange: start + i * step in float64, then converted", "[creation]") {
  Reference ref;
  const bp_op_attrs half = attrs_with(1, 0.5);
  check_values(create<float>(ref, BP_OP_ARANGE, {5}, half), std::vector<float>{1, 1.5f, 2, 2.5f, 3});
  check_values(create<double>(ref, BP_OP_ARANGE, {5}, half), std::vector<double>{1, 1.5, 2, 2.5, 3});
  check_values(create<int32_t>(ref, BP_OP_ARANGE, {5}, half), std::vector<int32_t>{1, 1, 2, 2, 3});
  check_values(create<int64_t>(ref, BP_OP_ARANGE, {4}, attrs_with(10, -3)),
               std::vector<int64_t>{10, 7, 4, 1});
  // 0.1 * 3 in float64 is 0.30000000000000004, which then rounds to 0.3f.
  check_values(create<double>(ref, BP_OP_ARANGE, {4}, attrs_with(0, 0.1)),
               std::vector<double>{0, 0.1, 0.2, 0.1 * 3});
  check_values(create<float>(ref, BP_OP_ARANGE, {4}, attrs_with(0, 0.1)),
               std::vector<float>{0, 0.1f, 0.2f, static_cast<float>(0.1 * 3)});
}

TEST_CASE("arange counts in the output's C order, whatever its strides", "[creation][strided]") {
  Reference ref;
  check_values(create<int32_t>(ref, BP_OP_ARANGE, {2, 3}, attrs_with(0, 1)),
               std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  // A transposed output: element [i][j] is stored at j * 2 + i.
  bp_plugin_tensor out = ref.view<int32_t>(std::vector<int32_t>(6, -1), {2, 3}, {1, 2});
  ref.exec(BP_OP_ARANGE, {}, out, attrs_with(0, 1));
  check_values(ref.values<int32_t>(out), std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  check_values(ref.contents<int32_t>(out.buffer, 6), std::vector<int32_t>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("random_uniform follows the stream of plugin.h", "[creation][random]") {
  Reference ref;
  // The first three splitmix64 outputs for seed 0 are well known.
  CHECK(r(0, 0) == 0xE220A8397B1DCDAFull);
  CHECK(r(0, 1) == 0x6E789E6AA1B965F4ull);
  CHECK(r(0, 2) == 0x06C45D188009454Full);

  const std::vector<double> d = create<double>(ref, BP_OP_RANDOM_UNIFORM, {3}, attrs_with(0, 1, 0));
  check_values(d, std::vector<double>{(0xE220A8397B1DCDAFull >> 11) * 0x1p-53,
                                      (0x6E789E6AA1B965F4ull >> 11) * 0x1p-53,
                                      (0x06C45D188009454Full >> 11) * 0x1p-53});
  const std::vector<float> f = create<float>(ref, BP_OP_RANDOM_UNIFORM, {3}, attrs_with(0, 1, 0));
  check_values(f, std::vector<float>{(0xE220A8397B1DCDAFull >> 40) * 0x1p-24f,
                                     (0x6E789E6AA1B965F4ull >> 40) * 0x1p-24f,
                                     (0x06C45D188009454Full >> 40) * 0x1p-24f});

  // low + (high - low) * u(i), with another seed and range.
  const uint64_t seed = 1234567;
  const std::vector<double> d2 = create<double>(ref, BP_OP_RANDOM_UNIFORM, {2, 4}, attrs_with(-1, 3, seed));
  const std::vector<float> f2 = create<float>(ref, BP_OP_RANDOM_UNIFORM, {2, 4}, attrs_with(-1, 3, seed));
  for (uint64_t i = 0; i < 8; ++i) {
    INFO("element " << i);
    CHECK(d2[i] == -1.0 + 4.0 * u64(seed, i));
    CHECK(f2[i] == -1.0f + 4.0f * u32(seed, i));
    CHECK(d2[i] >= -1.0);
    CHECK(d2[i] < 3.0);
  }
}

TEST_CASE("random streams are reproducible and depend on the seed", "[creation][random]") {
  Reference ref;
  const auto a = create<double>(ref, BP_OP_RANDOM_NORMAL, {100}, attrs_with(0, 1, 42));
  const auto b = create<double>(ref, BP_OP_RANDOM_NORMAL, {100}, attrs_with(0, 1, 42));
  const auto c = create<double>(ref, BP_OP_RANDOM_NORMAL, {100}, attrs_with(0, 1, 43));
  CHECK(a == b);
  CHECK(a != c);
  // Values depend on the C-order position only: a strided output gets the
  // same first values as a dense one.
  bp_plugin_tensor strided = ref.view<double>(std::vector<double>(8, 0), {4}, {2});
  ref.exec(BP_OP_RANDOM_NORMAL, {}, strided, attrs_with(0, 1, 42));
  check_values(ref.values<double>(strided), std::vector<double>(a.begin(), a.begin() + 4));
}

TEMPLATE_TEST_CASE("random_normal is Box-Muller on draws 2i and 2i+1", "[creation][random]", float,
                   double) {
  Reference ref;
  using T = TestType;
  const uint64_t seed = 99;
  const T mean = T(2), std_dev = T(0.5);
  const auto x = create<T>(ref, BP_OP_RANDOM_NORMAL, {6}, attrs_with(2, 0.5, seed));
  const double pi = 3.141592653589793;
  for (uint64_t i = 0; i < 6; ++i) {
    INFO("element " << i);
    double expected;
    if (std::is_same<T, float>::value)
      expected = mean + std_dev * std::sqrt(-2.0f * std::log(1.0f - u32(seed, 2 * i))) *
                            std::cos(float(2 * pi) * u32(seed, 2 * i + 1));
    else
      expected = 2.0 + 0.5 * std::sqrt(-2.0 * std::log(1.0 - u64(seed, 2 * i))) *
                           std::cos(2 * pi * u64(seed, 2 * i + 1));
    CHECK(double(x[i]) == Approx(expected).epsilon(table_tolerance(TestBound::libm, dtype_of<T>::value).rtol));
  }
}

TEST_CASE("random_normal has the asked mean and standard deviation", "[creation][random]") {
  Reference ref;
  const auto x = create<double>(ref, BP_OP_RANDOM_NORMAL, {20000}, attrs_with(5, 2, 7));
  double sum = 0, squares = 0;
  for (double v : x) sum += v;
  const double mean = sum / x.size();
  for (double v : x) squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(squares / x.size());
  // Fixed seed, so these are fixed numbers; the bounds are ~5 standard errors.
  CHECK(std::abs(mean - 5) < 0.07);
  CHECK(std::abs(sd - 2) < 0.05);
}

TEST_CASE("creation into zero-size outputs", "[creation][zero-size]") {
  Reference ref;
  CHECK(ref.run(BP_OP_FILL, {}, dense_view(nullptr, BP_INT32, {0}), attrs_with(1)) == BP_OK);
  CHECK(ref.run(BP_OP_RANDOM_UNIFORM, {}, dense_view(nullptr, BP_FLOAT32, {3, 0}), attrs_with(0, 1)) ==
        BP_OK);
}

TEST_CASE("creation dtypes are checked", "[creation][errors]") {
  Reference ref;
  check_error(ref, ref.run(BP_OP_RANDOM_UNIFORM, {}, ref.empty(BP_INT32, {2}), attrs_with(0, 1)),
              BP_ERR_UNSUPPORTED, {"random_uniform", "int32"});
  check_error(ref, ref.run(BP_OP_RANDOM_NORMAL, {}, ref.empty(BP_BOOL, {2}), attrs_with(0, 1)),
              BP_ERR_UNSUPPORTED, {"random_normal", "bool"});
  check_error(ref, ref.run(BP_OP_ARANGE, {}, ref.empty(BP_BOOL, {2}), attrs_with(0, 1)),
              BP_ERR_UNSUPPORTED, {"arange", "bool"});
  bp_plugin_tensor x = ref.tensor<float>({2}, {1, 2});
  check_error(ref, ref.run(BP_OP_FILL, {x}, ref.empty(BP_FLOAT32, {2}), attrs_with(0)),
              BP_ERR_INVALID_ARGUMENT, {"fill", "0 input"});
}
