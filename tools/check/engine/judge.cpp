#include "judge.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "attention_cases.hpp"
#include "conv_cases.hpp"
#include "pool_cases.hpp"
#include "rules.hpp"
#include "scales.hpp"
#include "text.hpp"
#include "tolerances.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// LOGSUMEXP is m + log(s) with m the set's maximum and s, the sum of
// exp(x - m), between 1 and the count: rounding s moves the log by about
// its relative error, and the additions and the log round relative to |m|
// and log(count). A maximum that is not finite is the exact result (NaN,
// +inf, -inf): no scale there.
void log_sum_exp_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &count) {
  const ViewDesc &in = c.inputs[0];
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  std::vector<double> max(scale.size(), -HUGE_VAL);
  for_each_index(in, [&](const int64_t *idx, int64_t) {
    int64_t oidx[BP_MAX_RANK] = {0};
    for (int d = 0; d < in.rank; ++d) oidx[d] = c.output.shape[d] == 1 ? 0 : idx[d];
    const size_t pos = size_t(c_position(c.output, oidx));
    const double x = load_double(in.dtype, s.data() + byte_at(in, idx));
    if (std::isnan(x) || x > max[pos]) max[pos] = x;
    ++count[pos];
  });
  for (size_t i = 0; i < scale.size(); ++i)
    scale[i] = std::isfinite(max[i]) ? std::fabs(max[i]) + 1 + std::log(double(count[i])) : 0;
}

// LOG_SOFTMAX is (x - m) - log(s) with s, the sum of exp(x - m) over the
// row, between 1 and its length n: rounding s moves the log by about its
// relative error, and the subtractions round relative to |x - m| and log(n).
// A maximum that is not finite gives an exact result (NaN, -inf): no scale.
void log_softmax_scale(const Case &c, std::vector<double> &scale) {
  const ViewDesc &in = c.inputs[0];
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  const int64_t n = in.shape[in.rank - 1];
  if (n == 0) return;
  std::vector<double> max(scale.size() / size_t(n), -HUGE_VAL);
  auto x_at = [&](const int64_t *idx) { return load_double(in.dtype, s.data() + byte_at(in, idx)); };
  for_each_index(in, [&](const int64_t *idx, int64_t pos) {
    const double x = x_at(idx);
    double &m = max[size_t(pos / n)];
    if (std::isnan(x) || x > m) m = x;
  });
  for_each_index(in, [&](const int64_t *idx, int64_t pos) {
    const double m = max[size_t(pos / n)];
    scale[size_t(pos)] = std::isfinite(m) ? std::fabs(x_at(idx) - m) + 1 + std::log(double(n)) : 0;
  });
}

// SCATTER_ADD_ND: an element's old value and every value a row adds into
// it. Infinite and NaN terms decide the result whatever the order, so only
// the finite ones count.
void scatter_add_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &terms) {
  const ViewDesc &index = c.inputs[0], &values = c.inputs[1], &out = c.output;
  const std::vector<uint8_t> &si = c.storages[size_t(index.storage)], &sv = c.storages[size_t(values.storage)],
                             &so = c.storages[size_t(out.storage)];
  auto magnitude = [](double x) { return std::isfinite(x) ? std::fabs(x) : 0.0; };
  for_each_index(out, [&](const int64_t *idx, int64_t pos) {
    scale[size_t(pos)] = magnitude(load_double(out.dtype, so.data() + byte_at(out, idx)));
    terms[size_t(pos)] = 1;
  });
  const int k = int(index.shape[1]);
  for_each_index(values, [&](const int64_t *idx, int64_t) {
    int64_t oidx[BP_MAX_RANK] = {0};
    for (int j = 0; j < k; ++j) {
      const int64_t at[2] = {idx[0], j};
      oidx[j] = load_int(BP_INT64, si.data() + byte_at(index, at));
    }
    for (int d = 1; d < values.rank; ++d) oidx[k + d - 1] = idx[d];
    const size_t pos = size_t(c_position(out, oidx));
    scale[pos] += magnitude(load_double(values.dtype, sv.data() + byte_at(values, idx)));
    ++terms[pos];
  });
}

