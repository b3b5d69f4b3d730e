// timing.hpp — how `bp bench` and its helper programs time a workload: the
// clock, calibrated batches and the median of several of them. Depends on
// nothing of Backplane, so that bp-bench-torch can share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace bptool::bench {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v);

// A workload: run(k) performs k repetitions and returns when they are done
// (it synchronises the device itself).
using Work = std::function<void(int64_t k)>;

// Repetitions of w that take about target_s (at least 1).
int64_t calibrate(const Work &w, double target_s);

// Seconds per repetition for a (Backplane's side) and b (the baseline),
// each the median of `trials` timed batches, both timed the same way (see
// compare() in timing.cpp). spread: the slowest batch over the fastest, per
// repetition; far above 1, the side's time is bimodal or disturbed and the
// median of a few batches says little.
struct Pair {
  double a = kNaN, b = kNaN;
  double a_spread = kNaN, b_spread = kNaN;
  double spread() const { return a_spread > b_spread ? a_spread : b_spread; }
};
Pair compare(const Work &a, const Work &b, int trials, double target_s);

// Seconds per repetition of one workload (median of trials batches), timed
// as each side of compare() is.
double measure(const Work &w, int trials, double target_s);

// Told what compare() and measure() are doing ("warming up Backplane") and
// how long it should take in seconds (NaN: unknown); nullptr, the default,
// says nothing. A process-wide hook, so that every figure's measurements
// report their phases without each call passing a reporter.
using PhaseHook = void (*)(const std::string &phase, double expected_s);
void set_phase_hook(PhaseHook hook);

}  // namespace bptool::bench
