// Arithmetic, reductions, scans, matmul and scatter_add_nd in the 8- and
// 16-bit dtypes on the CUDA plugin, against answers computed here: the
// halves are float32 arithmetic rounded once (bit for bit, NaNs as NaNs),
// sums accumulate wide and round once, the small integers wrap in their own
// width (and sum into int64), and half GEMM is within a K-scaled tolerance
// of the float64 product.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "narrow_test.hpp"

using namespace cuda_test;

namespace {

constexpr bp_dtype kHalves[] = {BP_FLOAT16, BP_BFLOAT16};

// Random halves with every special value among them: zeros, infinities,
// NaN, subnormals, the largest finite value, ones.
std::vector<uint16_t> half_operands(bp_dtype half, size_t n, uint64_t seed) {
  const uint16_t inf = half == BP_FLOAT16 ? 0x7c00 : 0x7f80, max = half == BP_FLOAT16 ? 0x7bff : 0x7f7f;
  const uint16_t one = half == BP_FLOAT16 ? 0x3c00 : 0x3f80, nan = half == BP_FLOAT16 ? 0x7e00 : 0x7fc0;
  std::vector<uint16_t> v = {
      0,      0x8000, inf, static_cast<uint16_t>(inf | 0x8000), nan, 1,
      0x8001, 0x3ff,  max, static_cast<uint16_t>(max | 0x8000), one, static_cast<uint16_t>(one | 0x8000)};
  std::mt19937_64 rng(seed);
  while (v.size() < n) {
    const uint16_t b = static_cast<uint16_t>(rng());
    if (!is_nan_bits(half, b)) v.push_back(b);
  }
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// plugin.h on the float32 values, for the operators whose result is exact in
// every backend (rounded to the half afterwards).
float float_op(int32_t op, float a, float b) {
  switch (op) {
    case BP_OP_ADD: return a + b;
    case BP_OP_SUB: return a - b;
    case BP_OP_MUL: return a * b;
    case BP_OP_DIV: return a / b;
    case BP_OP_MAXIMUM: return std::isnan(a) ? a : std::isnan(b) ? b : a > b ? a : b;
    case BP_OP_MINIMUM: return std::isnan(a) ? a : std::isnan(b) ? b : a < b ? a : b;
    case BP_OP_FLOOR_DIVIDE: return std::floor(a / b);
    default: {
      float r = std::fmod(a, b);  // REMAINDER
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r == 0 ? std::copysign(0.0f, b) : r;
    }
  }
}

// plugin.h's integer operators, computed in int64 and wrapped to `bits`
// (Python's // and %, with b = 0 giving 0).
int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t int_op(int32_t op, int64_t a, int64_t b) {
  switch (op) {
    case BP_OP_ADD: return a + b;
    case BP_OP_SUB: return a - b;
    case BP_OP_MUL: return a * b;
    case BP_OP_MAXIMUM: return a > b ? a : b;
    case BP_OP_MINIMUM: return a < b ? a : b;
    case BP_OP_FLOOR_DIVIDE: return floor_div(a, b);
    case BP_OP_REMAINDER: return b == 0 ? 0 : a - floor_div(a, b) * b;
    case BP_OP_BITWISE_AND: return a & b;
    case BP_OP_BITWISE_OR: return a | b;
    case BP_OP_BITWISE_XOR: return a ^ b;
    default: {  // POW
      if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
      uint64_t r = 1;
      for (int64_t e = 0; e < b; ++e) r *= static_cast<uint64_t>(a);
      return static_cast<int64_t>(r);
    }
  }
}

template <class T>
T wrapped(int64_t x) {
  return static_cast<T>(x);  // modulo 2^bits on every supported compiler
}

template <class T>
void check_small_int_arithmetic(Session &s, bp_dtype dtype, const std::vector<T> &values) {
  std::vector<T> a, b;
  for (T x : values)
    for (T y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  for (bp_op op : {BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_POW, BP_OP_MAXIMUM, BP_OP_MINIMUM, BP_OP_FLOOR_DIVIDE,
                   BP_OP_REMAINDER, BP_OP_BITWISE_AND, BP_OP_BITWISE_OR, BP_OP_BITWISE_XOR}) {
    INFO(dtype_name(dtype) << " " << op_name(op));
    const std::vector<T> got = run<T>(s, op, dtype, dtype, {a, b});
    for (size_t i = 0; i < a.size(); ++i) {
      INFO(int64_t(a[i]) << " and " << int64_t(b[i]));
      CHECK(int64_t(got[i]) == int64_t(wrapped<T>(int_op(op, a[i], b[i]))));
    }
  }
  const std::vector<uint8_t> less = run<uint8_t>(s, BP_OP_LT, dtype, BP_BOOL, {a, b});
  for (size_t i = 0; i < a.size(); ++i) CHECK(less[i] == (a[i] < b[i] ? 1 : 0));
  const std::vector<T> neg = run<T>(s, BP_OP_NEG, dtype, dtype, {values});
  const std::vector<T> abs = run<T>(s, BP_OP_ABS, dtype, dtype, {values});
  const std::vector<T> square = run<T>(s, BP_OP_SQUARE, dtype, dtype, {values});
  const std::vector<T> relu = run<T>(s, BP_OP_RELU, dtype, dtype, {values});
  const std::vector<T> inverted = run<T>(s, BP_OP_BITWISE_NOT, dtype, dtype, {values});
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t x = values[i];
    INFO(dtype_name(dtype) << " unary of " << x);
    CHECK(int64_t(neg[i]) == int64_t(wrapped<T>(-x)));
    CHECK(int64_t(abs[i]) == int64_t(wrapped<T>(x < 0 ? -x : x)));
    CHECK(int64_t(square[i]) == int64_t(wrapped<T>(x * x)));
    CHECK(int64_t(relu[i]) == (x > 0 ? x : 0));
    CHECK(int64_t(inverted[i]) == int64_t(wrapped<T>(~x)));
  }
}

// The float64 product of row-major a [batch, m, k] and b [batch, k, n] of
// halves, and the sum of |a||b| per output (the error bound's scale).
struct Product {
  std::vector<double> value, magnitude;
};
Product host_matmul(bp_dtype half, const std::vector<uint16_t> &a, const std::vector<uint16_t> &b, int64_t batch,
                    int64_t m, int64_t k, int64_t n) {
  Product p{std::vector<double>(static_cast<size_t>(batch * m * n)),
            std::vector<double>(static_cast<size_t>(batch * m * n))};
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double term = static_cast<double>(widen(half, a[static_cast<size_t>((t * m + i) * k + l)])) *
                              widen(half, b[static_cast<size_t>((t * k + l) * n + j)]);
          sum += term;
          magnitude += std::fabs(term);
        }
        p.value[static_cast<size_t>((t * m + i) * n + j)] = sum;
        p.magnitude[static_cast<size_t>((t * m + i) * n + j)] = magnitude;
      }
  return p;
}

