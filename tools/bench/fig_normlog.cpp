// Figure "normlog", the seed chapter's exercise 3: 1000 matmuls of 100x100
// matrices, logging the Frobenius norm of each product, either read to the
// host one at a time (bp_norm, then bp_to_host each step) or written into a
// device tensor (bp_norm_out into log[i], a view) and read once at the end.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench.hpp"

namespace bptool::bench {

void figure_normlog(Context &ctx, Report &rep) {
  const int64_t wanted = ctx.quick ? 100 : 1000;
  const double budget_s = ctx.quick ? 0.3 : 3.0;  // per run, on slow devices (reference)
  const int64_t m = 100;
  const int trials = 3;
  const double target = 0.001;  // one whole run per timed batch

  for (const bp::Device &d : bp::devices()) {
    const std::string dev = d.name();
    bp::Tensor a = bp::random_uniform({m, m}, -1, 1, 1, bp::f32, d);
    bp::Tensor b = bp::random_uniform({m, m}, -1, 1, 2, bp::f32, d);
    bp::Tensor c = bp::empty({m, m}, bp::f32, d);
    // A device too slow for the full run (the reference backend) gets fewer steps.
    int64_t steps = wanted;
    {
      bp::matmul_out(a, b, c);
      (void)bp::norm(c).item();
      const double t0 = now_seconds();
      bp::matmul_out(a, b, c);
      (void)bp::norm(c).item();
      const double step_s = now_seconds() - t0;
      if (step_s * double(wanted) > budget_s)
        steps = std::max<int64_t>(5, int64_t(budget_s / step_s));
    }
    ctx.progress("normlog: " + std::to_string(steps) + " steps on " + dev);
    bp::Tensor log = bp::zeros({steps}, bp::f32, d);
    std::vector<float> each(static_cast<size_t>(steps)), logged(static_cast<size_t>(steps));
    const bp_tensor ha = a.handle(), hb = b.handle(), hc = c.handle();

    const Work read_each = [&](int64_t k) {
      for (int64_t r = 0; r < k; ++r)
        for (int64_t i = 0; i < steps; ++i) {
          bp::check(bp_matmul_out(ha, hb, 0, 0, hc));
          bp_tensor norm = BP_NO_TENSOR;
          bp::check(bp_norm(hc, &norm));
          const bp_status s = bp_to_host(norm, &each[size_t(i)], sizeof(float));
          bp_tensor_release(norm);
          bp::check(s);
        }
    };
    const Work on_device = [&](int64_t k) {
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t i = 0; i < steps; ++i) {
          bp::check(bp_matmul_out(ha, hb, 0, 0, hc));
          bp_tensor slot = BP_NO_TENSOR;
          bp::check(bp_select(log.handle(), 0, i, &slot));
          const bp_status s = bp_norm_out(hc, slot);
          bp_tensor_release(slot);
          bp::check(s);
        }
        bp::check(bp_to_host(log.handle(), logged.data(), logged.size() * sizeof(float)));
      }
    };
    const Pair p = compare(on_device, read_each, trials, target);

    double worst = 0;
    for (size_t i = 0; i < each.size(); ++i)
      worst = std::max(worst, std::fabs(double(each[i]) - double(logged[i])) /
                                  std::max(1e-30, std::fabs(double(each[i]))));
    std::string params = std::to_string(steps) + " x (matmul 100x100 f32 + norm)";
    if (steps != wanted) params += ", reduced from " + std::to_string(wanted) + " (slow device)";
    Row r{"normlog", params, dev, "ms"};
    set_times(r, p, 1e3);
    r.baseline_name = "bp_norm + bp_to_host every step";
    char note[160];
    std::snprintf(note, sizeof note,
                  "backplane = bp_norm_out into log[i], one read; %.1f vs %.1f us/step; %s",
                  p.a * 1e6 / double(steps), p.b * 1e6 / double(steps),
                  worst <= 1e-6 ? "norms agree" : "NORMS DIFFER");
    r.note = note;
    rep.add(r);
  }
}

}  // namespace bptool::bench
