// Figure "layer_norm": LAYER_NORM over (8192, 1024) float32 on cpu:0
// (1024 rows with --quick), weight and bias, no statistics kept (inference:
// the form libtorch's at::layer_norm returns), each call into a fresh
// output as libtorch's does. In GB/s of the bytes it must move (x read once,
// y written once): next to a memcpy of the same bytes on the same threads
// (target: 0.9x its bandwidth) and next to libtorch's at::layer_norm
// (bp-bench-torch, the same thread count for its pool and BLAS; target
// 1.0x), both in the same run. The CPU path is cpu-openblas's row kernel
// (plugins/cpu-openblas/normalize.cpp: AVX-512F or AVX2 where the CPU has
// it, its property norm_path), named in
// each row with the thread count.
#include <cstdio>
#include <cstring>
#include <string>

#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

void figure_layer_norm(Context &ctx, Report &rep) {
  const int64_t rows = ctx.quick ? 1024 : 8192, n = 1024;
  const std::string params = "(" + std::to_string(rows) + ", " + std::to_string(n) + ") float32, weight and bias";
  bp::Device cpu;
  if (!cpu_or_skip(rep, "layer_norm", params, "GB/s", "memcpy", &cpu)) return;
  const int threads = cpu_thread_count(ctx);
  const std::string thr = std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.02 : 0.1;
  const double bytes = 2.0 * double(rows * n) * sizeof(float);  // x read, y written

  ctx.progress("layer_norm: " + params);
  const bp::Tensor x = bp::random_normal({rows, n}, 1, 2, 1, bp::f32, cpu);
  const bp::Tensor w = bp::random_normal({n}, 1, 0.5, 2, bp::f32, cpu);
  const bp::Tensor b = bp::random_normal({n}, 0, 0.5, 3, bp::f32, cpu);
  const bp::Tensor copy_out = bp::empty({rows, n}, bp::f32, cpu);
  const float *px = static_cast<const float *>(host_address(x));
  float *po = static_cast<float *>(host_address(copy_out));
  const bp_tensor hx = x.handle(), hw = w.handle(), hb = b.handle();

  const Work layer_norm = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      bp_tensor y = BP_NO_TENSOR;
      bp::check(bp_layer_norm(hx, hw, hb, 1, 1e-5, &y, nullptr, nullptr));
      bp::check(bp_tensor_wait(y));
      bp::check(bp_tensor_release(y));
    }
  };
  const Work copy = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      parallel(threads, rows * n, [&](int64_t begin, int64_t end) {
        std::memcpy(po + begin, px + begin, size_t(end - begin) * sizeof(float));
      });
  };
  const Pair p = compare(layer_norm, copy, trials, target);
  std::string path = "cpu-openblas row kernel";
  for (const bp_property &prop : cpu.properties())
    if (std::string(prop.key) == "norm_path") path += " " + std::string(prop.value);
  path += ", " + thr;
  Row r{"layer_norm", params, "cpu:0", "GB/s"};
  r.backplane = gbps(bytes, p.a);
  r.baseline = gbps(bytes, p.b);
  r.spread = p.spread();
  r.baseline_name = "memcpy of the same bytes (" + thr + ")";
  r.target = 0.9;
  r.note = "GB/s of x read + y written; " + path;
  rep.add(r);

  ctx.progress("layer_norm: libtorch's at::layer_norm (bp-bench-torch)");
  const TorchBaseline torch = run_torch_baseline(
      "layer_norm", trials, target, threads, {"--rows", std::to_string(rows), "--n", std::to_string(n)});
  Row t{"layer_norm", params, "cpu:0", "GB/s"};
  t.backplane = r.backplane;
  t.baseline = torch.ns_per_op > 0 ? gbps(bytes, torch.ns_per_op * 1e-9) : kNaN;
  t.baseline_name = "libtorch at::layer_norm, same threads";
  t.target = 1.0;
  t.note = torch.why_not.empty() ? "libtorch " + torch.version + ", " + thr + ", BLAS: " + torch.blas_threads + "; " + path
                                 : "baseline skipped: " + torch.why_not;
  rep.add(t);
}

}  // namespace bptool::bench