std::vector<uint16_t> random_halves(bp_dtype half, size_t count, std::mt19937_64 &rng, float low, float high) {
  std::uniform_real_distribution<float> value(low, high);
  std::vector<uint16_t> v(count);
  for (uint16_t &x : v) x = round_f32(half, value(rng));
  return v;
}

// Stores row-major `rows` x `cols` matrices (batch of them) transposed, so
// that a view with swapped strides reads the original.
std::vector<uint16_t> transposed_storage(const std::vector<uint16_t> &m, int64_t batch, int64_t rows, int64_t cols) {
  std::vector<uint16_t> t(m.size());
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        t[static_cast<size_t>((s * cols + c) * rows + r)] = m[static_cast<size_t>((s * rows + r) * cols + c)];
  return t;
}

}  // namespace

TEST_CASE("cuda: float16 and bfloat16 arithmetic is float32 arithmetic rounded once", "[cuda][narrow]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  for (bp_dtype half : kHalves) {
    const std::vector<uint16_t> a = half_operands(half, 20000, 1), b = half_operands(half, 20000, 2);
    for (bp_op op : {BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_DIV, BP_OP_MAXIMUM, BP_OP_MINIMUM, BP_OP_FLOOR_DIVIDE,
                     BP_OP_REMAINDER}) {
      INFO(dtype_name(half) << " " << op_name(op));
      std::vector<uint16_t> want;
      for (size_t i = 0; i < a.size(); ++i)
        want.push_back(round_f32(half, float_op(op, widen(half, a[i]), widen(half, b[i]))));
      check_half_bits(half, run<uint16_t>(s, op, half, half, {a, b}), want);
    }
    {
      INFO(dtype_name(half) << " add of the scalar 0.1, converted to the dtype first");
      std::vector<uint16_t> want;
      const float scalar = widen(half, round_f64(half, 0.1));
      for (uint16_t x : a) want.push_back(round_f32(half, widen(half, x) + scalar));
      check_half_bits(half, run<uint16_t>(s, BP_OP_ADD, half, half, {a}, attrs_with(0.1, 0, 0, BP_SCALAR_RHS)), want);
    }
    std::vector<uint16_t> want_sqrt, want_neg, want_abs, want_relu, want_square;
    for (uint16_t x : a) {
      const float f = widen(half, x);
      want_sqrt.push_back(round_f32(half, std::sqrt(f)));
      want_neg.push_back(round_f32(half, -f));
      want_abs.push_back(round_f32(half, std::fabs(f)));
      want_relu.push_back(round_f32(half, f > 0 ? f : 0.0f));
      want_square.push_back(round_f32(half, f * f));
    }
    INFO(dtype_name(half) << " unary");
    check_half_bits(half, run<uint16_t>(s, BP_OP_SQRT, half, half, {a}), want_sqrt);
    check_half_bits(half, run<uint16_t>(s, BP_OP_NEG, half, half, {a}), want_neg);
    check_half_bits(half, run<uint16_t>(s, BP_OP_ABS, half, half, {a}), want_abs);
    check_half_bits(half, run<uint16_t>(s, BP_OP_RELU, half, half, {a}), want_relu);
    check_half_bits(half, run<uint16_t>(s, BP_OP_SQUARE, half, half, {a}), want_square);
    const std::vector<uint8_t> less = run<uint8_t>(s, BP_OP_LT, half, BP_BOOL, {a, b});
    const std::vector<uint8_t> equal = run<uint8_t>(s, BP_OP_EQ, half, BP_BOOL, {a, b});
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(less[i] == (widen(half, a[i]) < widen(half, b[i]) ? 1 : 0));
      CHECK(equal[i] == (widen(half, a[i]) == widen(half, b[i]) ? 1 : 0));
    }
  }
}

