// Figure "fusion", its OpenCL row: the chain y = x**2 - 0.5; z = y**3 - 0.2
// on opencl:0 with fresh tensors, z waited for, next to one hand-written
// OpenCL kernel computing z in one pass on the same device (the issue asks
// for at least 0.8 of its speed with fusion on). Measured by bp-bench-direct
// (direct.hpp).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "direct.hpp"
#include "opencl_direct.hpp"

namespace bptool::bench {

namespace {

// Backplane's chain; y is dropped before z is waited for, as the baseline
// never writes it (fusion may then keep it in registers).
bp::Tensor chain(const bp::Tensor &x) {
  bp::Tensor z;
  {
    const bp::Tensor y = bp::pow(x, 2.0) - 0.5;
    z = bp::pow(y, 3.0) - 0.2;
  }
  return z;
}

// "" when the baseline computes what Backplane does (pow and the
// hand-written products may differ in the last bits), else where it does not.
std::string mismatch(const std::vector<float> &backplane, const std::vector<float> &baseline) {
  if (backplane.size() != baseline.size())
    return std::to_string(baseline.size()) + " elements, Backplane " + std::to_string(backplane.size());
  for (size_t i = 0; i < backplane.size(); ++i) {
    const double a = backplane[i], b = baseline[i];
    if (!(std::fabs(a - b) <= 1e-5 * std::fmax(1.0, std::fabs(a))))
      return "element " + std::to_string(i) + " is " + format_number(b) + ", Backplane's " + format_number(a);
  }
  return "";
}

}  // namespace

void fusion_opencl_rows(Context &ctx, Report &rep, bool fused) {
  const std::string count = ctx.quick ? "1e7" : "1e8";
  const std::string params = std::string("chain x**2-0.5, **3-0.2, ") + count + " float32, new tensors, fusion " +
                             (fused ? "on" : "off");
  const std::string baseline_name = "hand-written OpenCL kernel, one pass (direct, same device)";
  const auto ocl = devices_with_prefix("opencl");
  if (ocl.empty()) {
    rep.skip("fusion", params, "opencl:0", "ms", baseline_name,
             "no OpenCL device (the opencl backend is not loaded or found no device; see `bp devices`)");
    return;
  }
  const bp::Device d = ocl[0];
  std::string why;
  std::unique_ptr<OpenclDirect> direct = OpenclDirect::open(d, &why);
  if (!direct) {
    rep.skip("fusion", params, d.name(), "ms", baseline_name, "baseline unavailable: " + why);
    return;
  }
  const int64_t n = ctx.quick ? 10000000 : 100000000;
  const int trials = ctx.quick ? 3 : 5;
  const double target = 0.001;  // one chain per timed batch

  ctx.progress("fusion: " + d.name() + " chain, " + count + " float32 (fusion " + (fused ? "on" : "off") + ")");
  const bp::Tensor x = bp::random_uniform({n}, 0, 1, 1, bp::f32, d);
  {
    // Both sides on the same x; the baseline must compute Backplane's z.
    direct->chain_setup(x.to_vector<float>());
    const std::string differs = mismatch(chain(x).to_vector<float>(), direct->chain_result());
    if (!differs.empty()) {
      rep.skip("fusion", params, d.name(), "ms", baseline_name, "the baseline's z differs from Backplane's: " + differs);
      return;
    }
  }
  const Work through_bp = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) chain(x).wait();
  };
  const Work by_hand = [&](int64_t k) { direct->chain(k); };
  const Pair p = compare(through_bp, by_hand, trials, target);
  Row r{"fusion", params, d.name(), "ms"};
  r.higher_is_better = false;
  set_times(r, p, 1e3);
  r.baseline_name = baseline_name;
  r.note = fused ? "fusion on: Backplane may run the chain as one generated kernel"
                 : "fusion off: Backplane runs 4 kernels (pow, sub, pow, sub)";
  rep.add(r);
}

}  // namespace bptool::bench
