// Figure "topk": top-k and sort of float32 rows on cpu:0 (the cpu-openblas
// plugin: a row's keys selected, then sorted, threads over rows) next to
// libtorch's at::topk_out and at::sort_out(stable) on the same rows, with
// the plugin's thread count (bp-bench-torch); the other devices' rows are
// shown against cpu:0.
#include <cstdlib>
#include <string>
#include <vector>

#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

void figure_topk(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 7;
  const double target = ctx.quick ? 0.05 : 0.3;
  const int64_t rows = ctx.quick ? 512 : 4096, n = 1024;
  const int threads = ctx.cpu_threads.empty() ? 1 : std::max(1, std::atoi(ctx.cpu_threads.c_str()));
  struct Shape {
    int64_t k;
    const char *what;
  };
  const Shape shapes[] = {{8, "topk k=8"}, {n, "sort (stable)"}};
  for (const Shape &s : shapes) {
    const std::string params = std::string(s.what) + ", float32 [" + std::to_string(rows) + ", " + std::to_string(n) + "]";
    const double cpu_ms = rows_against_cpu(
        ctx, rep, {"topk", params, "ms", "cpu:0 (the same call)", "topk: " + params}, [&](const bp::Device &d) {
          const bp::Tensor x = bp::random_uniform({rows, n}, -1, 1, 29, bp::f32, d);
          const bp::Tensor values = bp::empty({rows, s.k}, bp::f32, d), indices = bp::empty({rows, s.k}, BP_INT64, d);
          const Work run = [&](int64_t times) {
            for (int64_t i = 0; i < times; ++i)
              bp::check(bp_topk_out(x.handle(), s.k, 1, 1, values.handle(), indices.handle()));
            bp::check(bp_synchronize(d.id()));
          };
          return measure(run, trials, target) * 1e3;
        });
    Row t{"topk", params, "cpu:0", "ms"};
    t.higher_is_better = false;
    t.backplane = cpu_ms;
    t.baseline_name = s.k == n ? "libtorch at::sort_out(stable), same threads" : "libtorch at::topk_out, same threads";
    ctx.progress("topk: the libtorch call (bp-bench-torch)");
    const TorchBaseline torch = run_torch_baseline(
        "topk", trials, target, threads, {"--rows", std::to_string(rows), "--n", std::to_string(n), "--k", std::to_string(s.k)});
    t.baseline = torch.ns_per_op / 1e6;
    t.note = torch.why_not.empty() ? "libtorch " + torch.version + ", " + std::to_string(threads) + " threads"
                                   : "baseline skipped: " + torch.why_not;
    rep.add(t);
  }
}

}  // namespace bptool::bench