// What the rounding error of an accumulation grows with (scales.hpp): the
// sum of the magnitudes of its terms (SUM, MEAN (divided by the count),
// CUMSUM, MATMUL, SCATTER_ADD_ND, VAR (the squared deviations, divided by
// the divisor); 0 for PROD and NORM, whose error is relative to the result)
// and their number; LOGSUMEXP's scale is a floor of its own.

// VAR: each output's variance itself, m2 / (n - correction), computed in
// float64 (its terms, the squared deviations, are all >= 0); 0 where n -
// correction <= 0 or the set holds a NaN or an infinity (the result is then
// +inf or NaN, judged exactly).
void var_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &count) {
  const ViewDesc &in = c.inputs[0];
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  const size_t n = scale.size();
  std::vector<double> sum(n, 0.0), squares(n, 0.0);
  std::vector<bool> finite(n, true);
  for (int pass = 0; pass < 2; ++pass)
    for_each_index(in, [&](const int64_t *idx, int64_t) {
      int64_t oidx[BP_MAX_RANK] = {0};
      for (int d = 0; d < in.rank; ++d) oidx[d] = c.output.shape[d] == 1 ? 0 : idx[d];
      const size_t pos = size_t(c_position(c.output, oidx));
      const double x = load_double(in.dtype, s.data() + byte_at(in, idx));
      if (pass == 0) {
        sum[pos] += x;
        finite[pos] = finite[pos] && std::isfinite(x);
        ++count[pos];
      } else {
        const double d = x - sum[pos] / double(count[pos]);
        squares[pos] += d * d;
      }
    });
  for (size_t i = 0; i < n; ++i) {
    const double divisor = double(count[i]) - c.attrs.scalar;
    scale[i] = finite[i] && divisor > 0 ? squares[i] / divisor : 0.0;
  }
}

// The terms of each output element of a reduction: count, and the sum of
// their magnitudes.
void reduce_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &count) {
  const ViewDesc &in = c.inputs[0];
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  for_each_index(in, [&](const int64_t *idx, int64_t) {
    int64_t oidx[BP_MAX_RANK] = {0};
    for (int d = 0; d < in.rank; ++d) oidx[d] = c.output.shape[d] == 1 ? 0 : idx[d];
    const size_t pos = size_t(c_position(c.output, oidx));
    scale[pos] += std::fabs(load_double(in.dtype, s.data() + byte_at(in, idx)));
    ++count[pos];
  });
}

Scales accum_scale(const Case &c) {
  const size_t n = size_t(numel(c.output));
  Scales sc{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<int64_t>(n, 0)};
  if (c.op == BP_OP_LOGSUMEXP) {
    log_sum_exp_scale(c, sc.floor, sc.terms);
  } else if (c.op == BP_OP_LOG_SOFTMAX) {
    log_softmax_scale(c, sc.floor);
  } else if (c.op == BP_OP_SCATTER_ADD_ND) {
    scatter_add_scale(c, sc.sum, sc.terms);
  } else if (c.op == BP_OP_CUMSUM) {
    // The prefix of its row: the last axis is the innermost of the C order.
    const ViewDesc &in = c.inputs[0];
    const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
    double prefix = 0;
    for_each_index(in, [&](const int64_t *idx, int64_t pos) {
      if (idx[in.rank - 1] == 0) prefix = 0;
      prefix += std::fabs(load_double(in.dtype, s.data() + byte_at(in, idx)));
      sc.sum[size_t(pos)] = prefix;
      sc.terms[size_t(pos)] = idx[in.rank - 1] + 1;
    });
  } else if (c.op == BP_OP_MATMUL) {
    const ViewDesc &a = c.inputs[0], &b = c.inputs[1];
    const std::vector<uint8_t> &sa = c.storages[size_t(a.storage)], &sb = c.storages[size_t(b.storage)];
    const int r = c.output.rank;
    const int64_t K = a.shape[r - 1];
    for_each_index(c.output, [&](const int64_t *idx, int64_t pos) {
      int64_t ia[BP_MAX_RANK], ib[BP_MAX_RANK];
      std::memcpy(ia, idx, sizeof(int64_t) * size_t(r));
      std::memcpy(ib, idx, sizeof(int64_t) * size_t(r));
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        ia[r - 1] = k;
        ib[r - 2] = k;
        sum += std::fabs(load_double(a.dtype, sa.data() + byte_at(a, ia))) *
               std::fabs(load_double(b.dtype, sb.data() + byte_at(b, ib)));
      }
      sc.sum[size_t(pos)] = sum;
      sc.terms[size_t(pos)] = K;
    });
  } else if (c.op == BP_OP_VAR) {
    var_scale(c, sc.sum, sc.terms);
  } else if (op_family(c.op) == BP_OP_FAMILY_ATTENTION) {
    attention_scale(c, sc.sum, sc.terms);
  } else if (op_family(c.op) == BP_OP_FAMILY_CONV) {
    conv_scale(c, sc.sum, sc.terms);
  } else if (c.op == BP_OP_AVG_POOL || op_family(c.op) == BP_OP_FAMILY_POOL_GRAD) {
    pool_scale(c, sc.sum, sc.terms);
  } else if (op_family(c.op) == BP_OP_FAMILY_REDUCE) {
    reduce_scale(c, sc.sum, sc.terms);
    if (c.op == BP_OP_MEAN) {
      for (size_t i = 0; i < n; ++i)
        if (sc.terms[i]) sc.sum[i] /= double(sc.terms[i]);
    } else if (c.op != BP_OP_SUM) {
      std::fill(sc.sum.begin(), sc.sum.end(), 0.0);
    }
  }
  return sc;
}

}  // namespace

