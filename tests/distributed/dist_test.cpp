// The bp_dist_* functions (backplane/collectives.h) across the processes of
// an MPI launch. ctest runs each scenario (CMakeLists.txt):
//
//   dist_test collectives N   under mpirun -np N: the values of every collective, dtype and
//                             reduction on cpu:0, reference:0 and opencl:0, strided views, what
//                             the trace says, the topology
//   dist_test errors N        under mpirun -np N: mismatches across ranks, refusals, the
//                             gradient rule, each an error on every rank naming the rank
//   dist_test small-dtypes N  under mpirun -np N (2 or 3): float16 and bfloat16 reduced in
//                             float32 and rounded once, int8/uint8/int16 wrapping, 16-bit
//                             floats moved as bits; exact values, on cpu:0 and reference:0
//   dist_test early-exit 2    under mpirun -np 2 (run_early_exit.sh): rank 1 leaves, rank 0's
//                             all_reduce fails with BP_ERR_PEER within its 2 s timeout
//   dist_test alone           no mpirun: calls before bp_dist_init, options and the
//                             environment checked, then a group of one (MPI's singleton start)
//   dist_test without-mpi     a build without MPI: bp_dist_init says how to get it
//
// Each rank checks its own results, prints what failed and exits nonzero;
// mpirun's status is then nonzero too.
#include <backplane.hpp>

#include "backplane/half.h"
#include "tensor_elements.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

using bp_test::elements;
using bp_test::from_elements;

int g_rank = 0, g_size = 1, g_failures = 0;

void failed(const std::string &what) {
  std::fprintf(stderr, "[rank %d] FAILED: %s\n", g_rank, what.c_str());
  ++g_failures;
}

