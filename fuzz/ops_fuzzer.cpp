// libFuzzer target: a differential operator-sequence fuzzer. The input is a
// program over a few tensor registers; each step runs on cpu:0 and on
// reference:0 (the oracle), and both must agree on the status, the result's
// dtype and shape, and its values. Values agree exactly, except after the
// operators whose float results plugin.h lets differ in rounding
// (transcendental functions, pow, softmax, and the accumulation order of
// reductions and matmul): those are compared within the bound the rule gives, and the
// reference's values are then copied to the cpu side so later steps compare
// exactly again. After each input every tensor is released and the live
// count must be back where it was.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "fuzz_support.hpp"
#include "tolerances.hpp"
#include "two_sides.hpp"

namespace {

constexpr int kRegisters = 6;
constexpr int kMaxSteps = 32;
constexpr int64_t kMaxExtent = 4;  // rank <= 3: at most 64 elements a tensor
using bp_fuzz::kSides;

bp_device (&g_devices)[kSides] = bp_fuzz::g_sides;

const double kScalars[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, 127.0, 255.0, 256.0,
                           2147483647.0, -2147483648.0, 2147483648.0, 1e10, -1e10, 9.3e18,
                           1e300, INFINITY, -INFINITY, NAN};

class Reader {
 public:
  Reader(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  uint8_t byte() { return p_ == end_ ? 0 : *p_++; }
  int32_t below(int32_t n) { return int32_t(byte() % n); }
  double scalar() { return kScalars[below(int32_t(sizeof kScalars / sizeof *kScalars))]; }
  int32_t dtype() { return 1 + below(BP_DTYPE_COUNT - 1); }
  int32_t op_of(bp_op_family family) {
    std::vector<int32_t> ops;
    for (int32_t op = 0; op < BP_OP_LIMIT; ++op)
      if (bp_vocab_op_name(op) && bp_vocab_op_family(op) == family) ops.push_back(op);
    return ops[size_t(below(int32_t(ops.size())))];
  }
  int32_t shape(int64_t *extents) {
    int32_t rank = below(4);
    for (int32_t i = 0; i < rank; ++i) extents[i] = below(int32_t(kMaxExtent) + 1);
    return rank;
  }

 private:
  const uint8_t *p_, *end_;
};

// A tensor's metadata and its elements widened to double (exact for every
// dtype but int64 beyond 2^53, which is compared through its own bits).
struct Snapshot : bp_fuzz::Metadata {
  std::vector<double> values;
  std::vector<int64_t> ints;
};

Snapshot snapshot(bp_tensor t) {
  Snapshot s;
  static_cast<bp_fuzz::Metadata &>(s) = bp_fuzz::metadata_of(t, "a live tensor");
  const int64_t n = s.numel;
  std::vector<uint8_t> bytes(size_t(n) * size_t(bp_dtype_size(s.dtype)));
  if (bp_to_host(t, bytes.data(), bytes.size()) != BP_OK)
    bp_fuzz::fail("bp_to_host of a live tensor: %s", bp_last_error());
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t *e = bytes.data() + i * bp_dtype_size(s.dtype);
    double v = 0;
    int64_t iv = 0;
    switch (s.dtype) {
      case BP_FLOAT32: { float f; std::memcpy(&f, e, 4); v = f; break; }
      case BP_FLOAT64: std::memcpy(&v, e, 8); break;
      case BP_INT32: { int32_t x; std::memcpy(&x, e, 4); v = double(iv = x); break; }
      case BP_INT64: std::memcpy(&iv, e, 8); v = double(iv); break;
      case BP_BOOL: v = double(iv = *e); break;
      case BP_FLOAT16: { uint16_t h; std::memcpy(&h, e, 2); v = bp_f32_from_f16(h); break; }
      case BP_BFLOAT16: { uint16_t h; std::memcpy(&h, e, 2); v = bp_f32_from_bf16(h); break; }
      case BP_INT8: v = double(iv = int8_t(*e)); break;
      case BP_UINT8: v = double(iv = *e); break;
      case BP_INT16: { int16_t x; std::memcpy(&x, e, 2); v = double(iv = x); break; }
    }
    s.values.push_back(v);
    s.ints.push_back(iv);
  }
  return s;
}

double max_abs(const Snapshot &s) {
  double m = 0;
  for (double v : s.values) m = std::max(m, std::fabs(v));
  return m;
}

// The smallest nonzero magnitude (infinity when every value is zero).
double min_nonzero_abs(const Snapshot &s) {
  double m = INFINITY;
  for (double v : s.values)
    if (v != 0) m = std::min(m, std::fabs(v));
  return m;
}

// How far apart the two sides' results may be: 0 for exact operators, else
// a bound per element and whether overflow makes any result acceptable.
struct Tolerance {
  double relative = 0, absolute = 0;
  bool anything = false;
};

// An entry of the one tolerance table (tools/check/engine/tolerances.hpp);
// the fuzzer's rows are the same in every float dtype.
Tolerance from_table(bpcheck::TestBound which, double n = 0) {
  const bpcheck::Bound b = bpcheck::test_bound(which, BP_FLOAT32, n);
  Tolerance t;
  t.relative = b.rtol;
  t.absolute = b.atol;
  return t;
}

bool is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

bool within(double got, double want, const Tolerance &tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (got == want) return true;
  return std::fabs(got - want) <= tol.absolute + tol.relative * std::fabs(want);
}

// A float16 or bfloat16 result is a float32 one rounded once (plugin.h): two
// float32 results that differ in their last bits may round one step of the
// 16-bit dtype apart, so an inexact operator gets two of its epsilons more
// (and its smallest subnormal). Exact operators stay exact.
Tolerance rounded_to(int32_t dtype, Tolerance t) {
  const bool inexact = t.anything || t.relative > 0 || t.absolute > 0;
  if (!inexact) return t;
  const bpcheck::Bound half = bpcheck::test_bound(bpcheck::TestBound::fuzz_half, dtype);
  t.relative += half.rtol;
  t.absolute += half.atol;
  return t;
}

class Program {
 public:
  ~Program() {
    for (auto &side : regs_)
      for (bp_tensor &t : side)
        if (t) bp_tensor_release(t);
  }

