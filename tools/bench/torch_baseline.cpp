#include "torch_baseline.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "child_process.hpp"
#include "json_output.hpp"

namespace bptool::bench {

namespace {

constexpr const char kProgram[] = "bp-bench-torch";

}  // namespace

TorchBaseline run_torch_baseline(const std::string &what, int trials, double target_s, int threads) {
  TorchBaseline r;
  const std::string dir = own_directory();
  const std::string program = dir + "/" + kProgram;
  if (dir.empty() || access(program.c_str(), X_OK) != 0) {
    r.why_not = std::string(kProgram) + " is not beside bp (it is built only where libtorch is installed)";
    return r;
  }
  std::string out;
  char target[32];
  std::snprintf(target, sizeof target, "%g", target_s);
  if (!run_capturing({program, "--measure", what, "--threads", std::to_string(threads), "--trials",
                      std::to_string(trials), "--target", target},
                     &out, &r.why_not))
    return r;
  const Json doc = Json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ns_per_op") || !doc["ns_per_op"].is_number()) {
    r.why_not = program + " printed no JSON object with ns_per_op";
    return r;
  }
  r.ns_per_op = doc["ns_per_op"].get<double>();
  if (doc.contains("torch_version") && doc["torch_version"].is_string()) r.version = doc["torch_version"].get<std::string>();
  if (doc.contains("blas_threads") && doc["blas_threads"].is_string())
    r.blas_threads = doc["blas_threads"].get<std::string>();
  return r;
}

}  // namespace bptool::bench