TEST_CASE("cuda: int8, uint8 and int16 arithmetic wraps in its own width", "[cuda][narrow]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  check_small_int_arithmetic<int8_t>(s, BP_INT8, {-128, -127, -5, -1, 0, 1, 2, 3, 7, 100, 127});
  check_small_int_arithmetic<uint8_t>(s, BP_UINT8, {0, 1, 2, 3, 7, 100, 128, 200, 254, 255});
  check_small_int_arithmetic<int16_t>(s, BP_INT16, {-32768, -32767, -300, -1, 0, 1, 2, 3, 255, 256, 300, 32767});
}

TEST_CASE("cuda: sums, products and extremes of the new dtypes accumulate wide", "[cuda][narrow][reduce]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  auto reduce = [&](int32_t op, bp_dtype dtype, bp_dtype out_dtype, auto values) {
    const int64_t n = static_cast<int64_t>(values.size());
    const bp_plugin_tensor out = s.empty(out_dtype, {1});
    s.exec(op, {typed(s, dtype, {n}, values)}, out);
    return out;
  };
  CHECK(s.values<int64_t>(reduce(BP_OP_SUM, BP_INT8, BP_INT64, std::vector<int8_t>(1000, 100)))[0] == 100000);
  CHECK(s.values<int64_t>(reduce(BP_OP_SUM, BP_UINT8, BP_INT64, std::vector<uint8_t>(1000, 255)))[0] == 255000);
  CHECK(s.values<int64_t>(reduce(BP_OP_SUM, BP_INT16, BP_INT64, std::vector<int16_t>(3000, -32768)))[0] == -98304000);
  CHECK(s.values<int64_t>(reduce(BP_OP_PROD, BP_INT16, BP_INT64, std::vector<int16_t>(20, 2)))[0] == 1048576);
  CHECK(s.values<int64_t>(reduce(BP_OP_PROD, BP_UINT8, BP_INT64, std::vector<uint8_t>{255, 255, 255}))[0] == 16581375);
  CHECK(s.values<int8_t>(reduce(BP_OP_MAX, BP_INT8, BP_INT8, std::vector<int8_t>{-5, -128, 3, 127, 0}))[0] == 127);
  CHECK(s.values<int8_t>(reduce(BP_OP_MIN, BP_INT8, BP_INT8, std::vector<int8_t>{-5, -128, 3, 127, 0}))[0] == -128);
  CHECK(s.values<uint8_t>(reduce(BP_OP_MIN, BP_UINT8, BP_UINT8, std::vector<uint8_t>{200, 255, 7}))[0] == 7);
  CHECK(s.values<int64_t>(reduce(BP_OP_ARGMAX, BP_INT16, BP_INT64, std::vector<int16_t>{-1, 300, 2, 300}))[0] == 1);
  CHECK(s.values<int64_t>(reduce(BP_OP_ARGMIN, BP_UINT8, BP_INT64, std::vector<uint8_t>{200, 1, 255, 1}))[0] == 1);
  for (bp_dtype half : kHalves) {
    INFO(dtype_name(half));
    // 1 and 1024 terms of 2^-9: 3 exactly, where a sum kept in the half
    // would never leave 1 (1 + 2^-9 rounds back to 1 in bfloat16).
    std::vector<uint16_t> terms(1025, round_f32(half, 0x1p-9f));
    terms[0] = round_f32(half, 1.0f);
    CHECK(s.values<uint16_t>(reduce(BP_OP_SUM, half, half, terms))[0] == round_f32(half, 3.0f));
    CHECK(s.values<uint16_t>(reduce(BP_OP_MEAN, half, half,
                                    std::vector<uint16_t>{round_f32(half, 1), round_f32(half, 2), round_f32(half, 3),
                                                          round_f32(half, 4)}))[0] == round_f32(half, 2.5f));
    CHECK(s.values<uint16_t>(
              reduce(BP_OP_NORM, half, half, std::vector<uint16_t>{round_f32(half, 3), round_f32(half, -4)}))[0] ==
          round_f32(half, 5.0f));
    CHECK(s.values<uint16_t>(reduce(BP_OP_PROD, half, half, std::vector<uint16_t>(12, round_f32(half, 2))))[0] ==
          round_f32(half, 4096.0f));
    CHECK(s.values<uint16_t>(reduce(BP_OP_LOGSUMEXP, half, half, std::vector<uint16_t>{0, 0}))[0] ==
          round_f64(half, std::log(2.0)));
    const uint16_t nan = half == BP_FLOAT16 ? 0x7e00 : 0x7fc0;
    const std::vector<uint16_t> with_nan = {round_f32(half, 1), nan, round_f32(half, 5), nan};
    CHECK(s.values<int64_t>(reduce(BP_OP_ARGMAX, half, BP_INT64, with_nan))[0] == 1);
    CHECK(is_nan_bits(half, s.values<uint16_t>(reduce(BP_OP_MAX, half, half, with_nan))[0]));
    const std::vector<uint16_t> plain = {round_f32(half, -7), round_f32(half, 5), round_f32(half, -0.5f),
                                         round_f32(half, 5)};
    CHECK(s.values<uint16_t>(reduce(BP_OP_MAX, half, half, plain))[0] == round_f32(half, 5));
    CHECK(s.values<uint16_t>(reduce(BP_OP_MIN, half, half, plain))[0] == round_f32(half, -7));
    CHECK(s.values<int64_t>(reduce(BP_OP_ARGMAX, half, BP_INT64, plain))[0] == 1);
    CHECK(s.values<int64_t>(reduce(BP_OP_ARGMIN, half, BP_INT64, plain))[0] == 0);
    CHECK(s.values<int64_t>(reduce(BP_OP_SUM, BP_BOOL, BP_INT64, std::vector<uint8_t>{1, 0, 1}))[0] == 2);
  }
}

