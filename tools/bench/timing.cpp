#include "timing.hpp"

#include <algorithm>
#include <atomic>

namespace bptool::bench {

namespace {

std::atomic<PhaseHook> g_hook{nullptr};

void phase(const std::string &what, double expected_s) {
  if (PhaseHook hook = g_hook.load()) hook(what, expected_s);
}

double spread(const std::vector<double> &v) {
  if (v.empty()) return kNaN;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 ? *hi / *lo : kNaN;
}

// First use (kernel builds, first touch of memory, threads started), then a
// batch size of about target_s.
int64_t warm_up_and_calibrate(const Work &w, const char *side, double target_s) {
  phase(std::string("warming up ") + side + " (first use)", kNaN);
  w(1);
  phase(std::string("calibrating ") + side, target_s);
  return calibrate(w, target_s);
}

}  // namespace

void set_phase_hook(PhaseHook hook) { g_hook.store(hook); }

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int64_t calibrate(const Work &w, double target_s) {
  int64_t k = 1;
  for (;;) {
    const double t0 = now_seconds();
    w(k);
    const double dt = now_seconds() - t0;
    if (dt >= target_s / 4 || k >= (int64_t(1) << 30)) {
      const double per = dt / double(k);
      if (per <= 0) return k;
      return std::max<int64_t>(1, int64_t(target_s / per));
    }
    k *= dt > 0 ? std::min<int64_t>(16, std::max<int64_t>(2, int64_t(target_s / 4 / dt) + 1)) : 16;
  }
}

// Both sides are timed the same way, because they once were not equal in
// effect: GEMM at n=64 through Backplane measured 4.2x faster than the very
// cblas_sgemm it calls, in the same process on the same buffers. The cause
// was not Backplane: multi-threaded OpenBLAS at that size is bimodal (about
// 5 us when its threads are at hand, 20 us when the call waits for one to
// be scheduled), and the median of 3 short batches per side, always timed in
// the order a then b, right after one warm-up call, landed each side in a
// different mode. A plain A/A comparison (cblas_sgemm against itself) showed
// the same 4x. So: each side gets a full untimed batch first (threads awake,
// caches and clocks settled, not just one call), the timed batches
// alternate their order (a b, b a, ...) so neither side always runs first
// or second, and the spread of each side's batches is returned so that a
// row can say when its ratio is within that noise.
Pair compare(const Work &a, const Work &b, int trials, double target_s) {
  const int64_t ka = warm_up_and_calibrate(a, "Backplane", target_s);
  const int64_t kb = warm_up_and_calibrate(b, "the baseline", target_s);
  phase("timing " + std::to_string(trials) + " batches each", 2.0 * (trials + 1) * target_s);
  a(ka);
  b(kb);
  std::vector<double> ta, tb;
  const auto time_batch = [](const Work &w, int64_t k, std::vector<double> &into) {
    const double t0 = now_seconds();
    w(k);
    into.push_back((now_seconds() - t0) / double(k));
  };
  for (int t = 0; t < trials; ++t) {
    if (t % 2 == 0) {
      time_batch(a, ka, ta);
      time_batch(b, kb, tb);
    } else {
      time_batch(b, kb, tb);
      time_batch(a, ka, ta);
    }
  }
  Pair p;
  p.a = median(ta);
  p.b = median(tb);
  p.a_spread = spread(ta);
  p.b_spread = spread(tb);
  return p;
}

double measure(const Work &w, int trials, double target_s) {
  const int64_t k = warm_up_and_calibrate(w, "Backplane", target_s);
  phase("timing " + std::to_string(trials) + " batches", (trials + 1) * target_s);
  w(k);
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    const double t0 = now_seconds();
    w(k);
    t.push_back((now_seconds() - t0) / double(k));
  }
  return median(t);
}

}  // namespace bptool::bench