#define EXPECT(cond, what)                                                                        \
  do {                                                                                             \
    if (!(cond)) failed(std::string(what) + " (" #cond ", line " + std::to_string(__LINE__) + ")"); \
  } while (0)

std::string name(bp_status s) { return bp_status_name(s); }

bool ok(bp_status s, const std::string &what) {
  if (s == BP_OK) return true;
  failed(what + ": " + name(s) + ": " + bp_last_error());
  return false;
}

// Status `want`, and every one of `words` in the message.
void expect_error(bp_status got, bp_status want, const std::string &what, std::initializer_list<std::string> words) {
  const std::string message = bp_last_error();
  if (got != want) {
    failed(what + ": expected " + name(want) + ", got " + name(got) + (got == BP_OK ? "" : ": " + message));
    return;
  }
  for (const std::string &w : words)
    if (message.find(w) == std::string::npos) failed(what + ": the message lacks \"" + w + "\": " + message);
}

std::string rank_name(int r) { return "rank " + std::to_string(r); }

// ---- values ------------------------------------------------------------------
// Rank r's element k: distinct per rank and element, negative values
// included, floats exact in binary, int64 beyond 2^53 (a detour through
// double would change them).

template <class T>
T value(int r, int64_t k);
template <>
double value<double>(int r, int64_t k) { return double((k * 7 + r * 3) % 11) - 5.0 + 0.5 * r; }
template <>
float value<float>(int r, int64_t k) { return float(value<double>(r, k)); }
template <>
int32_t value<int32_t>(int r, int64_t k) { return int32_t((k * 5 + r * 7) % 13) - 6 - r; }
template <>
int64_t value<int64_t>(int r, int64_t k) {
  const int64_t big = (int64_t(1) << 55) + k * 3 + r;
  return (k + r) % 2 ? big : -big;
}
template <>
bool value<bool>(int r, int64_t k) { return (k + r) % 3 == 0; }

template <class T>
std::vector<T> values(int r, int64_t n, int64_t offset = 0) {
  std::vector<T> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(value<T>(r, offset + k));
  return v;
}

template <class T>
constexpr bool is_float = std::is_floating_point_v<T>;

// What reduce_op over ranks 0..n-1 of value(r, k) is: floats summed in
// double (the result is within n - 1 roundings of it), integers exact, mean
// of integers truncated toward zero.
template <class T>
double expected(bp::Reduce op, int n, int64_t k) {
  if constexpr (std::is_same_v<T, bool>) {
    bool any = false, all = true;
    for (int r = 0; r < n; ++r) {
      any = any || value<bool>(r, k);
      all = all && value<bool>(r, k);
    }
    return op == bp::Reduce::max ? any : all;
  } else {
    T best = value<T>(0, k);
    double sum = 0;
    int64_t isum = 0;
    for (int r = 0; r < n; ++r) {
      const T x = value<T>(r, k);
      sum += double(x);
      isum += int64_t(x);
      if (x > best && op == bp::Reduce::max) best = x;
      if (x < best && op == bp::Reduce::min) best = x;
    }
    if (op == bp::Reduce::max || op == bp::Reduce::min) return double(best);
    if constexpr (is_float<T>) return op == bp::Reduce::mean ? sum / n : sum;
    // int64 values are beyond double's integers: their checks compare in int64 (same_int).
    return double(op == bp::Reduce::mean ? isum / n : isum);
  }
}

template <class T>
int64_t expected_int(bp::Reduce op, int n, int64_t k) {
  int64_t acc = int64_t(value<T>(0, k));
  for (int r = 1; r < n; ++r) {
    const int64_t x = int64_t(value<T>(r, k));
    if (op == bp::Reduce::max) acc = x > acc ? x : acc;
    else if (op == bp::Reduce::min) acc = x < acc ? x : acc;
    else acc += x;
  }
  return op == bp::Reduce::mean ? acc / n : acc;
}

template <class T>
bool close_to(T got, bp::Reduce op, int n, int64_t k) {
  if constexpr (is_float<T>) {
    const double want = expected<T>(op, n, k);
    const double tolerance = (std::is_same_v<T, float> ? 1e-6 : 1e-14) * n * (std::fabs(want) + 8);
    return std::fabs(double(got) - want) <= tolerance;
  } else if constexpr (std::is_same_v<T, bool>) {
    return got == (expected<T>(op, n, k) != 0);
  } else {
    return int64_t(got) == expected_int<T>(op, n, k);
  }
}

template <class T>
std::string show(T x) {
  if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
  else return std::to_string(x);
}

const bp::Reduce kReductions[] = {bp::Reduce::sum, bp::Reduce::mean, bp::Reduce::max, bp::Reduce::min};

std::string reduce_name(bp::Reduce op) { return bp_vocab_reduce_op_name(int32_t(op)); }

bool reducible(bp_dtype dtype, bp::Reduce op) {
  return dtype != BP_BOOL || op == bp::Reduce::max || op == bp::Reduce::min;
}

template <class T>
bp::Tensor make(const std::vector<T> &v, const bp::Shape &shape, const bp::Device &d) {
  return bp::from_vector<T>(v, shape, d);
}

// ---- collectives ---------------------------------------------------------------

template <class T>
void check_all_reduce(const bp::Device &d, const bp::Shape &shape) {
  const bp_dtype dtype = bp::dtype_of<T>();
  int64_t numel = 1;
  for (int64_t e : shape) numel *= e;
  for (bp::Reduce op : kReductions) {
    const std::string what = "all_reduce " + reduce_name(op) + " " + bp_dtype_name(dtype) + " on " + d.name();
    bp::Tensor t = make<T>(values<T>(g_rank, numel), shape, d);
    const bp_status s = bp_dist_all_reduce(t.handle(), int32_t(op));
    if (!reducible(dtype, op)) {
      expect_error(s, BP_ERR_DTYPE, what, {"bp_dist_all_reduce", reduce_name(op), "bool"});
      EXPECT(t.to_vector<T>() == values<T>(g_rank, numel), what + ": the tensor was written");
      continue;
    }
    if (!ok(s, what)) continue;
    const std::vector<T> got = t.to_vector<T>();
    for (int64_t k = 0; k < numel; ++k)
      if (!close_to<T>(got[size_t(k)], op, g_size, k)) {
        failed(what + ": element " + std::to_string(k) + " is " + show(got[size_t(k)]));
        break;
      }
  }
}

template <class T>
void check_broadcast(const bp::Device &d) {
  const bp_dtype dtype = bp::dtype_of<T>();
  for (int root : {0, g_size - 1}) {
    const std::string what = std::string("broadcast ") + bp_dtype_name(dtype) + " from rank " + std::to_string(root) +
                             " on " + d.name();
    bp::Tensor t = make<T>(values<T>(g_rank, 15), {3, 5}, d);
    if (ok(bp_dist_broadcast(t.handle(), root), what))
      EXPECT(t.to_vector<T>() == values<T>(root, 15), what);
  }
}

template <class T>
void check_all_gather(const bp::Device &d) {
  const bp_dtype dtype = bp::dtype_of<T>();
  const std::string what = std::string("all_gather ") + bp_dtype_name(dtype) + " on " + d.name();
  bp::Tensor t = make<T>(values<T>(g_rank, 15), {3, 5}, d);
  bp_tensor out = BP_NO_TENSOR;
  if (!ok(bp_dist_all_gather(t.handle(), &out), what)) return;
  bp::Tensor gathered = bp::Tensor::adopt(out);
  EXPECT(gathered.shape() == (bp::Shape{g_size, 3, 5}), what + ": shape");
  EXPECT(gathered.device().name() == d.name(), what + ": device");
  std::vector<T> want;
  for (int r = 0; r < g_size; ++r)
    for (T x : values<T>(r, 15)) want.push_back(x);
  EXPECT(gathered.to_vector<T>() == want, what);
}

template <class T>
void check_reduce_scatter(const bp::Device &d) {
  const bp_dtype dtype = bp::dtype_of<T>();
  const int64_t row = 6;  // [3, 2] per rank
  for (bp::Reduce op : kReductions) {
    const std::string what = "reduce_scatter " + reduce_name(op) + " " + bp_dtype_name(dtype) + " on " + d.name();
    bp::Tensor t = make<T>(values<T>(g_rank, g_size * row), {g_size, 3, 2}, d);
    bp_tensor out = BP_NO_TENSOR;
    const bp_status s = bp_dist_reduce_scatter(t.handle(), int32_t(op), &out);
    if (!reducible(dtype, op)) {
      expect_error(s, BP_ERR_DTYPE, what, {"bp_dist_reduce_scatter", "bool"});
      EXPECT(out == BP_NO_TENSOR, what + ": an output was written");
      continue;
    }
    if (!ok(s, what)) continue;
    bp::Tensor mine = bp::Tensor::adopt(out);
    EXPECT(mine.shape() == (bp::Shape{3, 2}), what + ": shape");
    EXPECT(mine.device().name() == d.name(), what + ": device");
    const std::vector<T> got = mine.to_vector<T>();
    for (int64_t k = 0; k < row; ++k)
      if (!close_to<T>(got[size_t(k)], op, g_size, g_rank * row + k)) {
        failed(what + ": element " + std::to_string(k) + " is " + show(got[size_t(k)]));
        break;
      }
  }
}

template <class T>
void check_dtype(const bp::Device &d) {
  check_all_reduce<T>(d, {3, 5});
  check_broadcast<T>(d);
  check_all_gather<T>(d);
  check_reduce_scatter<T>(d);
}

// Strided views: MPI cannot use them in place, so they are staged, and only
// the view's elements change.
template <class T>
void check_strided(const bp::Device &d) {
  const std::string dt = bp_dtype_name(bp::dtype_of<T>());
  {
    const bp::Reduce op = std::is_same_v<T, bool> ? bp::Reduce::max : bp::Reduce::sum;
    const std::string what = "all_reduce " + reduce_name(op) + " of every other column, " + dt + " on " + d.name();
    bp::Tensor base = make<T>(values<T>(g_rank, 24), {4, 6}, d);
    bp::Tensor view = base.slice(1, 0, 6, 2);
    if (ok(bp_dist_all_reduce(view.handle(), int32_t(op)), what)) {
      const std::vector<T> got = base.to_vector<T>();
      for (int64_t k = 0; k < 24; ++k) {
        const bool reduced = k % 2 == 0;
        const bool right = reduced ? close_to<T>(got[size_t(k)], op, g_size, k)
                                   : got[size_t(k)] == value<T>(g_rank, k);
        if (!right) {
          failed(what + ": element " + std::to_string(k) + " is " + show(got[size_t(k)]));
          break;
        }
      }
    }
  }
  {
    const std::string what = "broadcast of a transposed view from the last rank, " + dt + " on " + d.name();
    bp::Tensor base = make<T>(values<T>(g_rank, 12), {3, 4}, d);
    if (ok(bp_dist_broadcast(base.T().handle(), g_size - 1), what))
      EXPECT(base.to_vector<T>() == values<T>(g_size - 1, 12), what);
  }
  {
    const std::string what = "all_gather of a transposed view, " + dt + " on " + d.name();
    bp::Tensor base = make<T>(values<T>(g_rank, 12), {3, 4}, d);
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_all_gather(base.T().handle(), &out), what)) {
      bp::Tensor gathered = bp::Tensor::adopt(out);
      EXPECT(gathered.shape() == (bp::Shape{g_size, 4, 3}), what + ": shape");
      std::vector<T> want;
      for (int r = 0; r < g_size; ++r)
        for (int64_t a = 0; a < 4; ++a)
          for (int64_t b = 0; b < 3; ++b) want.push_back(value<T>(r, b * 4 + a));
      EXPECT(gathered.to_vector<T>() == want, what);
    }
  }
  {
    const std::string what = "reduce_scatter max of every other row, " + dt + " on " + d.name();
    bp::Tensor base = make<T>(values<T>(g_rank, 2 * g_size * 5), {2 * g_size, 5}, d);
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_reduce_scatter(base.slice(0, 0, 2 * g_size, 2).handle(), BP_REDUCE_MAX, &out), what)) {
      const std::vector<T> got = bp::Tensor::adopt(out).to_vector<T>();
      for (int64_t k = 0; k < 5; ++k)
        if (!close_to<T>(got[size_t(k)], bp::Reduce::max, g_size, 2 * g_rank * 5 + k)) {
          failed(what + ": element " + std::to_string(k) + " is " + show(got[size_t(k)]));
          break;
        }
    }
  }
}