TEST_CASE("cuda: a million-element reduction of halves and int8 (blocks, two passes) sums wide",
          "[cuda][narrow][reduce]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const int64_t n = 1 << 20;
  for (bp_dtype half : kHalves) {
    INFO(dtype_name(half));
    // 2^20 terms of 2^-6: 2^14 exactly, which a half holds.
    std::vector<uint16_t> values(static_cast<size_t>(n), round_f32(half, 0x1p-6f));
    values[static_cast<size_t>(n / 2 + 7)] = round_f32(half, 2.0f);
    values[static_cast<size_t>(n - 1)] = round_f32(half, 2.0f);
    const bp_plugin_tensor in = typed(s, half, {n}, values);
    const bp_plugin_tensor sum = s.empty(half, {1}), max = s.empty(half, {1}), where = s.empty(BP_INT64, {1});
    s.exec(BP_OP_SUM, {in}, sum);
    s.exec(BP_OP_MAX, {in}, max);
    s.exec(BP_OP_ARGMAX, {in}, where);
    CHECK(s.values<uint16_t>(sum)[0] == round_f64(half, 16384.0 + 2 * (2.0 - 0x1p-6)));
    CHECK(s.values<uint16_t>(max)[0] == round_f32(half, 2.0f));
    CHECK(s.values<int64_t>(where)[0] == n / 2 + 7);
  }
  std::vector<int8_t> bytes(static_cast<size_t>(n), -3);
  bytes[12345] = 100;
  const bp_plugin_tensor in = typed(s, BP_INT8, {n}, bytes);
  const bp_plugin_tensor sum = s.empty(BP_INT64, {1}), min = s.empty(BP_INT8, {1}), where = s.empty(BP_INT64, {1});
  s.exec(BP_OP_SUM, {in}, sum);
  s.exec(BP_OP_MIN, {in}, min);
  s.exec(BP_OP_ARGMAX, {in}, where);
  CHECK(s.values<int64_t>(sum)[0] == -3 * (n - 1) + 100);
  CHECK(s.values<int8_t>(min)[0] == -3);
  CHECK(s.values<int64_t>(where)[0] == 12345);
}

