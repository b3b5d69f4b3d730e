// bp-bench-direct — the baselines of `bp bench` that call OpenBLAS, OpenCL
// or CLBlast directly, in a program of its own so that bp links none of
// them (direct.hpp says how bp runs it). Each part measures Backplane and
// its baseline side by side in this one process, exactly as bp once did,
// and prints its rows as JSON lines (Output::relay) for bp to add to its
// report; its progress goes to standard error as bp's own would.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "commands.hpp"
#include "direct.hpp"
#include "dtypes.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "runtime_info.hpp"

namespace {

using namespace bptool;
using namespace bptool::bench;

// The part named by --part, its options already checked; false with *why
// when an option names nothing that is here.
bool run_part(const Options &opts, Context &ctx, Report &rep, std::string *why) {
  const std::string part = opts.get("part");
  if (part == "gemm") {
    direct_gemm(ctx, rep);
  } else if (part == "conv") {
    direct_conv(ctx, rep);
  } else if (part == "dtypes-gemm") {
    dtypes::Setup s;
    if (!dtypes::make_setup(ctx, &s, why)) return false;
    dtypes::gemm_rows(ctx, rep, s);
  } else if (part == "dtypes-opencl") {
    dtypes::Setup s;
    if (!dtypes::make_setup(ctx, &s, why)) return false;
    dtypes::opencl_rows(ctx, rep, s);
  } else if (part == "transfer") {
    const std::string name = opts.get("device");
    for (const bp::Device &d : bp::devices())
      if (d.name() == name) {
        direct_transfer(ctx, rep, d);
        return true;
      }
    *why = "no device " + name;
    return false;
  } else {
    const bool fused = opts.get("fusion") == "on";
    bp::check(bp_fusion_enable(fused));
    fusion_opencl_rows(ctx, rep, fused);
  }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  Options opts("bp-bench-direct", "The rows of a bp bench part whose baseline calls OpenBLAS, OpenCL or CLBlast.");
  opts.value("part", "NAME", "gemm, dtypes-gemm, dtypes-opencl, transfer, fusion-opencl or conv");
  opts.flag("quick", "at reduced size, as bp bench --quick");
  opts.value("size", "N", "the dtypes figure's element count, as bp bench --size");
  opts.value("device", "NAME", "transfer: the OpenCL device (opencl:I)");
  opts.value("fusion", "on|off", "fusion-opencl: Backplane's fusion on or off", "on");
  if (auto rc = opts.parse(argc, argv)) return *rc;
  const std::string part = opts.get("part");
  if (part != "gemm" && part != "dtypes-gemm" && part != "dtypes-opencl" && part != "transfer" &&
      part != "fusion-opencl" && part != "conv")
    return opts.usage_error("unknown part '" + part +
                            "' (gemm, dtypes-gemm, dtypes-opencl, transfer, fusion-opencl, conv)");
  if (part == "transfer" && !opts.has("device")) return opts.usage_error("--part transfer needs --device");
  const std::string fusion = opts.get("fusion");
  if (fusion != "on" && fusion != "off") return opts.usage_error("--fusion is on or off, not '" + fusion + "'");
  Context ctx;
  ctx.quick = opts.has("quick");
  if (opts.has("size")) {
    ctx.size = std::atoll(opts.get("size").c_str());
    if (ctx.size < 1) return opts.usage_error("--size wants a positive number of elements");
  }
  if (!start_runtime("bp-bench-direct")) return kExitFailure;
  read_cpu_properties(ctx);
  Report rep(ctx, Output::relay);
  const progress::Session progress;
  try {
    std::string why;
    if (!run_part(opts, ctx, rep, &why)) {
      std::fprintf(stderr, "bp-bench-direct: %s\n", why.c_str());
      return kExitUsage;
    }
  } catch (const std::exception &e) {
    ctx.progress_done();
    std::fprintf(stderr, "bp-bench-direct: part %s failed: %s\n", part.c_str(), e.what());
    return kExitFailure;
  }
  return kExitOk;
}
