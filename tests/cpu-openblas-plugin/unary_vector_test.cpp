// The vector EXP and ERF runs of cpu-openblas (plugins/cpu-openblas/
// unary_vector.cpp, compiled into this test) against exp and erf in long
// double, each instruction set in a test of its own (the plugin takes only
// the best one): exp within 2 ulps, erf within 3e-7 relative (its
// documented form, 1.5e-7 absolute from 0.8 on, and one rounding), over every run length
// around the vector widths, runs off a vector boundary, in place, and the
// special values (NaN, +-inf, +-0, overflow, underflow to the subnormals
// and to 0). An instruction set this CPU lacks is a skipped test that says so.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include "skip.hpp"
#include "unary_vector.hpp"

using cpu_backend::Isa;
using cpu_backend::UnaryVector;

namespace {

bool same_nan_or_within(float got, long double want, long double rel, long double abs) {
  if (std::isnan(want)) return std::isnan(got);
  // A value beyond float32's range rounds to an infinity.
  if (std::isinf(static_cast<float>(want))) return got == static_cast<float>(want);
  return std::fabs((long double)got - want) <= rel * std::fabs(want) + abs;
}

// exp: 2 ulps relative, and half the smallest subnormal step absolute.
void check_exp(const UnaryVector &v, const std::vector<float> &x, const char *what) {
  std::vector<float> y(x.size(), -1.0f);
  v.exp(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(what << ": exp(" << x[i] << ") = " << y[i] << " on " << v.path);
    CHECK(same_nan_or_within(y[i], std::exp((long double)x[i]), 2 * FLT_EPSILON, 0x1p-149L));
  }
}

void check_erf(const UnaryVector &v, const std::vector<float> &x, const char *what) {
  std::vector<float> y(x.size(), -1.0f);
  v.erf(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(what << ": erf(" << x[i] << ") = " << y[i] << " on " << v.path);
    const long double want = std::erf((long double)x[i]);
    CHECK(same_nan_or_within(y[i], want, 3e-7L, 0x1p-149L));  // a subnormal result keeps fewer bits
    if (x[i] == 0) CHECK(std::signbit(y[i]) == std::signbit(x[i]));
  }
}

void check_isa(const UnaryVector &v) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-100.0f, 100.0f), narrow(-5.0f, 5.0f);
  // Every length around the widths (8, 16), starting off the boundary too.
  for (int64_t n = 1; n <= 40; ++n)
    for (int64_t offset : {0, 1, 3}) {
      std::vector<float> x(static_cast<size_t>(n + offset));
      for (float &e : x) e = narrow(rng);
      const std::vector<float> run(x.begin() + offset, x.end());
      check_exp(v, run, "random run");
      check_erf(v, run, "random run");
    }
  std::vector<float> many(4096);
  for (float &e : many) e = wide(rng);
  check_exp(v, many, "[-100, 100]");
  for (float &e : many) e = narrow(rng);
  check_erf(v, many, "[-5, 5]");
  // Near the switch between erf's two forms, and tiny arguments.
  std::vector<float> edges;
  for (float b : {0.8f, 0.5f, 1e-3f, 1e-20f, 1e-40f})
    for (float s : {-1.0f, 1.0f}) {
      edges.push_back(s * b);
      edges.push_back(s * std::nextafter(b, 0.0f));
      edges.push_back(s * std::nextafter(b, 1.0f));
    }
  check_erf(v, edges, "edges");
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> special = {0.0f, -0.0f, inf, -inf, nan, -nan, 88.7f, 88.73f, 89.0f, 100.0f, 1e30f,
                                      -87.3f, -100.0f, -103.9f, -104.0f, -150.0f, -1e30f, FLT_MAX, -FLT_MAX, 3.9f,
                                      -3.9f, 10.0f, -10.0f};
  check_exp(v, special, "special");
  check_erf(v, special, "special");
  // In place.
  std::vector<float> x(37), y;
  for (float &e : x) e = narrow(rng);
  y = x;
  v.erf(y.data(), y.data(), static_cast<int64_t>(y.size()));
  for (size_t i = 0; i < x.size(); ++i) CHECK(same_nan_or_within(y[i], std::erf((long double)x[i]), 3e-7L, 0x1p-149L));
}

void on_isa(Isa isa, const char *what) {
  const UnaryVector *v = cpu_backend::unary_vector_for(isa);
  if (!v)
    return bp_test::skip(std::string("needs ") + what + ", which this CPU lacks (cpu-openblas uses " +
                         cpu_backend::unary_vector().path + " here, tested on its own)");
  check_isa(*v);
}

}  // namespace

TEST_CASE("AVX-512F exp and erf runs match long double", "[unary]") { on_isa(Isa::avx512, "AVX-512F"); }
TEST_CASE("AVX2+FMA exp and erf runs match long double", "[unary]") { on_isa(Isa::avx2, "AVX2 and FMA"); }
TEST_CASE("scalar exp and erf runs match long double", "[unary]") { on_isa(Isa::scalar, "nothing"); }