std::vector<bp::Device> test_devices() {
  std::vector<bp::Device> devices;
  for (const char *name : {"cpu:0", "reference:0", "opencl:0"}) {
    bp_device id;
    if (bp_device_get(name, &id) == BP_OK) devices.emplace_back(name);
    else if (std::strcmp(name, "opencl:0") != 0) failed(std::string("no ") + name + ": " + bp_last_error());
  }
  // Every rank must run the same collectives: a rank without opencl:0 would
  // leave the others waiting. Agree on the list first.
  bp::Tensor count = bp::from_vector<int32_t>({int32_t(devices.size())}, {1}, bp::cpu());
  bp::dist::all_reduce(count, bp::Reduce::min);
  devices.resize(size_t(count.to_vector<int32_t>()[0]));
  return devices;
}

bool trace_has(const std::string &expected) {
  char line[1024];
  for (int32_t i = bp_trace_count() - 1; i >= 0; --i)
    if (bp_trace_line(i, line, sizeof line) == BP_OK && std::string(line).find(expected) != std::string::npos)
      return true;
  return false;
}

void check_trace(const std::vector<bp::Device> &devices) {
  const std::string me = rank_name(g_rank) + " of " + std::to_string(g_size);
  ok(bp_trace_enable(1), "bp_trace_enable");
  ok(bp_trace_clear(), "bp_trace_clear");
  bp::Tensor dense = bp::ones({3, 5}, bp::f32, bp::cpu());
  bp::dist::all_reduce(dense);
  EXPECT(trace_has("all_reduce sum float32 [3, 5]: " + me + " on cpu:0, through MPI from host memory (zero-copy)"),
         "trace of a dense cpu:0 all_reduce");
  bp::Tensor base = bp::ones({4, 6}, bp::f32, bp::cpu());
  bp::dist::all_reduce(base.slice(1, 0, 6, 2), bp::Reduce::max);
  EXPECT(trace_has("all_reduce max float32 [4, 3]: " + me + " on cpu:0, through MPI, staged through host memory"),
         "trace of a strided cpu:0 all_reduce");
  for (const bp::Device &d : devices) {
    if (d.name() != "opencl:0") continue;
    bp::Tensor t = bp::ones({2}, bp::f64, d);
    bp::dist::broadcast(t, g_size - 1);
    EXPECT(trace_has("broadcast float64 [2] from rank " + std::to_string(g_size - 1) + ": " + me +
                     " on opencl:0, through MPI, staged through host memory"),
           "trace of an opencl:0 broadcast");
  }
  bp::dist::barrier();
  EXPECT(trace_has("barrier: " + me + ", through MPI"), "trace of a barrier");
  ok(bp_trace_enable(0), "bp_trace_enable");
}

