// Figure "fusion": the seed chapter's chain y = x**2 - 0.5; z = y**3 - 0.2
// on 1e8 float32 (and bfloat16 on cpu:0), with lazy fusion on and off
// (bp_fusion_enable), next to the same chain written as one plain C++ loop
// (cpu:0) or one hand-written OpenCL kernel (opencl:0,
// fig_fusion_opencl.cpp, measured by bp-bench-direct). Fresh tensors: the
// allocation of what is written is part of the work on both sides.
#include <memory>

#include "backplane/half.h"

#include "direct.hpp"

namespace bptool::bench {

namespace {

// Sets fusion for the life of the object, then puts back what was there.
class FusionSetting {
 public:
  explicit FusionSetting(bool on) : before_(bp_fusion_enabled() != 0) { bp::check(bp_fusion_enable(on)); }
  ~FusionSetting() { bp_fusion_enable(before_); }
  FusionSetting(const FusionSetting &) = delete;
  FusionSetting &operator=(const FusionSetting &) = delete;

 private:
  bool before_;
};

}  // namespace

void figure_fusion(Context &ctx, Report &rep) {
  bp::Device cpu;
  if (cpu_or_skip(rep, "fusion", "chain", "GB/s", "plain C++ loop", &cpu)) {
    const LargeRun run = large_run(ctx);

    ctx.progress("fusion: allocating " + run.count + " float32");
    const bp::Tensor x = bp::random_uniform({run.n}, 0, 1, 1, bp::f32, cpu);
    const float *px = static_cast<const float *>(host_address(x));

    // z only: y is dropped before z is needed, so fusion never writes it.
    const auto chain_z_of = [](const bp::Tensor &in) -> Work {
      return [&in](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          bp::Tensor z;
          {
            const bp::Tensor y = bp::pow(in, 2.0) - 0.5;
            z = bp::pow(y, 3.0) - 0.2;
          }
          z.wait();
        }
      };
    };
    const Work chain_z = chain_z_of(x);
    const Work loop_z = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) {
        std::unique_ptr<float[]> z(new float[size_t(run.n)]);
        float *pz = z.get();
        parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
          for (int64_t j = b; j < e; ++j) {
            const float v = px[j] * px[j] - 0.5f;
            pz[j] = v * v * v - 0.2f;
          }
        });
      }
    };
    // y kept too: both are written.
    const Work chain_yz = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) {
        const bp::Tensor y = bp::pow(x, 2.0) - 0.5;
        const bp::Tensor z = bp::pow(y, 3.0) - 0.2;
        z.wait();
      }
    };
    const Work loop_yz = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) {
        std::unique_ptr<float[]> y(new float[size_t(run.n)]), z(new float[size_t(run.n)]);
        float *py = y.get(), *pz = z.get();
        parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
          for (int64_t j = b; j < e; ++j) {
            const float v = px[j] * px[j] - 0.5f;
            py[j] = v;
            pz[j] = v * v * v - 0.2f;
          }
        });
      }
    };

    Row r{"fusion", "", "cpu:0", "GB/s"};
    const std::string baseline = "plain C++ loop, one pass, into new float[] (" + run.thr + ")";
    for (const bool on : {true, false}) {
      const FusionSetting setting(on);
      const std::string mode = on ? "fusion on" : "fusion off";
      ctx.progress("fusion: cpu:0 chain, " + run.count + " float32, z only (" + mode + ")");
      Pair p = compare(chain_z, loop_z, run.trials, run.target);
      r.params = "chain x**2-0.5, **3-0.2, " + run.count + " float32, new tensors, y dropped, " + mode;
      r.backplane = gbps(2 * run.bytes, p.a);
      r.baseline = gbps(2 * run.bytes, p.b);
      r.spread = p.spread();
      r.baseline_name = baseline;
      r.note = "effective GB/s of x read and z written";
      rep.add(r);

      ctx.progress("fusion: cpu:0 chain, " + run.count + " float32, y and z (" + mode + ")");
      p = compare(chain_yz, loop_yz, run.trials, run.target);
      r.params = "chain x**2-0.5, **3-0.2, " + run.count + " float32, new tensors, y kept, " + mode;
      r.backplane = gbps(3 * run.bytes, p.a);
      r.baseline = gbps(3 * run.bytes, p.b);
      r.spread = p.spread();
      r.note = "effective GB/s of x read, y and z written";
      rep.add(r);
    }

    // The chain in bfloat16: every operator computes in float32 and rounds
    // once (plugin.h), fused or not; the baseline rounds the same way in one
    // plain loop with half.h's conversions.
    ctx.progress("fusion: converting " + run.count + " float32 to bfloat16");
    const bp::Tensor xh = x.astype(bp::bf16);
    const uint16_t *pxh = static_cast<const uint16_t *>(host_address(xh));
    const Work loop_h = [&](int64_t k) {
      const auto round = [](float v) { return bp_f32_from_bf16(bp_bf16_from_f32(v)); };
      for (int64_t i = 0; i < k; ++i) {
        std::unique_ptr<uint16_t[]> z(new uint16_t[size_t(run.n)]);
        uint16_t *pz = z.get();
        parallel(run.threads, run.n, [&](int64_t b, int64_t e) {
          for (int64_t j = b; j < e; ++j) {
            const float v = bp_f32_from_bf16(pxh[j]);
            const float y = round(round(v * v) - 0.5f);
            pz[j] = bp_bf16_from_f32(round(y * y * y) - 0.2f);
          }
        });
      }
    };
    Row h{"fusion", "", "cpu:0", "GB/s"};
    h.baseline_name = "plain C++ loop, one pass, half.h rounding after each operator, into new uint16_t[] (" + run.thr + ")";
    h.note = "effective GB/s of x read and z written";
    for (const bool on : {true, false}) {
      const FusionSetting setting(on);
      const std::string mode = on ? "fusion on" : "fusion off";
      ctx.progress("fusion: cpu:0 chain, " + run.count + " bfloat16, z only (" + mode + ")");
      const Pair p = compare(chain_z_of(xh), loop_h, run.trials, run.target);
      h.params = "chain x**2-0.5, **3-0.2, " + run.count + " bfloat16, new tensors, y dropped, " + mode;
      h.backplane = gbps(2 * run.bytes / 2, p.a);
      h.baseline = gbps(2 * run.bytes / 2, p.b);
      h.spread = p.spread();
      rep.add(h);
    }
  }

  for (const bool on : {true, false}) {
    Row skipped{"fusion", std::string("chain x**2-0.5, **3-0.2, float32, new tensors, fusion ") + (on ? "on" : "off"),
                "opencl:0", "ms"};
    skipped.baseline_name = "hand-written OpenCL kernel, one pass (direct, same device)";
    run_direct(ctx, rep, {"--part", "fusion-opencl", "--fusion", on ? "on" : "off"}, skipped);
  }
}

}  // namespace bptool::bench
