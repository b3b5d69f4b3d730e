// Figure "elementwise": large float32 elementwise work on cpu:0, in GB/s of
// the bytes the computation must read and write, next to memcpy of the same
// buffers and a plain C++ loop split over std::threads (the same thread
// count as the cpu-openblas backend). Chains of operators are the "fusion"
// figure's.
#include <cstring>
#include <memory>

#include "bench.hpp"

namespace bptool::bench {

void figure_elementwise(Context &ctx, Report &rep) {
  bp::Device cpu;
  if (!cpu_or_skip(rep, "elementwise", "add", "GB/s", "memcpy", &cpu)) return;
  const LargeRun run = large_run(ctx);

  ctx.progress("elementwise: allocating " + run.count + " float32 x 3");
  bp::Tensor x = bp::random_uniform({run.n}, 0, 1, 1, bp::f32, cpu);
  bp::Tensor y = bp::random_uniform({run.n}, 0, 1, 2, bp::f32, cpu);
  bp::Tensor out = bp::zeros({run.n}, bp::f32, cpu);
  float *px = static_cast<float *>(host_address(x));
  float *py = static_cast<float *>(host_address(y));
  float *po = static_cast<float *>(host_address(out));
  const bp_tensor hx = x.handle(), hy = y.handle(), ho = out.handle();

  Row r;
  r.figure = "elementwise";
  r.device = "cpu:0";
  r.unit = "GB/s";
  const std::string counted = "GB/s of bytes read + written";

  // add into an existing output: 2 reads + 1 write per element.
  ctx.progress("elementwise: add into existing output (" + run.count + ")");
  const Work add_out = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) bp::check(bp_binary_out(BP_OP_ADD, hx, hy, ho));
    bp::check(bp_synchronize(cpu.id()));
  };
  const Work copy = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
        std::memcpy(po + b, px + b, size_t(e - b) * sizeof(float));
      });
  };
  const Work loop_add = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) po[j] = px[j] + py[j];
      });
  };
  Pair p = compare(add_out, copy, run.trials, run.target);
  r.params = "add " + run.count + " float32 into existing output";
  r.backplane = gbps(3 * run.bytes, p.a);
  r.baseline = gbps(2 * run.bytes, p.b);
  r.spread = p.spread();
  r.baseline_name = "memcpy x->out (" + run.thr + ")";
  r.note = counted;
  rep.add(r);
  p = compare(add_out, loop_add, run.trials, run.target);
  r.backplane = gbps(3 * run.bytes, p.a);
  r.baseline = gbps(3 * run.bytes, p.b);
  r.spread = p.spread();
  r.baseline_name = "plain C++ loop out=x+y (" + run.thr + ")";
  rep.add(r);

  // add into a fresh output: the allocation is part of the work.
  ctx.progress("elementwise: add into a fresh output (" + run.count + ")");
  const Work add_new = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) add_into_new(hx, hy, true);
  };
  const Work loop_new = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      std::unique_ptr<float[]> fresh(new float[size_t(run.n)]);
      float *pf = fresh.get();
      parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) pf[j] = px[j] + py[j];
      });
    }
  };
  p = compare(add_new, loop_new, run.trials, run.target);
  r.params = "add " + run.count + " float32 into a fresh output";
  r.backplane = gbps(3 * run.bytes, p.a);
  r.baseline = gbps(3 * run.bytes, p.b);
  r.spread = p.spread();
  r.baseline_name = "plain C++ loop into new float[] (" + run.thr + ")";
  r.note = counted + "; allocation included";
  rep.add(r);
}

}  // namespace bptool::bench