  void run(Reader &in) {
    for (int step = 0; step < kMaxSteps && !in.empty(); ++step) this->step(in);
  }

 private:
  // One step, the same call on both sides; `out_reg` receives new tensors.
  template <class F>
  void both(const char *what, int out_reg, Tolerance tol, F &&call) {
    bp_tensor out[kSides] = {0, 0};
    bp_status status[kSides];
    std::string message[kSides];
    for (int side = 0; side < kSides; ++side) {
      status[side] = call(side, out_reg >= 0 ? &out[side] : nullptr);
      if (status[side] != BP_OK) message[side] = bp_last_error();
    }
    if (status[0] != status[1])
      bp_fuzz::fail("%s: cpu:0 gives %s (%s), reference:0 gives %s (%s)", what,
                    bp_status_name(status[0]), message[0].c_str(), bp_status_name(status[1]),
                    message[1].c_str());
    if (status[0] != BP_OK || out_reg < 0) return;
    for (int side = 0; side < kSides; ++side) {
      if (regs_[side][out_reg]) bp_tensor_release(regs_[side][out_reg]);
      regs_[side][out_reg] = out[side];
    }
    compare(what, out_reg, tol);
  }

  void compare(const char *what, int reg, const Tolerance &tol) {
    Snapshot got = snapshot(regs_[0][reg]), want = snapshot(regs_[1][reg]);
    if (got.dtype != want.dtype || got.rank != want.rank ||
        !std::equal(got.shape, got.shape + BP_MAX_RANK, want.shape))
      bp_fuzz::fail("%s: the results' dtypes or shapes differ (%s rank %d vs %s rank %d)", what,
                    bp_dtype_name(got.dtype), got.rank, bp_dtype_name(want.dtype), want.rank);
    bool inexact = tol.anything || tol.relative > 0 || tol.absolute > 0;
    const Tolerance in_dtype = rounded_to(want.dtype, tol);
    for (size_t i = 0; i < want.values.size(); ++i) {
      bool same = is_float(want.dtype) ? within(got.values[i], want.values[i], in_dtype)
                                       : got.ints[i] == want.ints[i];
      if (!same && !tol.anything)
        bp_fuzz::fail("%s: element %zu is %.17g on cpu:0 and %.17g on reference:0", what, i,
                      got.values[i], want.values[i]);
    }
    if (inexact) resync(reg);
  }

  // The reference's values into the cpu side's tensor, so that rounding
  // differences the rules allow do not grow through later steps.
  void resync(int reg) {
    int64_t n = 0;
    int32_t dtype = 0;
    bp_tensor_numel(regs_[1][reg], &n);
    bp_tensor_dtype(regs_[1][reg], &dtype);
    std::vector<uint8_t> bytes(size_t(n) * size_t(bp_dtype_size(dtype)));
    if (bp_to_host(regs_[1][reg], bytes.data(), bytes.size()) != BP_OK ||
        bp_from_host_into(regs_[0][reg], bytes.data(), bytes.size()) != BP_OK)
      bp_fuzz::fail("copying the oracle's values across: %s", bp_last_error());
  }