int collectives() {
  const std::vector<bp::Device> devices = test_devices();
  EXPECT(bp::dist::local_rank() == g_rank, "local rank on one machine");
  EXPECT(bp::dist::local_size() == g_size, "local size on one machine");
  for (const bp::Device &d : devices) {
    check_dtype<float>(d);
    check_dtype<double>(d);
    check_dtype<int32_t>(d);
    check_dtype<int64_t>(d);
    check_dtype<bool>(d);
    check_strided<float>(d);
    check_strided<int64_t>(d);
    check_strided<bool>(d);
    // Past 64 KiB, where the transport asks libnbc for its ring.
    check_all_reduce<float>(d, {70001});
    check_all_reduce<int64_t>(d, {20000});
    check_all_reduce<float>(d, {0, 3});
  }
  check_trace(devices);
  bp::dist::barrier();
  return 0;
}

// ---- the 8- and 16-bit dtypes ------------------------------------------------------
// Filled and read as stored bits (tensor_elements.hpp).
// The expected values are written out for 2 and 3 ranks: with 3, rounding
// after every addition (or before MEAN's division) would give other bits.

template <class S>
void expect_all_reduce(bp_dtype dtype, bp::Reduce op, const std::vector<S> &mine, const std::vector<S> &want,
                       const bp::Device &d) {
  const std::string what = "all_reduce " + reduce_name(op) + " " + bp_dtype_name(dtype) + " on " + d.name();
  bp::Tensor t = from_elements<S>(dtype, mine, d);
  if (!ok(bp_dist_all_reduce(t.handle(), int32_t(op)), what)) return;
  const std::vector<S> got = elements<S>(t);
  for (size_t k = 0; k < want.size(); ++k)
    if (got[k] != want[k]) {
      failed(what + ": element " + std::to_string(k) + " is " + std::to_string(got[k]) + ", not " +
             std::to_string(want[k]));
      break;
    }
}

uint16_t bf16(float x) { return bp_bf16_from_f32(x); }
uint16_t f16(float x) { return bp_f16_from_f32(x); }

