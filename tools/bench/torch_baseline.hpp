// torch_baseline.hpp — the libtorch baseline of the overhead figure, measured
// by bp-bench-torch (bench/torch_main.cpp) in a child process: bp never links
// libtorch. The program is looked for beside the running bp executable.
#pragma once

#include <string>

#include "timing.hpp"

namespace bptool::bench {

struct TorchBaseline {
  double ns_per_op = kNaN;
  std::string version;  // libtorch's, "1.13.1"
  std::string why_not;  // when ns_per_op is NaN: why there is no figure
};

TorchBaseline run_torch_baseline(int trials, double target_s);

}  // namespace bptool::bench
