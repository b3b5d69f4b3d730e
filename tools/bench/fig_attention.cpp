// Figure "attention": causal scaled dot-product attention over [B, 12, 512,
// 64] float32 on cpu:0 (attention_shape.hpp): bp_attention through the
// plugin's fused entry, the same call through the composite (matmul,
// softmax, matmul: what runs when an input records a gradient), and
// libtorch 1.13's matmul-softmax-matmul (bp-bench-torch; that libtorch has
// no fused scaled_dot_product_attention), threads capped alike; the row
// names cpu:0's attention_path. A CUDA device, where there is one, gets its
// fused kernel next to its composite.
#include <cmath>
#include <cstdlib>
#include <string>

#include "attention_shape.hpp"
#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

struct Problem {
  bp::Tensor q, k, v;
  int64_t batch;
  std::string params;
};

Problem make_problem(const Context &ctx, const bp::Device &d) {
  Problem p;
  p.batch = ctx.quick ? kAttentionQuickBatch : kAttentionBatch;
  const bp::Shape shape = {p.batch, kAttentionHeads, kAttentionSequence, kAttentionHeadSize};
  p.q = bp::random_normal(shape, 0, 1, 1, bp::f32, d);
  p.k = bp::random_normal(shape, 0, 1, 2, bp::f32, d);
  p.v = bp::random_normal(shape, 0, 1, 3, bp::f32, d);
  p.params = "float32 [" + std::to_string(p.batch) + ", " + std::to_string(kAttentionHeads) + ", " +
             std::to_string(kAttentionSequence) + ", " + std::to_string(kAttentionHeadSize) + "], causal";
  return p;
}

// k calls of bp::attention, the composite when `recorded` (q requires a
// gradient, so the fused entry, which records none, is not taken).
Work attention_calls(const Problem &p, bool recorded, const bp::Device &d) {
  const bp::Tensor q = recorded ? p.q.detach().requires_grad_() : p.q;
  return [q, &p, d](int64_t k) {
    bp::AttentionOptions o;
    o.causal = true;
    for (int64_t i = 0; i < k; ++i) (void)bp::attention(q, p.k, p.v, o);
    d.synchronize();
  };
}

std::string property(const bp::Device &d, const std::string &key) {
  for (const bp_property &prop : d.properties())
    if (key == prop.key) return prop.value;
  return "";
}

}  // namespace

void figure_attention(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.1 : 0.5;
  const bp::Device cpu = bp::cpu();
  const Problem p = make_problem(ctx, cpu);
  const std::string path = property(cpu, "attention_path");
  const int threads = std::max(1, cpu_thread_count(ctx));
  const std::string thr = std::to_string(threads) + (threads == 1 ? " thread" : " threads");

  ctx.progress("attention: the fused entry and the composite on cpu:0");
  const Pair fused_composite = compare(attention_calls(p, false, cpu), attention_calls(p, true, cpu), trials, target);
  ctx.progress("attention: libtorch's matmul-softmax-matmul (bp-bench-torch)");
  const TorchBaseline torch =
      run_torch_baseline("attention", trials, target, threads, {"--batch", std::to_string(p.batch), "--n",
                                                                std::to_string(kAttentionSequence)});
  const std::string torch_name = "libtorch matmul-softmax-matmul, " + thr;
  const std::string torch_note = torch.why_not.empty()
                                     ? "libtorch " + torch.version + " (no fused attention in it), BLAS: " + torch.blas_threads
                                     : "baseline skipped: " + torch.why_not;

  Row fused{"attention", p.params + ", fused entry", "cpu:0", "ms"};
  fused.higher_is_better = false;
  fused.backplane = fused_composite.a * 1e3;
  fused.baseline = torch.ns_per_op / 1e6;
  fused.baseline_name = torch_name;
  fused.target = 1.0;
  fused.note = "cpu path: " + (path.empty() ? std::string("?") : path) + "; " + torch_note;
  rep.add(fused);

  Row composite{"attention", p.params + ", composite", "cpu:0", "ms"};
  composite.higher_is_better = false;
  composite.backplane = fused_composite.b * 1e3;
  composite.baseline = torch.ns_per_op / 1e6;
  composite.baseline_name = torch_name;
  composite.note = "matmul (OpenBLAS " + ctx.openblas_core + ", " + ctx.openblas_threads +
                   " threads), add, softmax, matmul, recorded for autograd";
  rep.add(composite);

  Row versus{"attention", p.params + ", fused entry vs composite", "cpu:0", "ms"};
  set_times(versus, fused_composite, 1e3);
  versus.baseline_name = "bp_attention's composite";
  rep.add(versus);

  for (const bp::Device &d : devices_with_prefix("cuda")) {
    ctx.progress("attention: the fused kernel and the composite on " + d.name());
    try {
      const Problem g = make_problem(ctx, d);
      const Pair on_gpu = compare(attention_calls(g, false, d), attention_calls(g, true, d), trials, target);
      Row r{"attention", g.params + ", fused kernel vs composite", d.name(), "ms"};
      set_times(r, on_gpu, 1e3);
      r.baseline_name = "bp_attention's composite (cuBLAS, softmax)";
      rep.add(r);
    } catch (const bp::Error &e) {
      rep.skip("attention", p.params, d.name(), "ms", "bp_attention's composite", std::string("failed: ") + e.what());
    }
  }
}

}  // namespace bptool::bench