std::string check_sentinels(const Case &c, const std::vector<uint8_t> &after, size_t which) {
  const ViewDesc &v = output_at(c, which);
  const std::vector<uint8_t> &before = c.storages[size_t(v.storage)];
  if (after.size() != before.size()) return "read back a different number of bytes";
  const int64_t esize = bp_vocab_dtype_size(v.dtype);
  std::vector<uint8_t> mask(before.size(), 0);
  uint64_t first = v.offset, end = v.offset;
  bool any = false;
  for_each_index(v, [&](const int64_t *idx, int64_t) {
    uint64_t at = byte_at(v, idx);
    std::memset(mask.data() + at, 1, size_t(esize));
    if (!any || at < first) first = at;
    if (!any || at + uint64_t(esize) > end) end = at + uint64_t(esize);
    any = true;
  });
  int64_t lo_before = -1, hi_before = -1, lo_after = -1, hi_after = -1, gaps = 0, first_gap = -1;
  for (size_t i = 0; i < before.size(); ++i) {
    if (mask[i] || after[i] == before[i]) continue;
    if (i < first) {
      int64_t dist = int64_t(first - i);
      if (lo_before < 0 || dist < lo_before) lo_before = dist;
      if (dist > hi_before) hi_before = dist;
    } else if (i >= end) {
      int64_t dist = int64_t(i - end);
      if (lo_after < 0) lo_after = dist;
      hi_after = dist;
    } else {
      if (first_gap < 0) first_gap = int64_t(i - first);
      ++gaps;
    }
  }
  std::string out;
  if (lo_after >= 0)
    out = format("wrote past the end of its output (sentinel bytes %" PRId64 "..%" PRId64
                 " after its last element were overwritten)",
                 lo_after, hi_after);
  else if (lo_before >= 0)
    out = format("wrote before the start of its output (sentinel bytes %" PRId64 "..%" PRId64
                 " before its first element were overwritten)",
                 lo_before, hi_before);
  else if (gaps > 0)
    out = format("wrote between the elements of its strided output (sentinel: %" PRId64
                 " gap bytes overwritten, the first %" PRId64 " bytes after its first element)",
                 gaps, first_gap);
  return out;
}

std::string check_inputs_untouched(const Case &c, const std::vector<std::vector<uint8_t>> &after) {
  auto is_output = [&](int s) {
    for (size_t j = 0; j < output_count(c); ++j)
      if (output_at(c, j).storage == s) return true;
    return false;
  };
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    int s = c.inputs[i].storage;
    if (s < 0 || is_output(s) || size_t(s) >= after.size()) continue;
    const std::vector<uint8_t> &a = after[size_t(s)], &b = c.storages[size_t(s)];
    if (a.size() != b.size() || a.empty()) continue;
    auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    if (diff.first != a.end())
      return format("modified its input %zu (byte %td of its buffer changed)", i, diff.first - a.begin());
  }
  return {};
}

