// bp-bench-torch — the libtorch baseline of `bp bench`'s overhead figure, a
// program of its own so that bp never links libtorch (whose start-up cost
// would land on every bp call). bp bench runs it as a child process:
//
//   bp-bench-torch --trials N --target SECONDS
//
// and reads one JSON object from its standard output:
//
//   {"baseline": "libtorch at::add_out", "torch_version": "1.13.1", "ns_per_op": 812.5}
//
// ns_per_op: a 1-element float32 at::add_out into a preallocated output on
// the CPU, timed as bp bench times its own side (timing.hpp).
#include <torch/torch.h>
#include <torch/version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "timing.hpp"

namespace {

int usage(const char *why) {
  std::fprintf(stderr, "bp-bench-torch: %s\nusage: bp-bench-torch --trials N --target SECONDS\n", why);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  int trials = 0;
  double target = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--target")) target = std::atof(argv[i + 1]);
    else return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (argc % 2 == 0) return usage("every option takes a value");
  if (trials < 1 || !(target > 0)) return usage("--trials must be >= 1 and --target > 0");

  using namespace bptool::bench;
  try {
    at::Tensor a = at::ones({1}), b = at::ones({1}), out = at::empty({1});
    const Work add_out = [&](int64_t k) {
      for (int64_t i = 0; i < k; ++i) at::add_out(out, a, b);
    };
    const nlohmann::json result = {
        {"baseline", "libtorch at::add_out"},
        {"torch_version", std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                              std::to_string(TORCH_VERSION_PATCH)},
        {"ns_per_op", measure(add_out, trials, target) * 1e9},
    };
    std::printf("%s\n", result.dump().c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bp-bench-torch: %s\n", e.what());
    return 1;
  }
  return 0;
}
