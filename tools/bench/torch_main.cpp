// bp-bench-torch — the libtorch baselines of `bp bench`, a program of its
// own so that bp never links libtorch (whose start-up cost would land on
// every bp call). bp bench runs it as a child process:
//
//   bp-bench-torch --measure add_out|train_step|matmul|layer_norm|attention --threads N --trials N --target SECONDS
//                  [--dtype float32|bfloat16|float16 --n N]   (matmul only)
//                  [--rows R --n N]                           (layer_norm only)
//                  [--batch N --n L]                         (attention only)
//
// and reads one JSON object from its standard output:
//
//   {"baseline": "libtorch at::add_out", "torch_version": "1.13.1", "ns_per_op": 812.5,
//    "blas_threads": "OpenBLAS 1"}
//
// --threads caps both libtorch's own pool and the BLAS library's: Debian's
// libtorch calls the same pthreads OpenBLAS as Backplane, and at::set_num_threads
// leaves OpenBLAS's pool alone (it caps MKL only), so without this the
// "1-thread" baseline would run its matmuls on every core.
//
// add_out: a 1-element float32 at::add_out into a preallocated output on the
// CPU. train_step: one forward, backward and SGD step of the training
// figure's MLP (bench/training_shape.hpp) with torch::nn and torch::optim.
// matmul: at::mm_out of two n x n matrices of --dtype (uniform in [-1, 1))
// into a preallocated output, for the dtypes figure. layer_norm:
// at::layer_norm over the last axis of a float32 (rows, n) normal x with
// weight and bias, for the layer_norm figure. attention: causal
// softmax(q k^T / sqrt(64) masked) v over [--batch, 12, --n, 64] float32
// (attention_shape.hpp), written as a careful user writes it in libtorch
// 1.13, which has no fused attention: at::matmul, mul_ and masked_fill_ in
// place on the scores, at::softmax, at::matmul. All timed as bp bench times
// its own side (timing.hpp).
// The headers of what is used, not <torch/torch.h> (all of libtorch's C++
// API): a third less compiling.
#include <ATen/Parallel.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>
#include <torch/types.h>
#include <torch/utils.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "attention_shape.hpp"
#include "timing.hpp"
#include "training_shape.hpp"

namespace {

int usage(const char *why) {
  std::fprintf(stderr,
               "bp-bench-torch: %s\nusage: bp-bench-torch --measure add_out|train_step|matmul|layer_norm|attention "
               "--threads N --trials N --target SECONDS [--dtype float32|bfloat16|float16 --n N] [--rows R --n N] "
               "[--batch N --n L]\n",
               why);
  return 2;
}

// The BLAS library libtorch loaded, capped at n threads; what was capped, for
// the report. Looked up at run time: which BLAS a libtorch build links is
// the distribution's choice.
std::string cap_blas_threads(int n) {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(n);
    return "OpenBLAS " + std::to_string(n);
  }
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads"))) {
    set(n);
    return "MKL " + std::to_string(n);
  }
  return "BLAS threads not capped (no OpenBLAS or MKL found)";
}

