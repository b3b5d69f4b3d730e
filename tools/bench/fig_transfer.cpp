// Figure "transfer", the seed chapter's exercises on data movement:
// host<->device bandwidth per device (bp_from_host / bp_to_host next to
// memcpy for host-memory devices, or the OpenCL calls made directly, by
// bp-bench-direct), and matmuls on two devices at once (one thread each) vs
// one after the other.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "direct.hpp"
#include "transfer.hpp"

namespace bptool::bench {

namespace {

// memcpy baselines, for a device whose memory is host memory.
TransferBaselines host_copies(size_t bytes, const float *src) {
  TransferBaselines b;
  auto scratch = std::make_shared<std::vector<float>>(bytes / sizeof(float), 0.0f);
  b.up = b.down = [scratch, src, bytes](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(scratch->data(), src, bytes);
      asm volatile("" : : "r"(scratch->data()) : "memory");
    }
  };
  b.up_new = [src, bytes](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      void *fresh = std::malloc(bytes);
      if (!fresh) throw std::bad_alloc();
      std::memcpy(fresh, src, bytes);
      asm volatile("" : : "r"(fresh) : "memory");
      std::free(fresh);
    }
  };
  b.name_up = b.name_down = "memcpy into an existing buffer (1 thread)";
  b.name_up_new = "malloc + memcpy + free (1 thread)";
  return b;
}

// One device's bandwidth rows: an OpenCL device's are bp-bench-direct's.
void bandwidth(Context &ctx, Report &rep, const bp::Device &d) {
  if (is_host_device(d)) {
    bandwidth_rows(ctx, rep, d, host_copies);
  } else if (d.name().rfind("opencl:", 0) == 0) {
    Row skipped{"transfer", "host<->device", d.name(), "GB/s"};
    skipped.baseline_name = "clEnqueueWriteBuffer, clEnqueueReadBuffer (direct)";
    run_direct(ctx, rep, {"--part", "transfer", "--device", d.name()}, skipped);
  } else {
    bandwidth_rows(ctx, rep, d, [](size_t, const float *) {
      TransferBaselines none;
      none.why = "no direct baseline for this backend";
      return none;
    });
  }
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
