// cmd_tour.cpp — `bp tour`: the device chapter of Dive into Deep Learning
// ("GPUs"), run as a narrated program on whatever devices this machine has.
// On a machine without an accelerator everything falls back to the CPU, as
// the chapter's try_gpu() does, and the tour says so. Each step prints its
// call as Python that the backplane package accepts (tests/tools checks the
// ">>>" lines against it), never a raw handle number.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backplane.hpp"
#include "backplane_nn.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "runtime_info.hpp"
#include "tensor_text.hpp"

namespace bptool {

namespace {

void section(int n, const char *title) { std::printf("\n%d. %s\n", n, title); }

void say(const std::string &text) { std::printf("   %s\n", text.c_str()); }

void code(const std::string &text) { std::printf("   >>> %s\n", text.c_str()); }

void show(const std::string &name, const bp::Tensor &t) {
  std::printf("   %s on %s: %s\n", name.c_str(), t.device().name().c_str(),
              tensor_values(t).c_str());
}

void show_error(const bp::Error &e) {
  std::printf("   error %s: %s\n", bp_status_name(e.status()), e.what());
}

// Median seconds of reps timed runs of a square float32 matmul on device.
struct MatmulTiming {
  double seconds = 0;
  double gflops = 0;
};

MatmulTiming time_matmul(bp::Device device, int64_t n, int reps) {
  bp::Tensor a = bp::random_uniform({n, n}, -1, 1, 1, bp::f32, device);
  bp::Tensor b = bp::random_uniform({n, n}, -1, 1, 2, bp::f32, device);
  bp::Tensor c = bp::empty({n, n}, bp::f32, device);
  bp::matmul_out(a, b, c);  // warm-up: kernel builds, thread start
  device.synchronize();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    bp::matmul_out(a, b, c);
    device.synchronize();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  MatmulTiming m;
  m.seconds = times[times.size() / 2];
  m.gflops = 2.0 * double(n) * double(n) * double(n) / m.seconds / 1e9;
  return m;
}

std::string fmt(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

int cmd_tour(int argc, char **argv) {
  Options opts("bp tour",
               "Run the device chapter of Dive into Deep Learning (\"GPUs\") on this machine:\n"
               "devices, num_gpus(), try_gpu(), tensors on devices, the error for inputs on\n"
               "different devices, copies, a network trained on a device, and a CPU vs\n"
               "accelerator matmul speed comparison. Uses whatever devices exist and falls\n"
               "back to the CPU like the chapter's try_gpu().");
  opts.flag("quick", "smaller and fewer timing runs in the last step");
  if (auto rc = opts.parse(argc, argv)) return *rc;
  if (!start_runtime("bp tour")) return kExitFailure;
  const bool quick = opts.has("quick");

  std::printf("Backplane tour: the \"GPUs\" chapter of Dive into Deep Learning, run on this "
              "machine.\nEach step shows the call in Python (`import backplane as bp`, the package "
              "of\nbindings/python) and what Backplane answers.\n");

  // 1 ---------------------------------------------------------------------
  section(1, "Which devices are there?  (nvidia-smi for every backend: `bp devices`)");
  const auto all = bp::devices();
  for (const bp::Device &d : all) {
    const bp_device_info i = d.info();
    std::printf("   %-14s kind %-11s accelerator %-3s  %s  (backend %s)\n", i.name,
                kind_name(i.kind).c_str(), i.is_accelerator ? "yes" : "no", i.model, i.backend);
  }
  say("cpu:0 stands for all of the host's cores and its main memory; an accelerator device");
  say("stands for one card (or one OpenCL device) and its own memory.");
  for (const auto &l : explain_accelerators()) say(l);
  for (const auto &r : plugin_reports(false))
    if (!r.loaded) say("(plugin " + std::string(r.path) + " was not loaded: " + r.reason + ")");

  // 2 ---------------------------------------------------------------------
  section(2, "How many accelerators (the chapter's GPUs)?");
  const int32_t ngpu = bp::num_gpus();
  code("bp.num_gpus()");
  say(std::to_string(ngpu));

  // 3 ---------------------------------------------------------------------
  section(3, "Run even when the requested GPU does not exist: try_gpu() and try_all_gpus()");
  const bp::Device g0 = bp::try_gpu(0), g1 = bp::try_gpu(1), g10 = bp::try_gpu(10);
  const auto gpus = bp::try_all_gpus();
  code("bp.try_gpu(), bp.try_gpu(10), bp.try_all_gpus()");
  say(g0.name() + ", " + g10.name() + ", " + device_list(gpus));
  if (ngpu > 0)
    say("try_gpu() is gpu(0) = " + g0.name() + ", the first accelerator in fallback order " +
        config_value("devices.fallback") + ".");
  else
    say("try_gpu() is cpu:0 because there is no accelerator.");
  say("try_gpu(10) is cpu:0 because there " + std::string(ngpu == 1 ? "is" : "are") + " only " +
      std::to_string(ngpu) + " accelerator" + (ngpu == 1 ? "" : "s") +
      "; try_all_gpus() lists every accelerator" +
      (gpus.empty() ? " (none here, so the list is empty)." : "."));
  say("try_gpu(1), used below for the \"second GPU\", is " + g1.name() + ".");

  // 4 ---------------------------------------------------------------------
  section(4, "Tensors live on a device");
  code("X = bp.ones((2, 3), device=bp.try_gpu())");
  bp::Tensor X = bp::ones({2, 3}, bp::f32, g0);
  show("X", X);
  code("Y = bp.random.uniform(size=(2, 3), device=bp.try_gpu(1))");
  bp::Tensor Y = bp::random_uniform({2, 3}, 0, 1, 42, bp::f32, g1);
  show("Y", Y);
  code("X.astype(bp.bfloat16) * 0.1");
  show("X.astype(bp.bfloat16) * 0.1", X.astype(bp::bf16) * 0.1);
  say("bfloat16 and float16 take half the bytes; they compute in float32 and round once, so every "
      "backend gives the same bits.");
  say("A tensor only uses the memory of its own device (`bp devices` shows the bytes in use).");

  // 5 ---------------------------------------------------------------------
  section(5, "X + Y: inputs on different devices are an error, never a silent copy");
  code("X + Y");
  if (X.device() != Y.device()) {
    try {
      bp::Tensor S = X + Y;
      say("unexpected: the add ran on " + S.device().name());
    } catch (const bp::DeviceMismatchError &e) {
      show_error(e);
      say("X is on " + X.device().name() + " and Y on " + Y.device().name() +
          ": Backplane will not guess where to compute,");
      say("and it never moves data behind your back (a copy costs more than the add).");
      say("Move one of them explicitly (step 6).");
    }
  } else {
    bp::Tensor S = X + Y;
    say("X and Y are both on " + X.device().name() + " (there are fewer than two "
        "accelerators, so try_gpu() and try_gpu(1) are the same device), and the add works:");
    show("X + Y", S);
    // Show the error anyway, with a second device if there is one.
    bp::Device other;
    bool found = false;
    // Another device for Y2: a real backend first, else the reference one.
    for (const bp::Device &d : all)
      if (!found && d != X.device() && d.name().rfind("reference", 0) != 0) other = d, found = true;
    for (const bp::Device &d : all)
      if (!found && d != X.device()) other = d, found = true;
    if (!found) {
      say("This machine has a single device, so two inputs can never be on different devices:");
      say("the mismatch error cannot be shown here.");
    } else {
      say("To see the error the chapter warns about, put a copy of Y on " + other.name() + ":");
      if (other.name().rfind("reference", 0) == 0)
        say("the plain-C reference backend, the only other device here: it uses the same host "
            "memory as cpu:0, but it is a different device.");
      code("Y2 = Y.copyto(bp.device(\"" + other.name() + "\")); X + Y2");
      bp::Tensor Y2 = Y.copy_to(other);
      try {
        bp::Tensor S2 = X + Y2;
        say("unexpected: the add ran on " + S2.device().name());
      } catch (const bp::DeviceMismatchError &e) {
        show_error(e);
        if (other.info().kind == BP_DEVICE_CPU)
          say("Even when both devices use the host's memory, Backplane does not pick one for you:");
        else
          say("Backplane does not pick a device for you:");
        say("the operator would run on one backend and the other's data would have to be copied.");
      }
    }
  }

  // 6 ---------------------------------------------------------------------
  section(6, "Copying: Z = X.copyto(bp.try_gpu(1)), then Y + Z");
  code("Z = X.copyto(bp.try_gpu(1))");
  bp::Tensor Z = X.copy_to(g1);
  show("X", X);
  show("Z", Z);
  code("Y + Z");
  bp::Tensor YZ = Y + Z;
  show("Y + Z", YZ);
  say("Y and Z are both on " + g1.name() + ", so the add runs there and the result stays there.");

  // 7 ---------------------------------------------------------------------
  section(7, "to() returns the same tensor when it is already there; copyto() always copies");
  code("Z.to(bp.try_gpu(1)) is Z");
  bp::Tensor Zt = Z.to(g1);
  say(std::string(Zt.is(Z) ? "True" : "False") +
      "   (the same tensor: no copy, no new memory; MXNet as_in_ctx, PyTorch .to)");
  code("Z.copyto(bp.try_gpu(1)) is Z");
  bp::Tensor Zc = Z.copy_to(g1);
  say(std::string(Zc.is(Z) ? "True" : "False") + "   (a new tensor and new memory on " + Zc.device().name() +
      ", MXNet copyto)");

  // 8 ---------------------------------------------------------------------
  section(8, "Neural networks and devices: a network's parameters on try_gpu(), trained there");
  say("The chapter's one-layer network, its parameters put on the device:");
  code("from backplane import nn, optim");
  code("net = nn.Sequential(nn.Linear(3, 1)).to(device=bp.try_gpu())");
  bp::nn::Sequential net;
  net.add(std::make_shared<bp::nn::Linear>(3, 1, g0, 7));
  code("net(X)");
  bp_trace_clear();
  bp_trace_enable(1);
  bp::Tensor out = net(X);
  out.wait();
  bp_trace_enable(0);
  show("net(X)", out);
  say("The routing trace shows where each operator ran:");
  for (int32_t i = 0; i < bp_trace_count(); ++i) {
    char line[512];
    if (bp_trace_line(i, line, sizeof line) == BP_OK) std::printf("     %s\n", line);
  }
  bp_trace_clear();
  code("net[0].weight.device");
  auto &layer = static_cast<bp::nn::Linear &>(net[0]);
  say(layer.weight.device().name() + "   (the input, the weights and the result share one device)");
  say("The MXNet edition's spelling builds the same network:");
  code("gluon_net = nn.Sequential(); gluon_net.add(nn.Dense(1)); gluon_net.initialize(ctx=bp.try_gpu())");
  code("gluon_net(X); gluon_net[0].weight.data().ctx");
  bp::nn::Sequential gluon_net;
  gluon_net.add(std::make_shared<bp::nn::Linear>(3, 1, g0, 9));
  say(gluon_net(X).device().name() + "   (Dense(1) learns its input size, 3, from X on the first call)");

  say("Training runs there too: the backward pass is made of the same routed operators.");
  say("A linear regression on synthetic data, y = X w + 4.2 with w = (2, -3.4, 1.7):");
  code("features = bp.random.normal(0, 1, size=(256, 3), device=bp.try_gpu())");
  const bp::Tensor features = bp::random_normal({256, 3}, 0, 1, 11, bp::f32, g0);
  code("labels = features @ bp.tensor([[2.0], [-3.4], [1.7]], device=bp.try_gpu()) + 4.2");
  const bp::Tensor labels = bp::matmul(features, bp::from_vector<float>({2.0f, -3.4f, 1.7f}, {3, 1}, g0)) + 4.2;
  code("opt = optim.SGD(net.parameters(), lr=0.1); loss_fn = nn.MSELoss()");
  bp::nn::SGD opt(net.parameters(), 0.1);
  code("for step in range(30): loss = loss_fn(net(features), labels); opt.zero_grad(); loss.backward(); opt.step()");
  for (int step = 0; step < 30; ++step) {
    const bp::Tensor loss = bp::nn::mse_loss(net(features), labels);
    opt.zero_grad();
    loss.backward();
    opt.step();
    if (step % 10 == 0 || step == 29) say("step " + std::to_string(step) + fmt("  loss %.5f", loss.item<float>()));
  }
  code("net[0].weight.grad.device");
  say(layer.weight.grad().device().name() + "   (every gradient lives on its parameter's device)");
  show("net[0].weight", layer.weight);
  show("net[0].bias", layer.bias);

  // 9 ---------------------------------------------------------------------
  const int64_t n = quick ? 256 : 512;
  const int reps = quick ? 3 : 5;
  section(9, "Exercise 1: a large matmul on the CPU and on each accelerator");
  say("float32 " + std::to_string(n) + "x" + std::to_string(n) + " @ " + std::to_string(n) +
      "x" + std::to_string(n) + ", median of " + std::to_string(reps) +
      " runs after a warm-up (threads: " + property(bp::cpu(), "threads") + ", OpenBLAS core " +
      property(bp::cpu(), "openblas_core") + ", load " + load_average() + "):");
  const MatmulTiming cpu = time_matmul(bp::cpu(), n, reps);
  say("cpu:0          " + fmt("%8.2f ms", cpu.seconds * 1e3) + fmt("  %7.1f GFLOPS", cpu.gflops));
  if (gpus.empty()) {
    say("No accelerator here, so there is nothing to compare the CPU with.");
  } else {
    for (const bp::Device &d : gpus) {
      std::string name = d.name();
      name.resize(std::max<size_t>(name.size(), 14), ' ');
      try {
        const MatmulTiming g = time_matmul(d, n, reps);
        say(name + " " + fmt("%8.2f ms", g.seconds * 1e3) + fmt("  %7.1f GFLOPS", g.gflops) +
            fmt("  (%.2fx the CPU)", g.gflops / cpu.gflops));
      } catch (const bp::Error &e) {
        say(name + " matmul failed: " + e.what());
      }
    }
    say("Small tasks are another story: a 16x16 matmul is dominated by launch and queue costs.");
    const MatmulTiming small_cpu = time_matmul(bp::cpu(), 16, 20);
    say("cpu:0          " + fmt("%8.1f us per 16x16 matmul", small_cpu.seconds * 1e6));
    for (const bp::Device &d : gpus) {
      std::string name = d.name();
      name.resize(std::max<size_t>(name.size(), 14), ' ');
      try {
        const MatmulTiming s = time_matmul(d, 16, 20);
        say(name + " " + fmt("%8.1f us per 16x16 matmul", s.seconds * 1e6));
      } catch (const bp::Error &e) {
        say(name + " matmul failed: " + e.what());
      }
    }
  }
  say("(These timings are printed, never checked; `bp bench` measures more carefully.)");

  std::printf("\nSummary: tensors and operators live on devices; all inputs of an operator must "
              "be on one\ndevice; moving data is explicit (copyto() always copies, to() only when "
              "needed); and\ntry_gpu() lets the same program run with or without an accelerator.\n");
  return kExitOk;
}

}  // namespace bptool
