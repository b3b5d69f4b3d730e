// The row kernels of cpu-openblas's softmax (plugins/cpu-openblas/
// softmax_rows.cpp, compiled into this test) against softmax in long double,
// each instruction set in a test of its own (the plugin takes only the best
// one, so the others would go unchecked through execute): every row length
// around the vector widths, rows starting off a vector boundary, in place,
// streamed stores, and the values plugin.h names (-inf, +inf, NaN, the
// largest floats, arguments whose exp falls into the subnormals or to 0).
// An instruction set this CPU lacks is a skipped test that says so.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>
#include "backplane/types.h"
#include "skip.hpp"
#include "softmax_rows.hpp"
#include "tolerances.hpp"

using cpu_backend::SoftmaxIsa;
using cpu_backend::SoftmaxRows;

namespace {

// softmax of x in long double, with plugin.h's NaN rows.
template <class T>
std::vector<long double> expected(const std::vector<T> &x, bool log) {
  long double m = -INFINITY;
  bool nan_row = false;
  for (T v : x) {
    nan_row |= std::isnan(v) || v == std::numeric_limits<T>::infinity();
    if (v > m) m = v;
  }
  nan_row |= m == -INFINITY;
  std::vector<long double> y(x.size(), std::numeric_limits<long double>::quiet_NaN());
  if (nan_row) return y;
  long double s = 0;
  for (T v : x) s += std::exp((long double)v - m);
  for (size_t i = 0; i < x.size(); ++i) {
    const long double t = (long double)x[i] - m;
    y[i] = log ? t - std::log(s) : std::exp(t) / s;
  }
  return y;
}

template <class T>
void check_row(const SoftmaxRows &rows, const std::vector<T> &x, size_t offset, bool log, bool stream,
               bool in_place, const std::string &what) {
  const size_t n = x.size();
  std::vector<T> in(n + offset + 16), out(n + offset + 16), scratch(n);
  std::copy(x.begin(), x.end(), in.begin() + long(offset));
  T *y = in_place ? in.data() + offset : out.data() + offset;
  const auto kernel = [&] {
    if constexpr (std::is_same<T, float>::value) return rows.f32;
    else return rows.f64;
  }();
  // The next row prefetched: the input itself again (a prefetch reads nothing visible).
  kernel(in.data() + offset, y, int64_t(n), log, scratch.data(), stream, in.data() + offset);
  if (stream) cpu_backend::stream_fence();
  const std::vector<long double> want = expected(x, log);
  const bpcheck::Bound tol = bpcheck::test_bound(bpcheck::TestBound::softmax, std::is_same<T, float>::value ? BP_FLOAT32 : BP_FLOAT64);
  for (size_t i = 0; i < n; ++i) {
    INFO(rows.path << ", " << what << ", n " << n << ", offset " << offset << (log ? ", log" : "") << (stream ? ", streamed" : "")
                   << (in_place ? ", in place" : "") << ": element " << i << " is " << y[i] << ", expected " << double(want[i]));
    const T w = T(want[i]);  // the exact value rounded into T: past its range, infinite
    if (std::isnan(w)) {
      CHECK(std::isnan(y[i]));
    } else if (std::isinf(w) || std::isinf(y[i])) {
      CHECK(y[i] == w);
    } else {
      // log_softmax rounds relative to |x - m| and log n too.
      const long double scale = std::fabs(want[i]) + (log ? std::log((long double)n) + 1 : 0);
      CHECK(std::fabs((long double)y[i] - want[i]) <= tol.atol + tol.rtol * scale);
    }
  }
}

template <class T>
void check_isa(const SoftmaxRows &rows) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-12, 12);
  const T big = std::numeric_limits<T>::max(), inf = std::numeric_limits<T>::infinity(),
          nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 70; ++n) lengths.push_back(n);
  lengths.insert(lengths.end(), {127, 128, 129, 1000, 4099});
  for (size_t n : lengths)
    for (size_t offset : {size_t(0), size_t(3)})
      for (bool log : {false, true}) {
        std::vector<T> x(n);
        for (T &v : x) v = T(u(rng));
        check_row(rows, x, offset, log, false, false, "random");
        check_row(rows, x, offset, log, true, false, "random");
        check_row(rows, x, offset, log, n % 2 == 1, true, "random");
      }
  const std::vector<std::vector<T>> special = {
      {big, big, T(0), -big},                                 // no overflow; 0 - max is below exp's range
      {-inf, -inf, -inf},                                     // NaN
      {-inf, T(1), T(2), -inf, T(0), T(3), T(1), T(-1), T(2)},  // 0 and -inf
      {T(1), inf, T(2)},                                      // NaN
      {T(1), T(2), nan, T(3), T(4), T(5), T(6), T(7), T(8), T(9), T(10), T(11), T(12), T(13), T(14), T(15), T(16)},
      {T(0), T(-90), T(-95), T(-100), T(-103), T(-104), T(-110), T(-745), T(-800), T(-1e6), T(-1e30)},  // tiny exps
  };
  for (const std::vector<T> &x : special)
    for (bool log : {false, true}) check_row(rows, x, 1, log, false, false, "special");
}

void on_isa(SoftmaxIsa isa, const char *what) {
  const SoftmaxRows *rows = cpu_backend::softmax_rows_for(isa);
  if (!rows)
    return bp_test::skip(std::string("needs ") + what + ", which this CPU lacks (cpu-openblas uses " +
                         cpu_backend::softmax_rows().path + " here, tested on its own)");
  check_isa<float>(*rows);
  check_isa<double>(*rows);
}

}  // namespace

TEST_CASE("AVX-512F softmax rows match softmax in long double", "[softmax]") { on_isa(SoftmaxIsa::avx512, "AVX-512F"); }
TEST_CASE("AVX2+FMA softmax rows match softmax in long double", "[softmax]") { on_isa(SoftmaxIsa::avx2, "AVX2 and FMA"); }
TEST_CASE("scalar softmax rows match softmax in long double", "[softmax]") { on_isa(SoftmaxIsa::scalar, "nothing"); }