std::string compare_outputs(const Case &c, const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected,
                            const char *whose, size_t which, const Bound *bound) {
  const ViewDesc &v = output_at(c, which);
  const int32_t dtype = v.dtype;
  const Tolerance tol = tolerance(c.op, dtype);
  const TolClass cls = tol_class(c.op);
  Scales sc;
  if (op_family(c.op) == BP_OP_FAMILY_NORMALIZE && is_float(dtype))
    sc = normalize_scales(c, which);
  else if (which == 0 && is_float(dtype) &&
           (cls == TolClass::accum || cls == TolClass::accum_each || cls == TolClass::log_sum_exp))
    sc = accum_scale(c);
  const bool scaled = !sc.terms.empty();
  const size_t esize = size_t(bp_vocab_dtype_size(dtype));
  const std::vector<Leeway> leeway = which == 0 ? output_leeway(c) : std::vector<Leeway>();
  int64_t bad = 0;
  std::string first;
  for_each_index(v, [&](const int64_t *idx, int64_t pos) {
    const uint64_t at = byte_at(v, idx);
    const uint8_t *g = got.data() + at, *e = expected.data() + at;
    bool ok;
    if (!is_float(dtype)) {
      ok = std::memcmp(g, e, esize) == 0;
    } else if (bound) {
      const size_t p = size_t(pos);
      ok = (scaled && !(sc.sum[p] <= accumulator_max(c.op, dtype))) ||
           within_bound(*bound, load_double(dtype, g), load_double(dtype, e));
    } else if (tol.exact) {
      const double x = load_double(dtype, g), r = load_double(dtype, e);
      ok = std::isnan(r) ? std::isnan(x) : std::memcmp(g, e, esize) == 0;
    } else {
      const double x = load_double(dtype, g), r = load_double(dtype, e);
      const size_t p = size_t(pos);
      if (scaled && !(sc.sum[p] <= accumulator_max(c.op, dtype)))
        ok = true;  // a partial sum may overflow in one order and not another (plugin.h)
      else if (std::isnan(r))
        ok = std::isnan(x);
      else if (std::isinf(r) || std::isinf(x) || std::isnan(x))
        ok = x == r;
      else
        ok = within(tol, dtype, x, r, scaled ? std::max(c.scale_floor, sc.floor[p]) : c.scale_floor,
                    scaled ? sc.sum[p] : 0.0, scaled ? sc.terms[p] : 0);
    }
    if (!ok && !leeway.empty()) {
      const Leeway l = leeway[size_t(pos)];
      ok = l == Leeway::any_value || (l == Leeway::either_zero && load_double(dtype, g) == 0);
    }
    if (!ok) {
      if (bad == 0)
        first = "at " + shape_text(v.rank, idx) + " it gives " + value_text(dtype, g) + " where " + whose + " gives " +
                value_text(dtype, e);
      ++bad;
    }
  });
  if (bad == 0) return {};
  return "computes wrong values" + (output_count(c) > 1 ? format(" in output %zu", which) : std::string()) +
         ": " + first + format(" (%" PRId64 " of %" PRId64 " elements differ)", bad, numel(v));
}

bool exact_result(int32_t op, int32_t dtype) { return tolerance(op, dtype).exact; }

std::string judge(const Case &c, const Outcome &got, const Outcome &expected) {
  if (!got.ok) return got.failure;
  for (size_t i = 0; i < output_count(c); ++i) {
    const ViewDesc &v = output_at(c, i);
    if (is_absent(v)) continue;
    std::string s = check_sentinels(c, got.storages[size_t(v.storage)], i);
    if (!s.empty()) return output_count(c) > 1 ? format("output %zu: ", i) + s : s;
  }
  std::string s = check_inputs_untouched(c, got.storages);
  if (!s.empty()) return s;
  for (size_t i = 0; i < output_count(c); ++i) {
    const ViewDesc &v = output_at(c, i);
    if (is_absent(v)) continue;
    s = compare_outputs(c, got.storages[size_t(v.storage)], expected.storages[size_t(v.storage)],
                        "the reference", i);
    if (!s.empty()) return s;
  }
  return {};
}

}  // namespace bpcheck
