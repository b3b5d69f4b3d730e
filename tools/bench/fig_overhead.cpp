// Figure "overhead": what routing one operator through the C API costs.
// A 1-element float32 add into a preallocated output (bp_binary_out) and the
// allocating form (bp_binary, then release), next to the same arithmetic in
// a plain C++ loop called through a function pointer; on cpu:0 also next to
// libtorch's at::add_out, measured by bp-bench-torch (torch_baseline.hpp).
#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

void add_f32(const float *a, const float *b, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// volatile: the call cannot be inlined or hoisted out of the loop.
void (*volatile g_add)(const float *, const float *, float *, int64_t) = add_f32;

}  // namespace

void figure_overhead(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 7 : 21;
  const double target = ctx.quick ? 0.005 : 0.03;
  const std::string plain = "plain C++ loop via function pointer";
  float ha[1] = {1.0f}, hb[1] = {2.0f}, ho[1] = {0.0f};
  const Work loop = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) g_add(ha, hb, ho, 1);
  };
  double cpu_ns = kNaN;

  for (const bp::Device &d : bp::devices()) {
    const std::string dev = d.name();
    bp::Tensor a = bp::ones({1}, bp::f32, d), b = bp::ones({1}, bp::f32, d);
    bp::Tensor out = bp::empty({1}, bp::f32, d);
    const bp_tensor ta = a.handle(), tb = b.handle(), to = out.handle();
    const bp_device id = d.id();

    ctx.progress("overhead: bp_binary_out on " + dev);
    const Work add_out = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) bp::check(bp_binary_out(BP_OP_ADD, ta, tb, to));
      bp::check(bp_synchronize(id));
    };
    const Pair p = compare(add_out, loop, trials, target);
    Row r{"overhead", "add_out float32[1] into preallocated output", dev, "ns/op"};
    set_times(r, p, 1e9);
    r.baseline_name = plain;
    r.note = "median of " + std::to_string(trials) + " batches, synchronize per batch";
    rep.add(r);
    if (dev == "cpu:0") cpu_ns = r.backplane;

    ctx.progress("overhead: bp_binary (allocating) on " + dev);
    const Work add_alloc = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) add_into_new(ta, tb, false);
      bp::check(bp_synchronize(id));
    };
    const Pair q = compare(add_alloc, loop, trials, target);
    r.params = "add float32[1], new output then release";
    set_times(r, q, 1e9);
    rep.add(r);
  }

  Row t{"overhead", "add_out float32[1] into preallocated output", "cpu:0", "ns/op"};
  t.higher_is_better = false;
  t.baseline_name = "libtorch at::add_out";
  t.backplane = cpu_ns;
  ctx.progress("overhead: libtorch at::add_out (bp-bench-torch)");
  const TorchBaseline torch = run_torch_baseline("add_out", trials, target);
  t.baseline = torch.ns_per_op;
  t.note = torch.why_not.empty() ? "libtorch " + torch.version + ", in bp-bench-torch, timed the same way"
                                 : "baseline skipped: " + torch.why_not;
  rep.add(t);
}

}  // namespace bptool::bench