  // Largest magnitude among the oracle's inputs (registers that hold nothing count 0).
  double scale(std::initializer_list<int> regs) {
    double m = 0;
    for (int r : regs)
      if (regs_[1][r]) m = std::max(m, max_abs(snapshot(regs_[1][r])));
    return m;
  }

  int64_t numel(int reg) {
    int64_t n = 0;
    if (regs_[1][reg]) bp_tensor_numel(regs_[1][reg], &n);
    return n;
  }

  // Reductions and matmul sum k terms of magnitude at most `term` in an order
  // each backend picks: each of the k roundings is off by at most half an
  // epsilon of a partial sum, itself at most k * term (float32's epsilon
  // bounds float64's too).
  static Tolerance accumulation(int64_t k, double term) {
    double largest = double(k) * term;
    Tolerance t = from_table(bpcheck::TestBound::fuzz_sum, double(k) * largest);
    t.anything = !(largest < FLT_MAX / 2);  // a partial sum may overflow in one order only
    return t;
  }

  // PROD multiplies k terms in any order: each rounding is relative, so the
  // result is within k epsilons of the exact product, unless a partial
  // product overflows or falls into the subnormals in one order only.
  Tolerance product(int reg) {
    Tolerance t;
    if (!regs_[1][reg]) return t;
    const Snapshot s = snapshot(regs_[1][reg]);
    const double k = double(s.values.size()), hi = max_abs(s), lo = min_nonzero_abs(s);
    t = from_table(bpcheck::TestBound::fuzz_product, k);
    t.anything = !(std::pow(std::max(hi, 1.0), k) < FLT_MAX / 2) ||
                 (lo < 1 && !(std::pow(lo, k) > FLT_MIN * 2));
    return t;
  }

  static Tolerance transcendental() { return from_table(bpcheck::TestBound::fuzz_math); }

  // LOGSUMEXP is m + log(s), s the sum of exp(x - m) over at most 64 terms
  // of at most 1: libm's last bits and the sum's rounding (relative to s)
  // move the log by a few float64 epsilons times the count, absolutely,
  // which matters only where m + log(s) nearly cancels.
  static Tolerance log_sum_exp() { return from_table(bpcheck::TestBound::fuzz_log_sum_exp); }

