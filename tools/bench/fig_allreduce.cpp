// Figure "allreduce": bp_dist_all_reduce(SUM) of float32 cpu:0 tensors of 4,
// 16, 64 and 256 MB (--quick: 4 and 16) on 2 ranks, next to MPI_Allreduce called directly on
// plain host buffers of the same size in the same run. Both sides are
// measured by bp-bench-mpi (bench/mpi_main.cpp), which bp runs under
// mpirun: bp itself is one process and never links MPI. Then the NCCL path:
// bp_all_reduce across every CUDA device of this process (the CUDA backend's
// collective entry) next to ncclAllReduce called directly, both measured by
// bp-bench-nccl, built with the CUDA backend and NCCL, run where a GPU is.
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "child_process.hpp"
#include "json_output.hpp"
#include "pair_json.hpp"

namespace bptool::bench {

namespace {

constexpr const char kProgram[] = "bp-bench-mpi";
constexpr int kRanks = 2;

#ifdef BP_BENCH_MPIEXEC
constexpr const char kMpiexec[] = BP_BENCH_MPIEXEC;
constexpr const char kMpiexecFlags[] = BP_BENCH_MPIEXEC_FLAGS;
#endif

std::string params(int64_t mb) { return "float32 " + std::to_string(mb) + " MB, " + std::to_string(kRanks) + " ranks"; }

// "MPI_Allreduce (Open MPI v4.1.4, in place, direct)"
std::string baseline_name(const std::string &library) {
  const std::string name = library.substr(0, library.find(','));
  return "MPI_Allreduce (" + (name.empty() ? std::string("MPI") : name) + ", in place, direct)";
}

}  // namespace

namespace {

std::string nccl_params(int64_t mb, int64_t devices) {
  return "float32 " + std::to_string(mb) + " MB, " + (devices ? std::to_string(devices) : std::string("every")) +
         " CUDA device(s), one process";
}

void nccl_rows(Context &ctx, Report &rep, const std::vector<int64_t> &sizes, int trials, double target) {
  const std::string program = own_directory() + "/bp-bench-nccl";
  const auto skip_all = [&](const std::string &why) {
    for (int64_t mb : sizes) rep.skip("allreduce", nccl_params(mb, 0), "cuda", "ms", "ncclAllReduce (direct)", why);
  };
  if (access(program.c_str(), X_OK) != 0) {
    skip_all("bp-bench-nccl is not beside bp (it is built with the CUDA backend and NCCL)");
    return;
  }
  char target_text[32];
  std::snprintf(target_text, sizeof target_text, "%g", target);
  std::string mb;
  for (int64_t size : sizes) mb += (mb.empty() ? "" : ",") + std::to_string(size);
  ctx.progress("allreduce: bp-bench-nccl across the CUDA devices (both sides)");
  std::string out, why;
  if (!run_capturing({program, "--trials", std::to_string(trials), "--target", target_text, "--mb", mb}, &out,
                     &why)) {
    skip_all("bp-bench-nccl failed: " + why);
    return;
  }
  std::istringstream lines(out);
  size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    const Json doc = Json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) continue;
    if (doc.contains("skip")) {
      skip_all(doc.value("skip", std::string("no reason given")));
      return;
    }
    if (!doc.contains("mb") || !doc.contains("backplane_ms")) continue;
    const int64_t devices = doc.value("devices", int64_t(0));
    Row r{"allreduce", nccl_params(doc["mb"].get<int64_t>(), devices), "cuda:0-" + std::to_string(devices - 1), "ms"};
    set_times(r, pair_ms_from_json(doc), 1);
    r.baseline_name = "ncclAllReduce (NCCL " + doc.value("nccl", std::string("?")) + ", in place, direct)";
    r.note = doc.value("path", std::string());
    rep.add(r);
    ++rows;
  }
  if (rows == 0) skip_all("bp-bench-nccl printed no rows");
}

void mpi_rows(Context &ctx, Report &rep, const std::vector<int64_t> &sizes, int trials, double target) {
  const auto skip_all = [&](const std::string &why) {
    for (int64_t mb : sizes) rep.skip("allreduce", params(mb), "cpu:0", "ms", baseline_name(""), why);
  };
#ifndef BP_BENCH_MPIEXEC
  (void)trials;
  (void)target;
  skip_all("built without MPI or without mpirun (install libopenmpi-dev openmpi-bin and rebuild)");
#else
  const std::string dir = own_directory();
  const std::string program = dir + "/" + kProgram;
  if (dir.empty() || access(program.c_str(), X_OK) != 0) {
    skip_all(std::string(kProgram) + " is not beside bp (it is built with MPI only)");
    return;
  }
  if (access(kMpiexec, X_OK) != 0) {
    skip_all(std::string(kMpiexec) + " is not there any more (install openmpi-bin)");
    return;
  }
  std::vector<std::string> argv = {kMpiexec};
  std::istringstream flags(kMpiexecFlags);
  for (std::string flag; flags >> flag;) argv.push_back(flag);
  char target_text[32];
  std::snprintf(target_text, sizeof target_text, "%g", target);
  std::string mb;
  for (int64_t size : sizes) mb += (mb.empty() ? "" : ",") + std::to_string(size);
  for (const std::string &a : {std::string("-np"), std::to_string(kRanks), program, std::string("--trials"),
                               std::to_string(trials), std::string("--target"), std::string(target_text),
                               std::string("--mb"), mb})
    argv.push_back(a);
  ctx.progress("allreduce: " + std::string(kProgram) + " under mpirun -np " + std::to_string(kRanks) + " (" +
               std::to_string(sizes.size()) + " sizes, both sides)");
  std::string out, why;
  if (!run_capturing(argv, &out, &why)) {
    skip_all("mpirun -np " + std::to_string(kRanks) + " " + kProgram + " failed: " + why);
    return;
  }
  std::istringstream lines(out);
  size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    const Json doc = Json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("mb") || !doc.contains("backplane_ms")) continue;
    Row r{"allreduce", params(doc["mb"].get<int64_t>()), "cpu:0", "ms"};
    set_times(r, pair_ms_from_json(doc), 1);
    r.baseline_name = baseline_name(doc.value("library", std::string()));
    const std::string path = doc.value("path", std::string());
    const size_t colon = path.find(": ");
    r.note = colon == std::string::npos ? path : path.substr(colon + 2);
    rep.add(r);
    ++rows;
  }
  if (rows == 0) skip_all(std::string(kProgram) + " printed no rows");
#endif
}

}  // namespace

void figure_allreduce(Context &ctx, Report &rep) {
  const std::vector<int64_t> sizes = ctx.quick ? std::vector<int64_t>{4, 16} : std::vector<int64_t>{4, 16, 64, 256};
  const int trials = ctx.quick ? 3 : 5;
  const double target = ctx.quick ? 0.1 : 0.5;
  mpi_rows(ctx, rep, sizes, trials, target);
  nccl_rows(ctx, rep, sizes, trials, target);
}

}  // namespace bptool::bench
