// bp's side of the baselines measured by bp-bench-direct (direct.hpp), and
// figure "gemm", which that program measures whole.
#include <unistd.h>

#include <sstream>

#include "child_process.hpp"
#include "direct.hpp"
#include "progress.hpp"

namespace bptool::bench {

namespace {

constexpr const char kProgram[] = "bp-bench-direct";

}  // namespace

void run_direct(Context &ctx, Report &rep, const std::vector<std::string> &args, Row skipped) {
  const std::string program = own_directory() + "/" + kProgram;
  const auto skip = [&](const std::string &why) {
    skipped.note = "skipped: " + why;
    rep.add(skipped);
  };
  if (access(program.c_str(), X_OK) != 0) {
    skip(std::string(kProgram) + " is not beside bp (it is built with bp)");
    return;
  }
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  if (ctx.quick) argv.push_back("--quick");
  if (ctx.size > 0) argv.insert(argv.end(), {"--size", std::to_string(ctx.size)});
  progress::hand_over();
  std::string out, why;
  const bool ran = run_capturing(argv, &out, &why);
  // The rows it printed before any failure are measurements all the same.
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    Row r;
    if (row_from_relay_line(line, &r)) rep.add(r);
  }
  if (!ran) skip(std::string(kProgram) + " failed: " + why);
}

void figure_gemm(Context &ctx, Report &rep) {
  Row skipped{"gemm", "float32/float64", "cpu:0, opencl:*", "GFLOPS"};
  skipped.baseline_name = "cblas (OpenBLAS direct), CLBlastSgemm (direct)";
  run_direct(ctx, rep, {"--part", "gemm"}, skipped);
}

}  // namespace bptool::bench
