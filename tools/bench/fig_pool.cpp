// Figure "pool": pooling on cpu:0 at ResNet-18's shapes (pool_shape.hpp),
// the forward (max pooling with its indices, as in training) and the
// forward with backward, next to libtorch's (bp-bench-torch) with the cpu
// plugin's thread count; the forward on every other device except the
// reference, next to cpu:0.
#include <algorithm>
#include <cstdlib>

#include "backplane_spatial.hpp"
#include "bench.hpp"
#include "pool_shape.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

std::string params_of(const PoolLayer &l, int64_t batch, bool train) {
  return std::string(l.name) + " " + std::to_string(l.kernel) + "x" + std::to_string(l.kernel) + "/" +
         std::to_string(l.stride) + " pad " + std::to_string(l.padding) + " [" + std::to_string(batch) + ", " +
         std::to_string(l.channels) + ", " + std::to_string(l.size) + ", " + std::to_string(l.size) + "] float32" +
         (train ? ", forward + backward" : ", forward");
}

// k forward passes (train: each with its backward from a fixed dy), then a
// synchronize of the device.
Work pool_work(const PoolLayer &l, const bp::Tensor &x, const bp::Tensor &dy, bool train, bp_device device) {
  const bp::PoolOptions o = bp::pool_options({l.kernel, l.kernel}, {l.stride, l.stride}, {l.padding, l.padding})
                                .include_pad(true);
  return [o, &l, &x, &dy, train, device](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      bp::Tensor indices;
      const bp::Tensor y = l.max ? bp::max_pool(x, o, &indices) : bp::avg_pool(x, o);
      if (train) bp::check(bp_backward(y.handle(), dy.handle(), 0));
      else bp::check(bp_tensor_wait(y.handle()));
    }
    bp::check(bp_synchronize(device));
  };
}

}  // namespace

void figure_pool(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.05 : 0.5;
  const int64_t batch = ctx.quick ? kPoolQuickBatch : kPoolBatch;
  const int threads = cpu_thread_count(ctx);
  for (const PoolLayer &l : kPoolLayers)
    for (bool train : {false, true}) {
      const std::string params = params_of(l, batch, train);
      double cpu_ms = kNaN;
      for (const bp::Device &d : bp::devices()) {
        const std::string dev = d.name();
        if (dev.rfind("reference:", 0) == 0) continue;  // the oracle, naive on purpose
        if (dev != "cpu:0" && train) continue;
        ctx.progress("pool: " + params + " on " + dev);
        try {
          bp::Tensor x = bp::random_uniform({batch, l.channels, l.size, l.size}, -1, 1, 1, bp::f32, d);
          if (train) x.requires_grad_();
          const int64_t out = (l.size + 2 * l.padding - l.kernel) / l.stride + 1;
          const bp::Tensor dy = bp::random_uniform({batch, l.channels, out, out}, -1, 1, 2, bp::f32, d);
          Row r{"pool", params, dev, "ms"};
          r.higher_is_better = false;
          r.backplane = measure(pool_work(l, x, dy, train, d.id()), trials, target) * 1e3;
          if (dev == "cpu:0") {
            cpu_ms = r.backplane;
            const std::string what = std::string(l.name) + (train ? "_train" : "");
            ctx.progress("pool: libtorch's " + what + " (bp-bench-torch)");
            const TorchBaseline torch =
                run_torch_baseline(what, trials, target, threads, {"--n", std::to_string(batch)});
            r.baseline = torch.ns_per_op / 1e6;
            r.baseline_name = "libtorch, same threads";
            r.note = torch.why_not.empty() ? "libtorch " + torch.version + ", " + std::to_string(threads) + " threads"
                                           : "baseline skipped: " + torch.why_not;
          } else {
            r.baseline = cpu_ms;
            r.baseline_name = "cpu:0 (the same pooling)";
          }
          rep.add(r);
        } catch (const bp::Error &e) {
          rep.skip("pool", params, dev, "ms", "libtorch", std::string("failed: ") + e.what());
        }
      }
    }
}

}  // namespace bptool::bench
