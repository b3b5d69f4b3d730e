// Figure "overhead": what routing one operator through the C API costs.
// A 1-element float32 add into a preallocated output (bp_binary_out) and the
// allocating form (bp_binary, then release), next to the same arithmetic in
// a plain C++ loop called through a function pointer; on cpu:0 also next to
// libtorch's at::add_out, measured by bp-bench-torch (torch_baseline.hpp).
#include <dlfcn.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "backplane/plugin.h"
#include "bench.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

namespace {

void add_f32(const float *a, const float *b, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// volatile: the call cannot be inlined or hoisted out of the loop.
void (*volatile g_add)(const float *, const float *, float *, int64_t) = add_f32;

// The backend's own C entry called directly: cpu-openblas's execute()
// through its table's function pointer, with bp_plugin_tensor descriptors
// and no BP_ATTRS_VALIDATED, so the plugin checks every argument itself
// (plugin.h's rules). What bp_binary_out adds on top of this is the routing.
class DirectExecute {
 public:
  // Null (and *why set) when the plugin's table cannot be reached.
  static std::unique_ptr<DirectExecute> open(const bp::Device &cpu, std::string *why) {
    bp_device_info info{};
    info.struct_size = sizeof info;
    bp::check(bp_device_info_get(cpu.id(), &info));
    void *handle = dlopen(info.plugin_path, RTLD_NOW | RTLD_NOLOAD);
    auto *get = handle ? reinterpret_cast<bp_plugin_get_api_fn>(dlsym(handle, BP_PLUGIN_ENTRY_SYMBOL)) : nullptr;
    const bp_plugin_api *api = get ? get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) : nullptr;
    if (!api) {
      *why = std::string("cannot reach the table of ") + info.plugin_path;
      if (handle) dlclose(handle);
      return nullptr;
    }
    return std::unique_ptr<DirectExecute>(new DirectExecute(handle, api, info.index));
  }
  ~DirectExecute() {
    for (bp_buffer b : buffers_) api_->free(b);
    dlclose(handle_);
  }
  DirectExecute(const DirectExecute &) = delete;
  DirectExecute &operator=(const DirectExecute &) = delete;

  // One add of one float32 element; false when the plugin refused it.
  bool add() const { return api_->execute(device_, BP_OP_ADD, &attrs_, in_, 2, &out_) == BP_OK; }

 private:
  DirectExecute(void *handle, const bp_plugin_api *api, int32_t device) : handle_(handle), api_(api), device_(device) {
    attrs_ = bp_op_attrs{};
    attrs_.struct_size = sizeof attrs_;
    bp_plugin_tensor *views[3] = {&in_[0], &in_[1], &out_};
    for (int i = 0; i < 3; ++i) {
      const float one = 1.0f;
      bp_buffer b = nullptr;
      if (api_->alloc(device_, sizeof(float), &b) != BP_OK || api_->write(b, 0, &one, sizeof one) != BP_OK)
        throw std::runtime_error("the plugin could not allocate a 4-byte buffer");
      buffers_.push_back(b);
      *views[i] = bp_plugin_tensor{};
      views[i]->buffer = b;
      views[i]->dtype = BP_FLOAT32;
      views[i]->rank = 1;
      views[i]->shape[0] = 1;
      views[i]->strides[0] = 1;
    }
  }

  void *handle_;
  const bp_plugin_api *api_;
  int32_t device_;
  bp_op_attrs attrs_;
  bp_plugin_tensor in_[2], out_;
  std::vector<bp_buffer> buffers_;
};

}  // namespace

void figure_overhead(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 7 : 21;
  const double target = ctx.quick ? 0.005 : 0.03;
  const std::string plain = "plain C++ loop via function pointer";
  float ha[1] = {1.0f}, hb[1] = {2.0f}, ho[1] = {0.0f};
  const Work loop = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) g_add(ha, hb, ho, 1);
  };
  const std::string direct_name = "cpu-openblas execute() called directly (descriptors, its own checks)";
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
    if (dev == "cpu:0") {
      cpu_ns = r.backplane;
      std::string why;
      const std::unique_ptr<DirectExecute> direct = DirectExecute::open(d, &why);
      if (!direct) {
        rep.skip("overhead", "add_out float32[1] into preallocated output", dev, "ns/op", direct_name, why);
      } else {
        const Work call_direct = [&](int64_t k) {
          for (int64_t i = 0; i < k; ++i)
            if (!direct->add()) throw std::runtime_error("cpu-openblas refused a valid add");
        };
        const Pair pd = compare(add_out, call_direct, trials, target);
        Row c{"overhead", "add_out float32[1] into preallocated output", dev, "ns/op"};
        set_times(c, pd, 1e9);
        c.baseline_name = direct_name;
        c.note = "the issue's bar: at most 2x this (ratio >= 0.5)";
        rep.add(c);
      }
    }

    ctx.progress("overhead: bp_binary (allocating) on " + dev);
    const Work add_alloc = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) add_into_new(ta, tb, false);
      bp::check(bp_synchronize(id));
    };
    const Pair q = compare(add_alloc, loop, trials, target);
    r.params = "add float32[1], new output then release";
    set_times(r, q, 1e9);
    if (dev == "cpu:0") r.note += "; the issue's bar: at most 150 ns";
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