TEST_CASE("cuda: cumsum of the new dtypes accumulates wide and rounds each output once", "[cuda][narrow][scan]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  for (bp_dtype half : kHalves) {
    INFO(dtype_name(half));
    std::vector<uint16_t> terms(1025, round_f32(half, 0x1p-9f));
    terms[0] = round_f32(half, 1.0f);
    const bp_plugin_tensor out = s.empty(half, {1025});
    s.exec(BP_OP_CUMSUM, {typed(s, half, {1025}, terms)}, out);
    std::vector<uint16_t> want;
    for (int j = 0; j < 1025; ++j) want.push_back(round_f64(half, 1.0 + j / 512.0));
    check_half_bits(half, s.values<uint16_t>(out), want, false);
  }
  const bp_plugin_tensor sums = s.empty(BP_INT64, {5});
  s.exec(BP_OP_CUMSUM, {typed(s, BP_INT8, {5}, std::vector<int8_t>(5, 100))}, sums);
  CHECK(s.values<int64_t>(sums) == std::vector<int64_t>{100, 200, 300, 400, 500});
  s.exec(BP_OP_CUMSUM, {typed(s, BP_UINT8, {5}, std::vector<uint8_t>(5, 255))}, sums);
  CHECK(s.values<int64_t>(sums) == std::vector<int64_t>{255, 510, 765, 1020, 1275});
}