void check_small_dtypes(const bp::Device &d) {
  const bool three = g_size == 3;
  const int r = g_rank;
  // bfloat16 sum: 1 + 2^-8 per other rank (a tie, to 1, for 2 ranks; 1 + 2^-7
  // for 3, where each step alone ties back to 1); 256 + 1 per other rank
  // (258 once for 3; 257 ties to 256 every step).
  expect_all_reduce<uint16_t>(BP_BFLOAT16, bp::Reduce::sum,
                              {bf16(r == 0 ? 1.0f : 0x1p-8f), bf16(r == 0 ? 256.0f : 1.0f), bf16(float(r) - 1.5f)},
                              {uint16_t(three ? 0x3F81 : 0x3F80), uint16_t(three ? 0x4381 : 0x4380),
                               bf16(three ? -1.5f : -2.0f)},
                              d);
  // float16 mean: (1 + 2^-11 [+ 1]) / n: 0x3956 for 3 rounded once, 0x3955
  // when the sum is rounded before the division.
  expect_all_reduce<uint16_t>(BP_FLOAT16, bp::Reduce::mean, {f16(r == 1 ? 0x1p-11f : 1.0f), f16(3.0f * float(r))},
                              {uint16_t(three ? 0x3956 : 0x3800), f16(three ? 3.0f : 1.5f)}, d);
  // Max and min through float32 keep the chosen input's bits: a subnormal, -0.
  expect_all_reduce<uint16_t>(BP_BFLOAT16, bp::Reduce::max, {uint16_t(r == 1 ? 0x0001 : 0x8000), bf16(-1.0f - float(r))},
                              {0x0001, bf16(-1.0f)}, d);
  expect_all_reduce<uint16_t>(BP_FLOAT16, bp::Reduce::min, {uint16_t(r == 1 ? 0x8001 : 0x0000), f16(-1.0f - float(r))},
                              {0x8001, f16(three ? -3.0f : -2.0f)}, d);
  // int8 wraps: 100 + 101 [+ 102] is 201 (-55) or 303 (47), -128 - 127 [- 126]
  // is -255 (1) or -381 (-125); the mean
  // truncates the wrapped sum toward zero.
  expect_all_reduce<int8_t>(BP_INT8, bp::Reduce::sum, {int8_t(100 + r), int8_t(-128 + r)},
                            {int8_t(three ? 47 : -55), int8_t(three ? -125 : 1)}, d);
  expect_all_reduce<int8_t>(BP_INT8, bp::Reduce::mean, {int8_t(100 + r), int8_t(-7 * (r == 0))},
                            {int8_t(three ? 15 : -27), int8_t(three ? -2 : -3)}, d);
  expect_all_reduce<int8_t>(BP_INT8, bp::Reduce::min, {int8_t(-100 - r), int8_t(r)}, {int8_t(three ? -102 : -101), 0}, d);
  expect_all_reduce<uint8_t>(BP_UINT8, bp::Reduce::max, {uint8_t(250 - 100 * r), uint8_t(r)},
                             {250, uint8_t(three ? 2 : 1)}, d);
  expect_all_reduce<uint8_t>(BP_UINT8, bp::Reduce::sum, {uint8_t(200 + r), 1}, {uint8_t(three ? 91 : 145), uint8_t(g_size)},
                             d);
  expect_all_reduce<int16_t>(BP_INT16, bp::Reduce::sum, {int16_t(30000 + 1000 * r), int16_t(-r)},
                             {int16_t(three ? 27464 : -4536), int16_t(three ? -3 : -1)}, d);
  {
    // 16-bit floats move as bits: a NaN's payload, -0, a subnormal.
    const std::string what = "broadcast and all_gather of bfloat16 bits on " + d.name();
    const std::vector<uint16_t> mine = {uint16_t(0x7FC1 + r), 0x8000, uint16_t(0x0001 + r)};
    bp::Tensor t = from_elements<uint16_t>(BP_BFLOAT16, mine, d);
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_all_gather(t.handle(), &out), what)) {
      std::vector<uint16_t> want;
      for (int j = 0; j < g_size; ++j)
        for (uint16_t x : {uint16_t(0x7FC1 + j), uint16_t(0x8000), uint16_t(0x0001 + j)}) want.push_back(x);
      EXPECT(elements<uint16_t>(bp::Tensor::adopt(out)) == want, what + ": all_gather");
    }
    if (ok(bp_dist_broadcast(t.handle(), g_size - 1), what))
      EXPECT(elements<uint16_t>(t) == (std::vector<uint16_t>{uint16_t(0x7FC1 + g_size - 1), 0x8000,
                                                            uint16_t(0x0001 + g_size - 1)}),
             what + ": broadcast");
  }
  {
    // Row i of every rank, summed in float32 and rounded once, to rank i.
    const std::string what = "reduce_scatter sum bfloat16 on " + d.name();
    std::vector<uint16_t> rows;
    for (int i = 0; i < g_size; ++i) rows.push_back(bf16(r == i ? 256.0f : 1.0f));
    bp::Tensor t = from_elements<uint16_t>(BP_BFLOAT16, rows, d);
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_reduce_scatter(t.handle(), BP_REDUCE_SUM, &out), what))
      EXPECT(elements<uint16_t>(bp::Tensor::adopt(out)) == std::vector<uint16_t>{uint16_t(three ? 0x4381 : 0x4380)},
             what);
  }
  {
    // The float16 mean of row i: (n - 1 + 2^-11) / n, divided before the one rounding.
    const std::string what = "reduce_scatter mean float16 on " + d.name();
    std::vector<uint16_t> rows;
    for (int i = 0; i < g_size; ++i) rows.push_back(f16(r == (i + 1) % g_size ? 0x1p-11f : 1.0f));
    bp::Tensor t = from_elements<uint16_t>(BP_FLOAT16, rows, d);
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_reduce_scatter(t.handle(), BP_REDUCE_MEAN, &out), what))
      EXPECT(elements<uint16_t>(bp::Tensor::adopt(out)) == std::vector<uint16_t>{uint16_t(three ? 0x3956 : 0x3800)},
             what);
  }
}

int small_dtypes() {
  if (g_size != 2 && g_size != 3) {
    failed("the expected values are written for 2 and 3 ranks, not " + std::to_string(g_size));
    return 1;
  }
  for (const char *name : {"cpu:0", "reference:0"}) check_small_dtypes(bp::Device(name));
  bp::dist::barrier();
  return 0;
}

// ---- errors ----------------------------------------------------------------------

