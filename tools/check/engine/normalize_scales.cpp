// The scales LAYER_NORM's and RMS_NORM's outputs are judged on (scales.hpp),
// from the case's inputs in float64. A row whose sum of squares passes the
// statistics' largest finite value may overflow in one order and not in
// another (plugin.h's Accumulation rule): every output of it is left open.
// A row holding a NaN or an infinity has NaN statistics, judged exactly.
#include <cfloat>
#include <cmath>

#include "scales.hpp"
#include "values.hpp"
#include "views.hpp"

namespace bpcheck {

namespace {

double value_at(const Case &c, const ViewDesc &v, const int64_t *idx) {
  return load_double(v.dtype, c.storages[size_t(v.storage)].data() + byte_at(v, idx));
}

double affine_at(const Case &c, const ViewDesc &v, int64_t j, double absent) {
  if (is_absent(v)) return absent;
  const int64_t idx[1] = {j};
  return value_at(c, v, idx);
}

}  // namespace

Scales normalize_scales(const Case &c, size_t which) {
  const ViewDesc &x = c.inputs[0];
  const ViewDesc &out = output_at(c, which);
  const size_t count = size_t(numel(out));
  Scales sc{std::vector<double>(count, 0.0), std::vector<double>(count, 0.0), std::vector<int64_t>(count, 0)};
  const bool layer = c.op == BP_OP_LAYER_NORM;
  const int32_t last = x.rank - 1;
  const int64_t n = x.shape[last];
  const double limit = x.dtype == BP_FLOAT64 ? DBL_MAX : FLT_MAX;
  ViewDesc rows = x;
  rows.shape[last] = 1;
  for_each_index(rows, [&](const int64_t *row, int64_t r) {
    int64_t idx[BP_MAX_RANK];
    for (int32_t d = 0; d < x.rank; ++d) idx[d] = row[d];
    double sum = 0, magnitude = 0;
    bool finite = true;
    for (int64_t j = 0; j < n; ++j) {
      idx[last] = j;
      const double v = value_at(c, x, idx);
      finite = finite && std::isfinite(v);
      sum += v;
      magnitude += std::fabs(v);
    }
    const double mean = layer && n > 0 ? sum / double(n) : 0.0;
    double squares = 0;
    for (int64_t j = 0; j < n && finite; ++j) {
      idx[last] = j;
      const double d = value_at(c, x, idx) - mean;
      squares += d * d;
    }
    const bool open = finite && !(squares <= limit && magnitude <= limit);
    const double rstd = n > 0 ? 1.0 / std::sqrt(squares / double(n) + c.attrs.scalar) : 0.0;
    if (which == 0) {
      for (int64_t j = 0; j < n; ++j) {
        idx[last] = j;
        const size_t p = size_t(c_position(out, idx));
        const double deviation = std::fabs(value_at(c, x, idx) - mean);
        sc.sum[p] = open ? HUGE_VAL
                 : finite ? std::fabs(affine_at(c, c.inputs[1], j, 1.0)) * rstd * (magnitude / double(n) + deviation) +
                               std::fabs(affine_at(c, c.inputs[2], j, 0.0))
                          : 0.0;
        sc.terms[p] = n;
      }
    } else {
      // mean on the magnitudes' mean; rstd relative to itself.
      sc.sum[size_t(r)] = open ? HUGE_VAL : finite && which == 1 && n > 0 ? magnitude / double(n) : 0.0;
      sc.terms[size_t(r)] = n;
    }
  });
  return sc;
}

}  // namespace bpcheck