TEST_CASE("cuda: float16 and bfloat16 matmul accumulates in float32, within a tolerance scaled by K",
          "[cuda][narrow][matmul]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  struct Case {
    int64_t batch, m, k, n;
  };
  std::mt19937_64 rng(11);
  for (bp_dtype half : kHalves) {
    // The half's own rounding of the result, plus K additions in float32
    // (a few units each: tensor cores align terms with few extra bits).
    for (const Case &c : {Case{1, 33, 257, 65}, Case{3, 16, 64, 16}, Case{1, 16, 4096, 16}, Case{2, 1, 300, 7}}) {
      for (int layout = 0; layout < 4; ++layout) {
        INFO(dtype_name(half) << " [" << c.batch << ", " << c.m << ", " << c.k << "] x [" << c.k << ", " << c.n
                              << "], layout " << layout);
        // Large K with positive terms: the sums grow, where an accumulation
        // narrower than float32 would show.
        const float low = c.k >= 4096 ? 0.0f : -1.0f;
        const std::vector<uint16_t> a = random_halves(half, static_cast<size_t>(c.batch * c.m * c.k), rng, low, 1.0f);
        const std::vector<uint16_t> b = random_halves(half, static_cast<size_t>(c.batch * c.k * c.n), rng, low, 1.0f);
        const Product want = host_matmul(half, a, b, c.batch, c.m, c.k, c.n);
        // layout 0: dense; 1: a transposed in memory; 2: b transposed; 3: the output column-major.
        bp_plugin_tensor va =
            typed(s, half, {c.batch, c.m, c.k}, layout == 1 ? transposed_storage(a, c.batch, c.m, c.k) : a);
        bp_plugin_tensor vb =
            typed(s, half, {c.batch, c.k, c.n}, layout == 2 ? transposed_storage(b, c.batch, c.k, c.n) : b);
        if (layout == 1) {
          va.strides[1] = 1;
          va.strides[2] = c.m;
        }
        if (layout == 2) {
          vb.strides[1] = 1;
          vb.strides[2] = c.k;
        }
        bp_plugin_tensor out = s.empty(half, {c.batch, c.m, c.n});
        if (layout == 3) {
          out.strides[1] = 1;
          out.strides[2] = c.m;
        }
        s.exec(BP_OP_MATMUL, {va, vb}, out);
        const std::vector<uint16_t> got = s.values<uint16_t>(out);
        size_t wrong = 0;
        for (size_t i = 0; i < got.size() && wrong < 10; ++i) {
          const double exact = want.value[i];
          const Tolerance tol =
              table_tolerance(TestBound::half_matmul, half, static_cast<double>(c.k) * want.magnitude[i]);
          const double bound = tol.rtol * std::fabs(exact) + tol.atol;
          if (!(std::fabs(widen(half, got[i]) - exact) <= bound)) {
            ++wrong;
            FAIL_CHECK("element " << i << ": " << widen(half, got[i]) << ", exact " << exact << ", bound " << bound);
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}

TEST_CASE("cuda: int8, uint8 and int16 matmul wraps in its own width", "[cuda][narrow][matmul]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const bp_plugin_tensor a8 = typed(s, BP_INT8, {2, 3}, std::vector<int8_t>{100, 100, 1, -128, 2, 3});
  const bp_plugin_tensor b8 = typed(s, BP_INT8, {3, 2}, std::vector<int8_t>{1, 2, 1, -1, 5, 127});
  bp_plugin_tensor out8 = s.empty(BP_INT8, {2, 2});
  s.exec(BP_OP_MATMUL, {a8, b8}, out8);
  // [205, 227] and [-111, 123] wrapped to 8 bits.
  CHECK(s.values<int8_t>(out8) == std::vector<int8_t>{-51, -29, -111, 123});
  const bp_plugin_tensor au = typed(s, BP_UINT8, {1, 2}, std::vector<uint8_t>{200, 255});
  const bp_plugin_tensor bu = typed(s, BP_UINT8, {2, 1}, std::vector<uint8_t>{2, 1});
  bp_plugin_tensor outu = s.empty(BP_UINT8, {1, 1});
  s.exec(BP_OP_MATMUL, {au, bu}, outu);
  CHECK(s.values<uint8_t>(outu)[0] == static_cast<uint8_t>(655 % 256));
  const bp_plugin_tensor a16 = typed(s, BP_INT16, {1, 2}, std::vector<int16_t>{300, -300});
  const bp_plugin_tensor b16 = typed(s, BP_INT16, {2, 1}, std::vector<int16_t>{200, -20});
  bp_plugin_tensor out16 = s.empty(BP_INT16, {1, 1});
  s.exec(BP_OP_MATMUL, {a16, b16}, out16);
  CHECK(s.values<int16_t>(out16)[0] == static_cast<int16_t>(66000 - 65536));
}

TEST_CASE("cuda: scatter_add_nd adds every row into 8- and 16-bit neighbours sharing a word",
          "[cuda][narrow][scatter]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  // 800 rows, row r adding 1 to element r % 4: every element takes 200 adds
  // while its neighbours in the same 32-bit word take theirs.
  std::vector<int64_t> index(800);
  for (size_t r = 0; r < index.size(); ++r) index[r] = static_cast<int64_t>(r % 4);
  auto scatter = [&](bp_dtype dtype, auto one, auto zero) {
    using T = decltype(one);
    const bp_plugin_tensor out = typed(s, dtype, {5}, std::vector<T>(5, zero));
    s.exec(BP_OP_SCATTER_ADD_ND, {s.tensor<int64_t>({800, 1}, index), typed(s, dtype, {800}, std::vector<T>(800, one))},
           out);
    return s.values<T>(out);
  };
  CHECK(scatter(BP_INT8, int8_t(1), int8_t(0)) == std::vector<int8_t>{-56, -56, -56, -56, 0});
  CHECK(scatter(BP_UINT8, uint8_t(1), uint8_t(0)) == std::vector<uint8_t>{200, 200, 200, 200, 0});
  CHECK(scatter(BP_INT16, int16_t(1), int16_t(0)) == std::vector<int16_t>{200, 200, 200, 200, 0});
  for (bp_dtype half : kHalves) {
    INFO(dtype_name(half));
    const uint16_t two_hundred = round_f32(half, 200.0f);
    CHECK(scatter(half, round_f32(half, 1.0f), uint16_t(0)) ==
          std::vector<uint16_t>{two_hundred, two_hundred, two_hundred, two_hundred, 0});
  }
}
