#include <vector>

#include "transfer.hpp"

namespace bptool::bench {

void bandwidth_rows(Context &ctx, Report &rep, const bp::Device &d, const TransferBaselineMaker &make) {
  const std::string dev = d.name();
  const size_t bytes = size_t(ctx.quick ? 8 : 64) << 20;
  const int64_t n = int64_t(bytes / sizeof(float));
  const int trials = ctx.quick ? 3 : 7;
  const double target_s = ctx.quick ? 0.02 : 0.1;
  const std::string size = std::to_string(bytes >> 20) + " MiB";
  ctx.progress("transfer: " + size + " to and from " + dev);

  std::vector<float> src(size_t(n), 1.5f), dst(size_t(n), 0.0f);
  const bp_device id = d.id();
  bp::Tensor target = bp::empty({n}, bp::f32, d);
  const Work upload_into = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) bp::check(bp_from_host_into(target.handle(), src.data(), bytes));
    target.wait();
  };
  const Work upload = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      bp_tensor t = BP_NO_TENSOR;
      bp::check(bp_from_host(id, BP_FLOAT32, 1, &n, src.data(), &t));
      const bp_status s = bp_tensor_wait(t);
      bp_tensor_release(t);
      bp::check(s);
    }
  };
  bp::Tensor resident = bp::full({n}, 2.0, bp::f32, d);
  const Work download = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      bp::check(bp_to_host(resident.handle(), dst.data(), bytes));
  };

  Row r;
  r.figure = "transfer";
  r.device = dev;
  r.unit = "GB/s";
  const TransferBaselines base = make(bytes, src.data());

  if (base.up) {
    r.params = "host->device " + size + " (bp_from_host_into an existing tensor)";
    Pair p = compare(upload_into, base.up, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = base.name_up;
    rep.add(r);
    r.params = "host->device " + size + " (bp_from_host, new tensor)";
    p = compare(upload, base.up_new, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = base.name_up_new;
    r.note = "like for like: both allocate";
    rep.add(r);
    r.note.clear();
  } else {
    r.params = "host->device " + size + " (bp_from_host_into an existing tensor)";
    r.backplane = gbps(double(bytes), measure(upload_into, trials, target_s));
    r.note = "baseline skipped: " + base.why;
    rep.add(r);
  }
  r.params = "device->host " + size + " (bp_to_host)";
  if (base.down) {
    const Pair p = compare(download, base.down, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = base.name_down;
  } else {
    r.backplane = gbps(double(bytes), measure(download, trials, target_s));
  }
  rep.add(r);
}

}  // namespace bptool::bench
