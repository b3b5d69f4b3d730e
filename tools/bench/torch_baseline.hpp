// torch_baseline.hpp — the libtorch baselines of `bp bench` (the overhead
// and training figures), measured by bp-bench-torch (bench/torch_main.cpp) in
// a child process: bp never links libtorch. The program is looked for beside
// the running bp executable.
#pragma once

#include <string>
#include <vector>

#include "timing.hpp"

namespace bptool::bench {

struct TorchBaseline {
  double ns_per_op = kNaN;
  std::string version;       // libtorch's, "1.13.1"
  std::string blas_threads;  // the BLAS library's thread cap, "OpenBLAS 1"
  std::string baseline;      // what was measured, "libtorch at::add_out"
  std::string why_not;  // when ns_per_op is NaN: why there is no figure
};

// `what`: "add_out" (a 1-element float32 at::add_out into a preallocated
// output), "train_step" (one step of the training figure's MLP),
// "gpt_train_step" (one step of the gpt figure's model, training_shape.hpp),
// "matmul" (an n x n at::mm_out, `extra` = {"--dtype", "bfloat16", "--n",
// "512"}), "softmax" / "log_softmax" (at::softmax_out of an R x n float32
// matrix along its rows, `extra` = {"--rows", "8192", "--n", "1024"}) or
// "conv" (a layer of conv_shapes.hpp, `extra` = {"--layer", "1", "--pass",
// "data", "--batch", "32"}); `threads` intra-op and BLAS threads.
TorchBaseline run_torch_baseline(const std::string &what, int trials, double target_s, int threads = 1,
                                 const std::vector<std::string> &extra = {});

// Why there can be no libtorch baseline here ("" when bp-bench-torch is
// beside bp): a figure with many libtorch rows says it once.
std::string torch_baseline_missing();

}  // namespace bptool::bench