int errors() {
  const bp::Device cpu = bp::cpu();
  const int last = g_size - 1;
  const std::vector<float> mine = values<float>(g_rank, 5);
  {
    bp::Tensor t = make<float>(values<float>(g_rank, g_rank == 1 ? 5 : 4), {g_rank == 1 ? 5 : 4}, cpu);
    expect_error(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM), BP_ERR_SHAPE, "shape mismatch",
                 {"bp_dist_all_reduce", "rank 1's tensor has shape [5]", "rank 0's has [4]", "nothing was done"});
    EXPECT(t.to_vector<float>() == values<float>(g_rank, g_rank == 1 ? 5 : 4), "shape mismatch wrote the tensor");
  }
  {
    bp::Tensor t = g_rank == last ? make<int32_t>({1, 2, 3}, {3}, cpu) : make<float>({1, 2, 3}, {3}, cpu);
    expect_error(bp_dist_broadcast(t.handle(), 0), BP_ERR_DTYPE, "dtype mismatch",
                 {rank_name(last) + "'s tensor is int32", "rank 0's is float32"});
  }
  {
    bp::Tensor t = make<float>(mine, {5}, cpu);
    const bp_status s = g_rank == 1 ? bp_dist_broadcast(t.handle(), 0) : bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM);
    expect_error(s, BP_ERR_INVALID_ARGUMENT, "collective mismatch",
                 {"rank 1 called bp_dist_broadcast where rank 0 called bp_dist_all_reduce"});
    EXPECT(t.to_vector<float>() == mine, "collective mismatch wrote the tensor");
  }
  {
    bp::Tensor t = make<float>(mine, {5}, cpu);
    const bp_status s = g_rank == 1 ? bp_dist_barrier() : bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM);
    expect_error(s, BP_ERR_INVALID_ARGUMENT, "barrier against all_reduce",
                 {"rank 1 called bp_dist_barrier where rank 0 called bp_dist_all_reduce"});
  }
  {
    bp::Tensor t = make<float>(mine, {5}, cpu);
    expect_error(bp_dist_all_reduce(t.handle(), g_rank == 1 ? BP_REDUCE_MAX : BP_REDUCE_SUM), BP_ERR_INVALID_ARGUMENT,
                 "reduction mismatch", {"rank 1 asked for max where rank 0 asked for sum"});
    expect_error(bp_dist_broadcast(t.handle(), g_rank == 1 ? 1 : 0), BP_ERR_INVALID_ARGUMENT, "root mismatch",
                 {"rank 1 named root 1 where rank 0 named 0"});
    expect_error(bp_dist_broadcast(t.handle(), g_size), BP_ERR_INVALID_ARGUMENT, "root past the last rank",
                 {"root " + std::to_string(g_size) + " is not a rank of the group"});
    expect_error(bp_dist_broadcast(t.handle(), -1), BP_ERR_INVALID_ARGUMENT, "negative root", {"root -1"});
    expect_error(bp_dist_all_reduce(t.handle(), 99), BP_ERR_INVALID_ARGUMENT, "unknown reduction",
                 {"unknown reduction 99"});
    EXPECT(t.to_vector<float>() == mine, "refused calls wrote the tensor");
  }
  {
    bp::Tensor t = make<float>(values<float>(g_rank, 2 * (g_size + 1)), {g_size + 1, 2}, cpu);
    bp_tensor out = BP_NO_TENSOR;
    expect_error(bp_dist_reduce_scatter(t.handle(), BP_REDUCE_SUM, &out), BP_ERR_SHAPE, "reduce_scatter rows",
                 {"needs a first axis of " + std::to_string(g_size)});
    EXPECT(out == BP_NO_TENSOR, "refused reduce_scatter wrote its output");
  }
  {
    // A handle that is no tensor on rank 1 only: rank 1 says why, the others name rank 1.
    bp::Tensor t = make<float>(mine, {5}, cpu);
    bp_tensor handle = t.handle();
    if (g_rank == 1) {
      bp::Tensor gone = make<float>(mine, {5}, cpu);
      handle = gone.handle();
    }
    const bp_status s = bp_dist_all_reduce(handle, BP_REDUCE_SUM);
    if (g_rank == 1)
      expect_error(s, BP_ERR_INVALID_HANDLE, "released handle", {"bp_dist_all_reduce: the tensor is not a live tensor"});
    else
      expect_error(s, BP_ERR_INVALID_HANDLE, "another rank's released handle", {"rank 1 refused the call"});
    bp_tensor out = BP_NO_TENSOR;
    const bp_status g = bp_dist_all_gather(t.handle(), g_rank == 0 ? nullptr : &out);
    expect_error(g, BP_ERR_INVALID_ARGUMENT, "NULL output on rank 0",
                 {g_rank == 0 ? "output is NULL" : "rank 0 refused the call"});
    EXPECT(out == BP_NO_TENSOR, "a refused all_gather wrote its output");
  }
  {
    // In-place collectives are writes: refused for a tensor that requires
    // gradients while grad mode is on, on every rank when one rank's does.
    bp::Tensor t = make<float>(mine, {5}, cpu);
    if (g_rank == 1) t.requires_grad_();
    const bp_status s = bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM);
    if (g_rank == 1)
      expect_error(s, BP_ERR_STATE, "all_reduce of a tensor that requires gradients", {"requires gradients"});
    else
      expect_error(s, BP_ERR_STATE, "another rank's tensor requires gradients", {"rank 1 refused the call", "BP_ERR_STATE"});
    int32_t previous = 0;
    ok(bp_grad_set_enabled(0, &previous), "grad mode off");
    ok(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM), "all_reduce with grad mode off");
    ok(bp_grad_set_enabled(previous, nullptr), "grad mode back");
    // Not a write: all_gather reads a tensor that requires gradients, and its
    // result records none.
    bp_tensor out = BP_NO_TENSOR;
    if (ok(bp_dist_all_gather(t.handle(), &out), "all_gather of a tensor that requires gradients"))
      EXPECT(!bp::Tensor::adopt(out).requires_grad(), "all_gather's result requires gradients");
  }
  {
    // After all of that the group works.
    bp::Tensor t = make<int64_t>(values<int64_t>(g_rank, 7), {7}, cpu);
    if (ok(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM), "all_reduce after the errors")) {
      const std::vector<int64_t> got = t.to_vector<int64_t>();
      for (int64_t k = 0; k < 7; ++k)
        EXPECT(got[size_t(k)] == expected_int<int64_t>(bp::Reduce::sum, g_size, k), "all_reduce after the errors");
    }
  }
  expect_error(bp_dist_init(nullptr), BP_ERR_STATE, "bp_dist_init twice", {"already initialised"});
  ok(bp_dist_barrier(), "barrier");
  return 0;
}

