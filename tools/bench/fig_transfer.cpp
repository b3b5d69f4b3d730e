// Figure "transfer", the seed chapter's exercises on data movement:
// host<->device bandwidth per device (bp_from_host / bp_to_host next to
// memcpy for host-memory devices, or the OpenCL calls made directly), and
// matmuls on two devices at once (one thread each) vs one after the other.
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "bench.hpp"
#include "opencl_direct.hpp"

namespace bptool::bench {

namespace {

void bandwidth(Context &ctx, Report &rep, const bp::Device &d) {
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
  std::unique_ptr<OpenclDirect> direct;
  std::string why;
  // Baselines: copy into an existing buffer (next to bp_from_host_into), and
  // allocate a new buffer and copy (next to bp_from_host, a new tensor).
  Work base_up, base_up_new, base_down;
  std::string name_up, name_up_new, name_down;
  std::vector<float> scratch;
  if (is_host_device(d)) {
    scratch.assign(size_t(n), 0.0f);
    base_up = base_down = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) {
        std::memcpy(scratch.data(), src.data(), bytes);
        asm volatile("" : : "r"(scratch.data()) : "memory");
      }
    };
    base_up_new = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) {
        void *fresh = std::malloc(bytes);
        if (!fresh) throw std::bad_alloc();
        std::memcpy(fresh, src.data(), bytes);
        asm volatile("" : : "r"(fresh) : "memory");
        std::free(fresh);
      }
    };
    name_up = name_down = "memcpy into an existing buffer (1 thread)";
    name_up_new = "malloc + memcpy + free (1 thread)";
  } else if (d.name().rfind("opencl:", 0) == 0 && (direct = OpenclDirect::open(d, &why))) {
    direct->transfer_setup(bytes);
    base_up = [&](int64_t k) { direct->write(k); };
    base_up_new = [&](int64_t k) { direct->write_new(k); };
    base_down = [&](int64_t k) { direct->read(k); };
    name_up = "clEnqueueWriteBuffer into an existing buffer (direct)";
    name_up_new = "clCreateBuffer + clEnqueueWriteBuffer + release (direct)";
    name_down = "clEnqueueReadBuffer (direct, blocking)";
  } else if (why.empty()) {
    why = "no direct baseline for this backend";
  }

  if (base_up) {
    r.params = "host->device " + size + " (bp_from_host_into an existing tensor)";
    Pair p = compare(upload_into, base_up, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = name_up;
    rep.add(r);
    r.params = "host->device " + size + " (bp_from_host, new tensor)";
    p = compare(upload, base_up_new, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = name_up_new;
    r.note = "like for like: both allocate";
    rep.add(r);
    r.note.clear();
  } else {
    r.params = "host->device " + size + " (bp_from_host_into an existing tensor)";
    r.backplane = gbps(double(bytes), measure(upload_into, trials, target_s));
    r.note = "baseline skipped: " + why;
    rep.add(r);
  }
  r.params = "device->host " + size + " (bp_to_host)";
  if (base_down) {
    const Pair p = compare(download, base_down, trials, target_s);
    r.backplane = gbps(double(bytes), p.a);
    r.baseline = gbps(double(bytes), p.b);
    r.spread = p.spread();
    r.baseline_name = name_down;
  } else {
    r.backplane = gbps(double(bytes), measure(download, trials, target_s));
  }
  rep.add(r);
}

// Two devices of one backend (accelerators first), or none.
std::vector<bp::Device> device_pair(std::string *why) {
  auto gpus = bp::try_all_gpus();
  if (gpus.size() >= 2) return {gpus[0], gpus[1]};
  const auto all = bp::devices();
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) {
      const std::string a = all[i].name(), b = all[j].name();
      if (a.substr(0, a.find(':')) == b.substr(0, b.find(':'))) return {all[i], all[j]};
    }
  std::string names;
  for (const auto &d : all) names += (names.empty() ? "" : ", ") + d.name();
  *why = "needs two devices of one backend (two accelerators, or e.g. opencl:0 and opencl:1); "
         "found " + names;
  return {};
}

void two_devices(Context &ctx, Report &rep) {
  std::string why;
  const auto pair = device_pair(&why);
  const int64_t n = ctx.quick ? 256 : 512;
  const int64_t per_device = ctx.quick ? 4 : 10;
  const std::string params = std::to_string(per_device) + " matmuls " + std::to_string(n) + "x" +
                             std::to_string(n) + " f32 per device";
  if (pair.empty()) {
    rep.skip("transfer", "two devices: " + params, "-", "ms", "one device after the other", why);
    return;
  }
  const std::string devs = pair[0].name() + "+" + pair[1].name();
  ctx.progress("transfer: matmuls on " + devs + " at once and one after the other");
  struct Operands {
    bp::Tensor a, b, c;
  };
  std::vector<Operands> ops;
  for (const bp::Device &d : pair)
    ops.push_back({bp::random_uniform({n, n}, -1, 1, 1, bp::f32, d),
                   bp::random_uniform({n, n}, -1, 1, 2, bp::f32, d), bp::empty({n, n}, bp::f32, d)});
  auto run_on = [&](size_t which) {
    for (int64_t i = 0; i < per_device; ++i)
      bp::check(bp_matmul_out(ops[which].a.handle(), ops[which].b.handle(), 0, 0,
                              ops[which].c.handle()));
    pair[which].synchronize();
  };
  const Work together = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      std::thread other([&] { run_on(1); });
      run_on(0);
      other.join();
    }
  };
  const Work sequential = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      run_on(0);
      run_on(1);
    }
  };
  const Pair p = compare(together, sequential, 3, 0.001);
  Row r{"transfer", "two devices: " + params, devs, "ms"};
  set_times(r, p, 1e3);
  r.baseline_name = "one device after the other";
  r.note = "backplane = two threads, one per device; ratio = speed-up";
  if (!bp::Device(pair[0]).info().is_accelerator || pair[0].info().kind == BP_DEVICE_CPU)
    r.note += "; both devices share the host's cores";
  rep.add(r);
}

}  // namespace

void figure_transfer(Context &ctx, Report &rep) {
  for (const bp::Device &d : bp::devices()) bandwidth(ctx, rep, d);
  two_devices(ctx, rep);
}

}  // namespace bptool::bench