  void step(Reader &in) {
    int dst = in.below(kRegisters), a = in.below(kRegisters), b = in.below(kRegisters);
    int c = in.below(kRegisters);
    bp_tensor(&r)[kSides][kRegisters] = regs_;
    switch (in.below(17)) {
      case 0: {  // host data; bool bytes are raw, anything but 0 means true
        int64_t shape[BP_MAX_RANK] = {};
        int32_t dtype = in.dtype(), rank = in.shape(shape);
        int64_t n = 1;
        for (int32_t i = 0; i < rank; ++i) n *= shape[i];
        std::vector<uint8_t> data(size_t(n) * size_t(bp_dtype_size(dtype)));
        for (int64_t i = 0; i < n; ++i) {
          auto v = int8_t(in.byte());
          uint8_t *e = data.data() + i * bp_dtype_size(dtype);
          switch (dtype) {
            case BP_FLOAT32: { float f = float(v) / 4; std::memcpy(e, &f, 4); break; }
            case BP_FLOAT64: { double d = double(v) / 4; std::memcpy(e, &d, 8); break; }
            case BP_INT32: { int32_t x = v; std::memcpy(e, &x, 4); break; }
            case BP_INT64: { int64_t x = v; std::memcpy(e, &x, 8); break; }
            case BP_BOOL: *e = uint8_t(v); break;
            case BP_FLOAT16: { uint16_t h = bp_f16_from_f32(float(v) / 4); std::memcpy(e, &h, 2); break; }
            case BP_BFLOAT16: { uint16_t h = bp_bf16_from_f32(float(v) / 4); std::memcpy(e, &h, 2); break; }
            case BP_INT8: case BP_UINT8: *e = uint8_t(v); break;
            case BP_INT16: { int16_t x = v; std::memcpy(e, &x, 2); break; }
          }
        }
        both("from_host", dst, {}, [&](int s, bp_tensor *o) {
          return bp_from_host(g_devices[s], dtype, rank, shape, data.data(), o);
        });
        break;
      }
      case 1: {
        int64_t shape[BP_MAX_RANK] = {};
        int32_t dtype = in.dtype(), rank = in.shape(shape);
        double value = in.scalar();
        both("full", dst, {}, [&](int s, bp_tensor *o) {
          return bp_full(g_devices[s], dtype, rank, shape, value, o);
        });
        break;
      }
      case 2: {
        static const double ends[] = {-3, -1, 0, 0.5, 1, 2.5, 4, 9};
        double start = ends[in.below(8)], stop = ends[in.below(8)], step = ends[in.below(8)];
        int32_t dtype = in.dtype();
        both("arange", dst, {}, [&](int s, bp_tensor *o) {
          return bp_arange(g_devices[s], dtype, start, stop, step, o);
        });
        break;
      }
      case 3: {  // binary and comparison operators, tensor or scalar operand, new or _out
        int32_t op = in.op_of(in.below(2) ? BP_OP_FAMILY_BINARY : BP_OP_FAMILY_COMPARE);
        int mode = in.below(5);
        double scalar = in.scalar();
        int32_t lhs = in.below(2);
        int32_t kind = 1 + in.below(3);  // a bp_scalar_kind, for mode 4
        Tolerance tol = op == BP_OP_POW ? transcendental() : Tolerance{};
        std::string what = std::string(bp_op_name(op)) + (mode == 1 ? "_out" : mode >= 2 ? " with a scalar" : "");
        if (mode == 0)
          both(what.c_str(), dst, tol, [&](int s, bp_tensor *o) { return bp_binary(op, r[s][a], r[s][b], o); });
        else if (mode == 1)
          both(what.c_str(), -1, tol, [&](int s, bp_tensor *) { return bp_binary_out(op, r[s][a], r[s][b], r[s][c]); });
        else if (mode <= 3)
          both(what.c_str(), dst, tol, [&](int s, bp_tensor *o) {
            return bp_binary_scalar(op, r[s][a], scalar, lhs, o);
          });
        else
          both(what.c_str(), dst, tol, [&](int s, bp_tensor *o) {
            return bp_binary_scalar_kind(op, r[s][a], scalar, kind, lhs, o);
          });
        if (mode == 1 && r[0][c]) compare(what.c_str(), c, tol);
        break;
      }
      case 4: {
        int32_t op = in.op_of(BP_OP_FAMILY_UNARY);
        bool exact = op == BP_OP_NEG || op == BP_OP_ABS || op == BP_OP_SQRT || op == BP_OP_RELU ||
                     op == BP_OP_SQUARE || op == BP_OP_BITWISE_NOT;
        both(bp_op_name(op), dst, exact ? Tolerance{} : transcendental(),
             [&](int s, bp_tensor *o) { return bp_unary(op, r[s][a], o); });
        break;
      }
      case 5:
        both("where", dst, {}, [&](int s, bp_tensor *o) { return bp_where(r[s][a], r[s][b], r[s][c], o); });
        break;
      case 6: {
        int32_t op = in.op_of(BP_OP_FAMILY_REDUCE);
        int32_t axis = in.below(5) - 1;
        if (axis < 0) axis = BP_AXIS_ALL;
        int32_t keep = in.below(2);
        bool ordered = op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM;
        double m = scale({a});
        // VAR sums squared deviations, each at most (2m)^2, around a mean summed as SUM's.
        Tolerance tol = ordered            ? accumulation(numel(a), op == BP_OP_NORM ? m * m : m)
                        : op == BP_OP_VAR  ? accumulation(numel(a), 4 * m * m)
                        : op == BP_OP_PROD ? product(a)
                        : op == BP_OP_LOGSUMEXP ? log_sum_exp()
                                                : Tolerance{};
        if (op == BP_OP_NORM) tol.absolute = std::sqrt(tol.absolute);  // |sqrt(x + d) - sqrt(x)| <= sqrt(|d|)
        both(bp_op_name(op), dst, tol, [&](int s, bp_tensor *o) { return bp_reduce(op, r[s][a], axis, keep, o); });
        break;
      }
      case 7: {
        int32_t ta = in.below(2), tb = in.below(2);
        double m = scale({a}) * scale({b});
        both("matmul", dst, accumulation(kMaxExtent, m),
             [&](int s, bp_tensor *o) { return bp_matmul(r[s][a], r[s][b], ta, tb, o); });
        break;
      }
      case 8: {  // views
        int32_t axis = in.below(4) - 1, kind = in.below(5);
        int64_t start = in.below(7) - 3, stop = in.below(7) - 2, stride = in.below(3) + 1;
        int64_t shape[BP_MAX_RANK] = {};
        int32_t rank = in.shape(shape);
        if (rank > 0 && in.below(2)) shape[in.below(rank)] = -1;
        int32_t axes[3] = {in.below(3), in.below(3), in.below(3)};
        both("view", dst, {}, [&](int s, bp_tensor *o) {
          switch (kind) {
            case 0: return bp_slice(r[s][a], axis, start, stop, stride, o);
            case 1: return bp_select(r[s][a], axis, start, o);
            case 2: return bp_transpose(r[s][a], o);
            case 3: return bp_permute(r[s][a], axes, o);
            default: return bp_reshape(r[s][a], rank, shape, o);
          }
        });
        break;
      }
      case 9: {
        int32_t dtype = in.dtype();
        both("cast", dst, {}, [&](int s, bp_tensor *o) { return bp_cast(r[s][a], dtype, o); });
        break;
      }
      case 10: {
        int32_t axis = in.below(5) - 1;
        if (axis < 0) axis = BP_AXIS_ALL;
        both("cumsum", dst, accumulation(numel(a), scale({a})),
             [&](int s, bp_tensor *o) { return bp_scan(BP_OP_CUMSUM, r[s][a], axis, o); });
        break;
      }
      case 11:
        both("nonzero", dst, {}, [&](int s, bp_tensor *o) { return bp_nonzero(r[s][a], o); });
        break;
      case 12:  // any register as the index: wrong dtypes, shapes and ranges included
        both("gather_nd", dst, {}, [&](int s, bp_tensor *o) { return bp_gather_nd(r[s][a], r[s][b], o); });
        break;
      case 13: {  // softmax or log_softmax along an axis (rank 0 and axes out of range included)
        const bool log = in.below(2) != 0;
        const int32_t axis = in.below(5) - 2;
        both(log ? "log_softmax" : "softmax", dst, from_table(bpcheck::TestBound::fuzz_softmax),
             [&](int s, bp_tensor *o) { return log ? bp_log_softmax(r[s][a], axis, o) : bp_softmax(r[s][a], axis, o); });
        break;
      }
      case 14: {  // top-k and sort: plugin.h fixes every bit of both results; k may exceed the axis
        const int32_t axis = in.below(4) - 1, largest = in.below(2);
        const int64_t k = in.below(int32_t(kMaxExtent) + 2);
        both("topk", dst, {}, [&](int s, bp_tensor *o) { return bp_topk(r[s][a], k, axis, largest, o, nullptr); });
        both("argsort", b, {}, [&](int s, bp_tensor *o) { return bp_argsort(r[s][a], axis, largest, o); });
        break;
      }
      case 15: {  // 1-d pooling of any register: [N, C, S] or [C, S]; windows PyTorch refuses included
        bp_pool_options o;
        std::memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.spatial_rank = 1;
        o.kernel[0] = in.below(4);
        o.stride[0] = in.below(3);
        o.pad_begin[0] = in.below(3);
        o.pad_end[0] = in.below(2) ? o.pad_begin[0] : in.below(3);
        o.dilation[0] = in.below(3);
        o.ceil_mode = in.below(2);
        o.count_include_pad = in.below(2);
        if (in.below(2))
          both("max_pool", dst, {}, [&](int s, bp_tensor *out) { return bp_max_pool(r[s][a], &o, out, nullptr); });
        else
          both("avg_pool", dst, accumulation(o.kernel[0] > 0 ? o.kernel[0] : 1, scale({a})),
               [&](int s, bp_tensor *out) { return bp_avg_pool(r[s][a], &o, out); });
        break;
      }
      default: {
        both("assign", -1, {}, [&](int s, bp_tensor *) { return bp_assign(r[s][dst], r[s][a]); });
        if (r[0][dst]) compare("assign", dst, {});
        int64_t shape[BP_MAX_RANK] = {};
        int32_t rank = in.shape(shape);
        uint64_t seed = in.byte();
        int32_t dtype = in.below(2) ? BP_FLOAT32 : BP_FLOAT64;
        both("random_uniform", b, {}, [&](int s, bp_tensor *o) {
          return bp_random_uniform(g_devices[s], dtype, rank, shape, -2, 3, seed, o);
        });
      }
    }
  }

  bp_tensor regs_[kSides][kRegisters] = {};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bp_fuzz::without_leaks([&] {
    Reader in(data, size);
    Program program;
    program.run(in);
  });
  return 0;
}
