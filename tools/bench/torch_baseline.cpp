#include "torch_baseline.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "child_process.hpp"
#include "json_output.hpp"

namespace bptool::bench {

namespace {

constexpr const char kProgram[] = "bp-bench-torch";

// The program's path, "" when it is not beside bp.
std::string program_path() {
  const std::string dir = own_directory();
  const std::string program = dir + "/" + kProgram;
  return dir.empty() || access(program.c_str(), X_OK) != 0 ? "" : program;
}

}  // namespace

std::string torch_baseline_missing() {
  return program_path().empty() ? std::string(kProgram) + " is not beside bp (it is built only where libtorch is installed)"
                                : "";
}

TorchBaseline run_torch_baseline(const std::string &what, int trials, double target_s, int threads,
                                 const std::vector<std::string> &extra) {
  TorchBaseline r;
  const std::string program = program_path();
  if (program.empty()) {
    r.why_not = torch_baseline_missing();
    return r;
  }
  std::string out;
  char target[32];
  std::snprintf(target, sizeof target, "%g", target_s);
  std::vector<std::string> argv = {program, "--measure", what, "--threads", std::to_string(threads), "--trials",
                                   std::to_string(trials), "--target", target};
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (!run_capturing(argv, &out, &r.why_not)) return r;
  const Json doc = Json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ns_per_op") || !doc["ns_per_op"].is_number()) {
    r.why_not = program + " printed no JSON object with ns_per_op";
    return r;
  }
  r.ns_per_op = doc["ns_per_op"].get<double>();
  if (doc.contains("torch_version") && doc["torch_version"].is_string()) r.version = doc["torch_version"].get<std::string>();
  if (doc.contains("blas_threads") && doc["blas_threads"].is_string())
    r.blas_threads = doc["blas_threads"].get<std::string>();
  if (doc.contains("baseline") && doc["baseline"].is_string()) r.baseline = doc["baseline"].get<std::string>();
  return r;
}

}  // namespace bptool::bench
