// Figure "conv": convolution forward, backward data and backward weight at
// ResNet-18's layer shapes (conv_shapes.hpp), float32 on cpu:0 next to
// oneDNN called directly and opencl:0 next to an im2col + CLBlast GEMM
// (both measured by bp-bench-direct, conv_direct.cpp), float32 on cpu:0
// next to libtorch (bp-bench-torch) with the same threads, and bfloat16 on
// cpu:0 next to float32.
#include <cstdlib>

#include "conv_work.hpp"
#include "direct.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

std::string cpu_property(const char *key) {
  for (const bp_property &p : bp::cpu().properties())
    if (std::string(p.key) == key) return p.value;
  return "?";
}

}  // namespace

void figure_conv(Context &ctx, Report &rep) {
  Row skipped{"conv", "float32 ResNet-18 layers", "cpu:0, opencl:0", "GFLOPS"};
  skipped.baseline_name = "oneDNN direct; im2col + CLBlastSgemm (direct)";
  run_direct(ctx, rep, {"--part", "conv"}, skipped);

  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.05 : 0.2;
  const int64_t batch = ctx.quick ? 8 : 32;
  const int threads = ctx.cpu_threads.empty() ? 1 : std::max(1, std::atoi(ctx.cpu_threads.c_str()));
  const std::string f32_path = cpu_property("conv_float32_path"), bf16_path = cpu_property("conv_bfloat16_path");
  const std::string torch_missing = torch_baseline_missing();
  for (int i = 0; i < kResNet18LayerCount; ++i) {
    const ConvLayer &l = kResNet18Layers[i];
    ctx.progress(std::string("conv: cpu:0 ") + l.name + " (libtorch)");
    const ConvOperands ours(l, batch, bp::f32, bp::cpu());
    for (ConvPass p : kConvPasses) {
      Row r{"conv", conv_params(l, batch, "float32", p), "cpu:0", "GFLOPS"};
      r.baseline_name = "libtorch, same threads";
      r.target = 1.0;
      r.backplane = conv_flops(l, batch) / measure(ours.pass(p), trials, target) / 1e9;
      const char *pass = p == ConvPass::forward ? "forward" : p == ConvPass::data ? "data" : "weight";
      const TorchBaseline t = run_torch_baseline(
          "conv", trials, target, threads,
          {"--layer", std::to_string(i), "--pass", pass, "--batch", std::to_string(batch)});
      r.baseline = conv_flops(l, batch) / (t.ns_per_op * 1e-9) / 1e9;
      r.note = t.why_not.empty() ? t.baseline + " " + t.version + ", " + std::to_string(threads) + " threads, BLAS: " +
                                       t.blas_threads + "; Backplane: " + f32_path
                                 : "baseline skipped: " + t.why_not;
      rep.add(r);
    }
  }
  for (const ConvLayer &l : kResNet18Layers) {
    ctx.progress(std::string("conv: cpu:0 ") + l.name + " (bfloat16)");
    const ConvOperands bf16(l, batch, bp::bf16, bp::cpu()), f32(l, batch, bp::f32, bp::cpu());
    for (ConvPass p : kConvPasses) {
      Row r{"conv", conv_params(l, batch, "bfloat16", p), "cpu:0", "GFLOPS"};
      r.baseline_name = "Backplane float32, the same layer";
      r.target = 1.5;
      const Pair t = compare(bf16.pass(p), f32.pass(p), trials, target);
      r.backplane = conv_flops(l, batch) / t.a / 1e9;
      r.baseline = conv_flops(l, batch) / t.b / 1e9;
      r.spread = t.spread();
      r.note = "bfloat16: " + bf16_path + " (the 1.5x target is for CPUs with AVX-512 BF16)";
      rep.add(r);
    }
  }
}

}  // namespace bptool::bench