// ---- a rank that leaves -------------------------------------------------------------

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Rank 1 leaves the group and exits; rank 0 calls all_reduce, which must
// fail with BP_ERR_PEER once its 2 s timeout passed, and every later
// collective at once. Open MPI then ends the job as it sees fit (a rank
// exited without finalising MPI), so run_early_exit.sh judges by rank 0's line.
int early_exit() {
  if (g_rank == 1) {
    ok(bp_dist_finalize(), "rank 1's bp_dist_finalize");
    std::printf("rank 1 left the group\n");
    std::fflush(stdout);
    return g_failures ? 1 : 0;
  }
  if (g_rank != 0) return 0;
  bp::Tensor t = bp::ones({4}, bp::f32, bp::cpu());
  auto t0 = std::chrono::steady_clock::now();
  const bp_status s = bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM);
  const double waited = since(t0);
  const std::string message = bp_last_error();
  expect_error(s, BP_ERR_PEER, "all_reduce with rank 1 gone",
               {"bp_dist_all_reduce: rank 0 of 2 waited 2 s", "not every rank arrived", "broken"});
  EXPECT(waited >= 1.9 && waited < 30, "the all_reduce waited " + std::to_string(waited) + " s for a 2 s timeout");
  t0 = std::chrono::steady_clock::now();
  expect_error(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM), BP_ERR_PEER, "all_reduce after the timeout",
               {"the process group is broken"});
  expect_error(bp_dist_barrier(), BP_ERR_PEER, "barrier after the timeout", {"broken"});
  EXPECT(since(t0) < 1, "collectives after the timeout fail at once");
  EXPECT(t.to_vector<float>() == std::vector<float>(4, 1.0f), "the timed-out all_reduce wrote the tensor");
  int32_t rank = -1;
  ok(bp_dist_rank(&rank), "bp_dist_rank of a broken group");
  ok(bp_dist_finalize(), "bp_dist_finalize of a broken group");
  expect_error(bp_dist_init(nullptr), BP_ERR_STATE, "bp_dist_init after a broken group", {"cannot join another"});
  if (g_failures == 0) {
    std::printf("EARLY-EXIT-OK: rank 0's all_reduce failed with BP_ERR_PEER after %.1f s: %s\n", waited,
                message.c_str());
    std::fflush(stdout);
  }
  return g_failures ? 1 : 0;
}

// ---- a process alone ---------------------------------------------------------------

