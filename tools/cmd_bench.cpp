// cmd_bench.cpp — `bp bench`: each Backplane figure measured side by side
// with its baseline in the same run. Prints only; never asserts a timing.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench/bench.hpp"
#include "bench/progress.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "runtime_info.hpp"

namespace bptool {

namespace {

using bench::Figure;

const Figure kFigures[] = {
    {"overhead", "routing overhead of a 1-element add through the C API vs a plain function call",
     bench::figure_overhead},
    {"gemm", "GEMM through bp_matmul_out vs OpenBLAS / CLBlast called directly",
     bench::figure_gemm},
    {"elementwise", "large elementwise ops vs memcpy and a plain threaded loop",
     bench::figure_elementwise},
    {"fusion", "the chain x**2-0.5, **3-0.2 fused and not vs one hand-written loop / OpenCL kernel",
     bench::figure_fusion},
    {"normlog", "seed exercise: 1000 matmuls, norms read one at a time vs logged on the device",
     bench::figure_normlog},
    {"transfer", "seed exercise: host<->device bandwidth, and matmuls on two devices at once",
     bench::figure_transfer},
    {"startup", "process start with a third-party plugin: probed, verdict cached, probe off",
     bench::figure_startup},
    {"training", "one MLP training step (autograd, SGD) vs libtorch, and the cost of recording",
     bench::figure_training},
    {"gpt", "one training step of a small GPT (2 layers, d_model 64, seq 64; AdamW) vs libtorch",
     bench::figure_gpt},
    {"resnet", "one training step of the digits ResNet (batch 64 of 8x8, batch norm; AdamW) vs libtorch",
     bench::figure_resnet},
    {"allreduce", "bp_dist_all_reduce across 2 MPI ranks (4-256 MB) vs MPI_Allreduce called directly",
     bench::figure_allreduce},
    {"dtypes", "float16/bfloat16 on cpu:0: add vs float32, GEMM vs cblas_sgemm, conversions vs memcpy; "
               "opencl:0: conversions vs clEnqueueCopyBuffer, add vs float32",
     bench::figure_dtypes},
    {"softmax", "softmax and log_softmax (8192, 1024) on cpu:0 vs memcpy of the same bytes and libtorch",
     bench::figure_softmax},
    {"topk", "top-k (k=8) and stable sort of float32 rows vs libtorch's topk_out and sort_out",
     bench::figure_topk},
    {"layer_norm", "layer norm over (8192, 1024) float32 on cpu:0 vs memcpy of its bytes and libtorch",
     bench::figure_layer_norm},
    {"attention", "causal attention [8, 12, 512, 64] f32 on cpu:0: fused entry, composite, libtorch",
     bench::figure_attention},
    {"conv", "ResNet-18 convolutions (forward, backward data, weight) vs libtorch, oneDNN, im2col+CLBlast",
     bench::figure_conv},
    {"pool", "pooling at ResNet-18's shapes on cpu:0, forward and with backward, vs libtorch",
     bench::figure_pool},
};

std::string figure_list() {
  std::string s;
  for (const Figure &f : kFigures) s += std::string("  ") + f.name + std::string(13 - std::string(f.name).size(), ' ') + f.summary + "\n";
  return s;
}

}  // namespace

int cmd_bench(int argc, char **argv) {
  Options opts("bp bench",
               "Measure Backplane next to its baseline (the same work done by a direct library\n"
               "call or a plain loop), in the same run, and print both with their ratio\n"
               "(Backplane's speed over the baseline's: above 1 Backplane is faster, below 1\n"
               "slower). Progress goes to standard error.");
  opts.flag("json", "one JSON object per line on stdout (progress stays on stderr)");
  opts.flag("quick", "every figure at reduced size (well under a minute in all)");
  opts.value("figure", "NAME", "run only this figure");
  opts.value("size", "N", "the dtypes figure at N elements (add, conversions; GEMM n^2 <= N)");
  opts.epilog("figures:\n" + figure_list() +
              "\nEvery figure prints the OpenBLAS core and thread count (cpu:0's properties)\n"
              "and the machine load: close other work for stable numbers. Timings are\n"
              "printed, never checked.");
  if (auto rc = opts.parse(argc, argv)) return *rc;

  const std::string only = opts.get("figure");
  if (opts.has("figure")) {
    bool known = false;
    for (const Figure &f : kFigures) known = known || only == f.name;
    if (!known) {
      std::string names;
      for (const Figure &f : kFigures) names += std::string(names.empty() ? "" : ", ") + f.name;
      return opts.usage_error("unknown figure '" + only + "' (figures: " + names + ")");
    }
  }
  int64_t size = 0;
  if (opts.has("size")) {
    char *end = nullptr;
    const std::string text = opts.get("size");
    size = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || size < 1)
      return opts.usage_error("--size wants a positive number of elements, not '" + text + "'");
  }
  if (!start_runtime("bp bench")) return kExitFailure;

  bench::Context ctx;
  ctx.quick = opts.has("quick");
  ctx.size = size;
  bench::read_cpu_properties(ctx);
  bench::Report report(ctx, opts.has("json") ? bench::Output::json : bench::Output::table);
  if (!opts.has("json")) std::printf("bp bench%s: %s\n", ctx.quick ? " --quick" : "", bench::kRatioReads);
  const double t0 = bench::now_seconds();
  int rc = kExitOk;
  // For the whole run: no step stays silent for more than a second.
  const bench::progress::Session progress;
  for (const Figure &f : kFigures) {
    if (!only.empty() && only != f.name) continue;
    ctx.load = load_average();
    report.begin_figure(f.name, f.summary);
    ctx.progress(std::string(f.name) + ": starting");
    try {
      f.run(ctx, report);
    } catch (const std::exception &e) {
      // One broken figure does not hide the others; the exit status says so.
      ctx.progress_done();
      std::fprintf(stderr, "bp bench: figure %s failed: %s\n", f.name, e.what());
      bench::Row r;
      r.figure = f.name;
      r.params = "(figure stopped)";
      r.note = std::string("failed: ") + e.what();
      report.add(r);
      rc = kExitFailure;
    }
    report.end_figure();
  }
  bench::progress::clear();
  if (!opts.has("json"))
    std::printf("\n%zu rows in %.1f s\n", report.rows_printed(), bench::now_seconds() - t0);
  return rc;
}

}  // namespace bptool
