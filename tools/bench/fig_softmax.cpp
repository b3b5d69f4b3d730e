// Figure "softmax": softmax and log_softmax of an (8192, 1024) float32
// tensor along its rows on cpu:0 (bp_softmax_out, bp_log_softmax_out into
// an existing tensor), in GB/s of the bytes they must move (the input read
// once, the output written once), next to memcpy of the same bytes over the
// same threads (the target: 0.9 of its bandwidth), and in ms next to
// libtorch's at::softmax_out / at::log_softmax_out of the same shape in the
// same run (bp-bench-torch, intra-op and BLAS threads capped to the cpu
// backend's; the target: as fast). Each row names the row kernel cpu:0
// picked (its property softmax_path).
#include <cstring>

#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

// A property of cpu:0, "" when it has none.
std::string cpu_property(const bp::Device &cpu, const std::string &key) {
  bp_property props[64];
  int32_t count = 0;
  if (bp_device_properties(cpu.id(), props, 64, &count) != BP_OK) return "";
  for (int32_t i = 0; i < count; ++i)
    if (key == props[i].key) return props[i].value;
  return "";
}

}  // namespace

void figure_softmax(Context &ctx, Report &rep) {
  bp::Device cpu;
  if (!cpu_or_skip(rep, "softmax", "softmax (8192, 1024) float32", "GB/s", "memcpy", &cpu)) return;
  const int64_t rows = ctx.quick ? 2048 : 8192, cols = 1024, n = rows * cols;
  const std::string shape = "(" + std::to_string(rows) + ", " + std::to_string(cols) + ") float32";
  const double bytes = double(n) * sizeof(float);
  const int trials = ctx.quick ? 3 : 7;
  const double target = ctx.quick ? 0.02 : 0.2;
  const int threads = cpu_thread_count(ctx);
  const std::string thr = std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
  const std::string path = cpu_property(cpu, "softmax_path");

  ctx.progress("softmax: allocating " + shape + " x 2");
  const bp::Tensor x = bp::random_uniform({rows, cols}, -4, 4, 11, bp::f32, cpu);
  const bp::Tensor out = bp::zeros({rows, cols}, bp::f32, cpu);
  const float *px = static_cast<const float *>(host_address(x));
  float *po = static_cast<float *>(host_address(out));
  const bp_tensor hx = x.handle(), ho = out.handle();

  const Work copy = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      parallel(threads, n, [&](int64_t b, int64_t e) { std::memcpy(po + b, px + b, size_t(e - b) * sizeof(float)); });
  };
  for (const bool log : {false, true}) {
    const char *name = log ? "log_softmax" : "softmax";
    const Work ours = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) bp::check(log ? bp_log_softmax_out(hx, 1, ho) : bp_softmax_out(hx, 1, ho));
      bp::check(bp_synchronize(cpu.id()));
    };
    const std::string params = std::string(name) + " " + shape + " along dim 1, into an existing output";

    ctx.progress(std::string("softmax: ") + name + " next to memcpy");
    const Pair p = compare(ours, copy, trials, target);
    Row b{"softmax", params, "cpu:0", "GB/s"};
    b.backplane = gbps(2 * bytes, p.a);
    b.baseline = gbps(2 * bytes, p.b);
    b.spread = p.spread();
    b.target = 0.9;
    b.baseline_name = "memcpy of the same bytes (" + thr + ")";
    b.note = "GB/s of bytes read + written; row kernel " + path + ", " + thr;
    rep.add(b);

    Row t{"softmax", params, "cpu:0", "ms"};
    t.higher_is_better = false;
    t.target = 1.0;
    t.backplane = p.a * 1e3;
    t.baseline_name = std::string("libtorch at::") + name + "_out, same threads";
    ctx.progress(std::string("softmax: libtorch's ") + name + " (bp-bench-torch)");
    const TorchBaseline torch =
        run_torch_baseline(name, trials, target, threads, {"--rows", std::to_string(rows), "--n", std::to_string(cols)});
    t.baseline = torch.ns_per_op / 1e6;
    t.note = torch.why_not.empty() ? "libtorch " + torch.version + ", " + thr + ", BLAS: " + torch.blas_threads +
                                         "; row kernel " + path
                                   : "baseline skipped: " + torch.why_not;
    rep.add(t);
  }
}

}  // namespace bptool::bench