int alone() {
  // Before bp_dist_init.
  int32_t v = 0;
  expect_error(bp_dist_rank(&v), BP_ERR_STATE, "bp_dist_rank before init", {"bp_dist_rank", "bp_dist_init first"});
  expect_error(bp_dist_size(&v), BP_ERR_STATE, "bp_dist_size before init", {"bp_dist_size"});
  expect_error(bp_dist_local_rank(&v), BP_ERR_STATE, "bp_dist_local_rank before init", {"bp_dist_local_rank"});
  expect_error(bp_dist_local_size(&v), BP_ERR_STATE, "bp_dist_local_size before init", {"bp_dist_local_size"});
  bp::Tensor t = make<float>({1, -2, 3.5f, 4}, {4}, bp::cpu());
  bp_tensor out = BP_NO_TENSOR;
  expect_error(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM), BP_ERR_STATE, "all_reduce before init",
               {"bp_dist_all_reduce: the process group is not initialised"});
  expect_error(bp_dist_broadcast(t.handle(), 0), BP_ERR_STATE, "broadcast before init", {"bp_dist_broadcast"});
  expect_error(bp_dist_all_gather(t.handle(), &out), BP_ERR_STATE, "all_gather before init", {"bp_dist_all_gather"});
  expect_error(bp_dist_reduce_scatter(t.handle(), BP_REDUCE_SUM, &out), BP_ERR_STATE, "reduce_scatter before init",
               {"bp_dist_reduce_scatter"});
  expect_error(bp_dist_barrier(), BP_ERR_STATE, "barrier before init", {"bp_dist_barrier"});
  expect_error(bp_dist_finalize(), BP_ERR_STATE, "finalize before init", {"bp_dist_finalize"});

  // Options and the environment are checked before MPI starts.
  bp_dist_options o{};
  o.struct_size = 4;
  expect_error(bp_dist_init(&o), BP_ERR_INVALID_ARGUMENT, "options of a wrong size", {"struct_size 4"});
  o.struct_size = sizeof o;
  o.timeout_seconds = -1;
  expect_error(bp_dist_init(&o), BP_ERR_INVALID_ARGUMENT, "a negative timeout", {"timeout_seconds is -1"});
  o.timeout_seconds = std::nan("");
  expect_error(bp_dist_init(&o), BP_ERR_INVALID_ARGUMENT, "a NaN timeout", {"timeout_seconds"});
  o.timeout_seconds = 0;
  setenv("BACKPLANE_DIST_TIMEOUT", "soon", 1);
  expect_error(bp_dist_init(&o), BP_ERR_CONFIG, "a timeout variable that is no number",
               {"BACKPLANE_DIST_TIMEOUT=soon is not a number of seconds"});
  setenv("BACKPLANE_DIST_TIMEOUT", "30", 1);

  // A group of one (Open MPI's singleton start: no mpirun).
  if (!ok(bp_dist_init(&o), "bp_dist_init alone")) return 1;
  EXPECT(bp::dist::rank() == 0 && bp::dist::size() == 1, "rank 0 of 1");
  EXPECT(bp::dist::local_rank() == 0 && bp::dist::local_size() == 1, "local rank 0 of 1");
  for (bp::Reduce op : kReductions) {
    bp::Tensor x = make<int32_t>({-7, 3, 0, 9}, {4}, bp::cpu());
    if (ok(bp_dist_all_reduce(x.handle(), int32_t(op)), "all_reduce alone " + reduce_name(op)))
      EXPECT(x.to_vector<int32_t>() == (std::vector<int32_t>{-7, 3, 0, 9}), "all_reduce alone " + reduce_name(op));
  }
  if (ok(bp_dist_broadcast(t.handle(), 0), "broadcast alone"))
    EXPECT(t.to_vector<float>() == (std::vector<float>{1, -2, 3.5f, 4}), "broadcast alone");
  expect_error(bp_dist_broadcast(t.handle(), 1), BP_ERR_INVALID_ARGUMENT, "root 1 alone", {"0..0"});
  if (ok(bp_dist_all_gather(t.handle(), &out), "all_gather alone")) {
    bp::Tensor g = bp::Tensor::adopt(out);
    EXPECT(g.shape() == (bp::Shape{1, 4}), "all_gather alone: shape");
    EXPECT(g.to_vector<float>() == (std::vector<float>{1, -2, 3.5f, 4}), "all_gather alone");
  }
  bp::Tensor rows = make<double>({1.5, 2.5}, {1, 2}, bp::Device("reference:0"));
  if (ok(bp_dist_reduce_scatter(rows.handle(), BP_REDUCE_MEAN, &out), "reduce_scatter alone")) {
    bp::Tensor r = bp::Tensor::adopt(out);
    EXPECT(r.shape() == (bp::Shape{2}), "reduce_scatter alone: shape");
    EXPECT(r.to_vector<double>() == (std::vector<double>{1.5, 2.5}), "reduce_scatter alone");
    EXPECT(r.device().name() == "reference:0", "reduce_scatter alone: device");
  }
  ok(bp_dist_barrier(), "barrier alone");
  ok(bp_dist_finalize(), "bp_dist_finalize alone");
  expect_error(bp_dist_rank(&v), BP_ERR_STATE, "bp_dist_rank after finalize", {"not initialised"});
  // bp_dist_init finalised MPI, which cannot start twice in a process.
  expect_error(bp_dist_init(nullptr), BP_ERR_STATE, "bp_dist_init after finalize", {"cannot be initialised again"});
  return 0;
}

int without_mpi() {
  expect_error(bp_dist_init(nullptr), BP_ERR_UNSUPPORTED, "bp_dist_init without MPI",
               {"bp_dist_init: built without MPI: install libopenmpi-dev and rebuild"});
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: dist_test collectives|errors|small-dtypes|early-exit N  (under mpirun -np N)\n"
                       "       dist_test alone|without-mpi\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string scenario = argv[1];
  int rc = 0;
  try {
    if (scenario == "alone") {
      rc = alone();
    } else if (scenario == "without-mpi") {
      rc = without_mpi();
    } else if (scenario == "collectives" || scenario == "errors" || scenario == "small-dtypes" ||
               scenario == "early-exit") {
      if (argc != 3) return usage();
      bp_dist_options o{};
      o.struct_size = sizeof o;
      o.timeout_seconds = scenario == "early-exit" ? 2 : 120;
      if (!ok(bp_dist_init(&o), "bp_dist_init")) return 1;
      g_rank = bp::dist::rank();
      g_size = bp::dist::size();
      if (g_size != std::atoi(argv[2])) failed("the group has " + std::to_string(g_size) + " ranks, not " + argv[2]);
      if (scenario == "early-exit") return early_exit();
      rc = scenario == "collectives" ? collectives() : scenario == "errors" ? errors() : small_dtypes();
      ok(bp_dist_finalize(), "bp_dist_finalize");
    } else {
      return usage();
    }
  } catch (const bp::Error &e) {
    failed(std::string("uncaught: ") + e.what());
  }
  if (g_failures) std::fprintf(stderr, "[rank %d] %d check(s) failed\n", g_rank, g_failures);
  else std::printf("[rank %d] %s: all checks passed\n", g_rank, scenario.c_str());
  return g_failures || rc ? 1 : 0;
}
