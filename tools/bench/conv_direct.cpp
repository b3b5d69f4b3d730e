// The `conv` figure's rows measured in bp-bench-direct (direct.hpp):
// float32 on cpu:0 next to oneDNN called directly, and opencl:0 next to the
// im2col + CLBlastSgemm convolution written in the bench, each pair timed
// in this one process on the same layer.
#include <memory>

#include "conv_onednn_direct.hpp"
#include "conv_work.hpp"
#include "direct.hpp"
#include "opencl_conv_direct.hpp"
#include "opencl_direct.hpp"

namespace bptool::bench {

namespace {

// The batch of the rows: ResNet-18's training batch, or less with --quick;
// PoCL's OpenCL devices, which compute on this CPU with their own
// compiler, get an eighth of it.
int64_t cpu_batch(const Context &ctx) { return ctx.quick ? 8 : 32; }
int64_t opencl_batch(const Context &ctx) { return ctx.quick ? 1 : 4; }

std::string cpu_path() {
  for (const bp_property &p : bp::cpu().properties())
    if (std::string(p.key) == "conv_float32_path") return p.value;
  return "?";
}

}  // namespace

void direct_conv(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.05 : 0.2;
  const int threads = cpu_thread_count(ctx);
  const int64_t batch = cpu_batch(ctx);
  const std::string path = cpu_path();
  for (const ConvLayer &l : kResNet18Layers) {
    ctx.progress(std::string("conv: cpu:0 ") + l.name);
    const ConvOperands ours(l, batch, bp::f32, bp::cpu());
    std::unique_ptr<OnednnConvDirect> theirs;
    std::string why = onednn_direct_missing();
    if (why.empty()) try {
        theirs = std::make_unique<OnednnConvDirect>(l, batch, threads);
      } catch (const std::exception &e) {
        why = e.what();
      }
    for (ConvPass p : kConvPasses) {
      Row r{"conv", conv_params(l, batch, "float32", p), "cpu:0", "GFLOPS"};
      r.baseline_name = "oneDNN direct (NCHW, reordered per call), same threads";
      r.target = 0.9;
      if (theirs) {
        const Pair t = compare(ours.pass(p), [&](int64_t k) { theirs->run(p, k); }, trials, target);
        r.backplane = conv_flops(l, batch) / t.a / 1e9;
        r.baseline = conv_flops(l, batch) / t.b / 1e9;
        r.spread = t.spread();
        r.note = "oneDNN " + theirs->implementation(p) + ", " + std::to_string(threads) + " threads; Backplane: " + path;
      } else {
        r.backplane = conv_flops(l, batch) / measure(ours.pass(p), trials, target) / 1e9;
        r.note = "baseline skipped: " + why;
      }
      rep.add(r);
    }
  }

  const auto ocl = devices_with_prefix("opencl");
  if (ocl.empty()) {
    rep.skip("conv", "float32 ResNet-18 layers", "opencl:0", "GFLOPS", "im2col + CLBlastSgemm (direct)",
             "no OpenCL device (the opencl backend is not loaded or found no device; see `bp devices`)");
    return;
  }
  const bp::Device &d = ocl.front();
  std::string why;
  auto direct = OpenclDirect::open(d, &why);
  if (direct && !direct->has_clblast(&why)) direct.reset();
  const int64_t ocl_batch = opencl_batch(ctx);
  for (const ConvLayer &l : kResNet18Layers) {
    ctx.progress("conv: " + d.name() + " " + l.name + " (first calls build kernels)");
    const ConvOperands ours(l, ocl_batch, bp::f32, d);
    std::unique_ptr<OpenclConvDirect> theirs;
    std::string layer_why = why;
    if (direct) try {
        theirs = std::make_unique<OpenclConvDirect>(*direct, l, ocl_batch);
      } catch (const std::exception &e) {
        layer_why = e.what();
      }
    for (ConvPass p : kConvPasses) {
      Row r{"conv", conv_params(l, ocl_batch, "float32", p), d.name(), "GFLOPS"};
      r.baseline_name = "im2col + CLBlastSgemm per image (written in the bench, same device)";
      if (theirs) {
        const Pair t = compare(ours.pass(p), [&](int64_t k) { theirs->run(p, k); }, trials, target);
        r.backplane = conv_flops(l, ocl_batch) / t.a / 1e9;
        r.baseline = conv_flops(l, ocl_batch) / t.b / 1e9;
        r.spread = t.spread();
      } else {
        r.backplane = conv_flops(l, ocl_batch) / measure(ours.pass(p), trials, target) / 1e9;
        r.note = "baseline skipped: " + layer_why;
      }
      rep.add(r);
    }
  }
}

}  // namespace bptool::bench