// Backplane's dtype names, as bp bench passes them.
bool scalar_type(const std::string &name, at::ScalarType *type) {
  if (name == "float32") *type = at::kFloat;
  else if (name == "bfloat16") *type = at::kBFloat16;
  else if (name == "float16") *type = at::kHalf;
  else return false;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  int trials = 0, threads = 1;
  int64_t n = 0, rows = 0, batch = 0;
  double target = 0;
  std::string what = "add_out", dtype_name = "float32";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--measure")) what = argv[i + 1];
    else if (!std::strcmp(argv[i], "--target")) target = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dtype")) dtype_name = argv[i + 1];
    else if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rows")) rows = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch")) batch = std::atoll(argv[i + 1]);
    else return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (argc % 2 == 0) return usage("every option takes a value");
  if (trials < 1 || !(target > 0) || threads < 1)
    return usage("--trials and --threads must be >= 1 and --target > 0");
  if (what != "add_out" && what != "train_step" && what != "matmul" && what != "layer_norm" &&
      what != "attention")
    return usage(("unknown measurement " + what).c_str());
  at::ScalarType dtype = at::kFloat;
  if (!scalar_type(dtype_name, &dtype)) return usage(("unknown dtype " + dtype_name).c_str());
  if (what == "matmul" && n < 1) return usage("matmul needs --n >= 1");
  if (what == "layer_norm" && (n < 1 || rows < 1)) return usage("layer_norm needs --rows and --n >= 1");
  if (what == "attention" && (n < 1 || batch < 1)) return usage("attention needs --batch >= 1 and --n >= 1");

  using namespace bptool::bench;
  try {
    at::set_num_threads(threads);
    const std::string blas_threads = cap_blas_threads(threads);
    double seconds = 0;
    std::string baseline;
    if (what == "add_out") {
      at::Tensor a = at::ones({1}), b = at::ones({1}), out = at::empty({1});
      const Work add_out = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) at::add_out(out, a, b);
      };
      seconds = measure(add_out, trials, target);
      baseline = "libtorch at::add_out";
    } else if (what == "matmul") {
      torch::manual_seed(0);
      const at::Tensor a = (at::rand({n, n}) * 2 - 1).to(dtype), b = (at::rand({n, n}) * 2 - 1).to(dtype);
      at::Tensor out = at::empty({n, n}, a.options());
      const Work mm = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) at::mm_out(out, a, b);
      };
      seconds = measure(mm, trials, target);
      baseline = "libtorch at::mm_out " + dtype_name;
    } else if (what == "layer_norm") {
      torch::manual_seed(0);
      const at::Tensor x = at::randn({rows, n}) * 2 + 1, w = at::randn({n}) * 0.5 + 1, b = at::randn({n}) * 0.5;
      const Work norm = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) (void)at::layer_norm(x, {n}, w, b, 1e-5);
      };
      seconds = measure(norm, trials, target);
      baseline = "libtorch at::layer_norm";
    } else if (what == "attention") {
      torch::manual_seed(0);
      const std::vector<int64_t> shape = {batch, kAttentionHeads, n, kAttentionHeadSize};
      const at::Tensor q = at::randn(shape), k = at::randn(shape), v = at::randn(shape);
      const at::Tensor hidden = at::ones({n, n}, at::kBool).triu(1);
      const double scale = 1 / std::sqrt(double(kAttentionHeadSize));
      const Work attention = [&](int64_t count) {
        for (int64_t i = 0; i < count; ++i) {
          at::Tensor scores = at::matmul(q, k.transpose(-2, -1));
          scores.mul_(scale).masked_fill_(hidden, -INFINITY);
          const at::Tensor out = at::matmul(at::softmax(scores, -1), v);
        }
      };
      seconds = measure(attention, trials, target);
      baseline = "libtorch matmul, mul_, masked_fill_, softmax, matmul";
    } else {
      torch::manual_seed(0);
      torch::nn::Sequential net(torch::nn::Linear(kTrainInputs, kTrainHidden), torch::nn::ReLU(),
                                torch::nn::Linear(kTrainHidden, kTrainClasses));
      torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
      const at::Tensor x = torch::randn({kTrainBatch, kTrainInputs});
      const at::Tensor labels = torch::randint(0, kTrainClasses, {kTrainBatch}, torch::kLong);
      const Work step = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          const at::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), labels);
          opt.zero_grad();
          loss.backward();
          opt.step();
        }
      };
      seconds = measure(step, trials, target);
      baseline = "libtorch step (torch::nn, torch::optim::SGD)";
    }
    const nlohmann::json result = {
        {"baseline", baseline},
        {"torch_version", std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                              std::to_string(TORCH_VERSION_PATCH)},
        {"ns_per_op", seconds * 1e9},
        {"blas_threads", blas_threads},
    };
    std::printf("%s\n", result.dump().c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bp-bench-torch: %s\n", e.what());
    return 1;
  }
  return 0;
}
