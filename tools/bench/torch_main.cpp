// bp-bench-torch — the libtorch baselines of `bp bench`, a program of its
// own so that bp never links libtorch (whose start-up cost would land on
// every bp call). bp bench runs it as a child process:
//
//   bp-bench-torch --measure add_out|train_step|gpt_train_step|resnet_train_step|matmul|layer_norm|attention|softmax|log_softmax|topk|conv|<pool>[_train]
//                  --threads N --trials N --target SECONDS
//                  [--dtype float32|bfloat16|float16 --n N]   (matmul only)
//                  [--rows R --n N]                           (layer_norm, softmax, log_softmax)
//                  [--batch N --n L]                         (attention only)
//                  [--rows R --n N --k K]                     (topk only)
//                  [--layer I --pass forward|data|weight --batch N]   (conv only)
//                  [--n N]                                    (the pooling layers: the batch)
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
// gpt_train_step: one forward, backward and AdamW step of the gpt figure's
// model (training_shape.hpp) with torch::nn's Embedding, TransformerEncoder
// (its layers post-norm, as libtorch's C++ layer always is, and [S, N, E]:
// the embeddings are transposed in and out) and Linear, the causal mask as
// the float mask torch 1.13 takes (it has no is_causal), cross_entropy and
// torch::optim::AdamW with its defaults. resnet_train_step: the same for
// the resnet figure's network (training_shape.hpp) with torch::nn's Conv2d,
// BatchNorm2d (training mode) and Linear, relu and adaptive_avg_pool2d.
// matmul: at::mm_out of two n x n matrices of --dtype (uniform in [-1, 1))
// into a preallocated output, for the dtypes figure. layer_norm:
// at::layer_norm over the last axis of a float32 (rows, n) normal x with
// weight and bias, for the layer_norm figure. attention: causal
// softmax(q k^T / sqrt(64) masked) v over [--batch, 12, --n, 64] float32
// (attention_shape.hpp), written as a careful user writes it in libtorch
// 1.13, which has no fused attention: at::matmul, mul_ and masked_fill_ in
// place on the scores, at::softmax, at::matmul. softmax, log_softmax:
// at::softmax_out / at::log_softmax_out of an R x n float32 matrix (uniform
// in [-4, 4)) along its last dimension into a preallocated output, for the
// softmax figure. topk: at::topk_out of the k largest of each row of R x N
// float32 (uniform in [-1, 1)), or, for k = N, at::sort_out(stable)
// descending, into preallocated outputs, for the topk figure.
// conv: layer I of ResNet-18's convolutions (bench/conv_shapes.hpp) at the
// batch, float32: at::convolution (forward) or at::convolution_backward
// with only the input's (data) or the weight's (weight) gradient asked for,
// for the conv figure.
// <pool> (a name of kPoolLayers, bench/pool_shape.hpp): that layer's
// forward over a batch of --n (max pooling with its indices, as in
// training), with _train also its backward from a fixed dy, for the pool
// figure. All timed as bp bench times its own side (timing.hpp).
// The headers of what is used, not <torch/torch.h> (all of libtorch's C++
// API): a third less compiling.
#include <ATen/Parallel.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/transformercoder.h>
#include <torch/nn/modules/transformerlayer.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>
#include <torch/types.h>
#include <torch/utils.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention_shape.hpp"
#include "conv_shapes.hpp"
#include "pool_shape.hpp"
#include "timing.hpp"
#include "training_shape.hpp"

namespace {

int usage(const char *why) {
  std::fprintf(stderr,
               "bp-bench-torch: %s\nusage: bp-bench-torch --measure "
               "add_out|train_step|gpt_train_step|resnet_train_step|matmul|layer_norm|attention|softmax|log_softmax|topk|conv "
               "--threads N --trials N --target SECONDS [--dtype float32|bfloat16|float16 --n N] [--rows R --n N] "
               "[--batch N --n L] [--rows R --n N --k K]\n"
               "[--layer I --pass forward|data|weight --batch N]\n",
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
// The book's residual block, as resnet_digits.py's Residual.
struct ResidualImpl : torch::nn::Module {
  ResidualImpl(int64_t in, int64_t out, bool use_1x1conv, int64_t stride)
      : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1)))),
        conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(out, out, 3).padding(1)))),
        bn1(register_module("bn1", torch::nn::BatchNorm2d(out))),
        bn2(register_module("bn2", torch::nn::BatchNorm2d(out))) {
    if (use_1x1conv) conv3 = register_module("conv3", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride)));
  }
  at::Tensor forward(const at::Tensor &x) {
    const at::Tensor y = bn2(conv2(torch::relu(bn1(conv1(x)))));
    return torch::relu(y + (conv3 ? conv3(x) : x));
  }
  torch::nn::Conv2d conv1, conv2, conv3{nullptr};
  torch::nn::BatchNorm2d bn1, bn2;
};
TORCH_MODULE(Residual);

// The resnet figure's step (training_shape.hpp), its network and data held
// by the returned Work.
bptool::bench::Work resnet_step() {
  using namespace bptool::bench;
  struct State {
    torch::nn::Conv2d stem{torch::nn::Conv2dOptions(1, kResNetWidth, 3).padding(1)};
    torch::nn::BatchNorm2d stem_bn{kResNetWidth};
    std::vector<Residual> blocks{Residual(kResNetWidth, kResNetWidth, false, 1),
                                 Residual(kResNetWidth, kResNetWidth, false, 1),
                                 Residual(kResNetWidth, 2 * kResNetWidth, true, 2),
                                 Residual(2 * kResNetWidth, 2 * kResNetWidth, false, 1)};
    torch::nn::Linear head{2 * kResNetWidth, kResNetClasses};
    std::unique_ptr<torch::optim::AdamW> opt;
    at::Tensor images = torch::rand({kResNetBatch, 1, kResNetSize, kResNetSize});
    at::Tensor labels = torch::randint(0, kResNetClasses, {kResNetBatch}, torch::kLong);
  };
  auto st = std::make_shared<State>();
  std::vector<at::Tensor> params;
  std::vector<std::shared_ptr<torch::nn::Module>> modules = {st->stem.ptr(), st->stem_bn.ptr(), st->head.ptr()};
  for (const Residual &b : st->blocks) modules.push_back(b.ptr());
  for (const auto &m : modules)
    for (const at::Tensor &p : m->parameters()) params.push_back(p);
  st->opt = std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions());
  return [st](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      at::Tensor x = torch::relu(st->stem_bn(st->stem(st->images)));
      for (Residual &b : st->blocks) x = b(x);
      const at::Tensor pooled = torch::nn::functional::adaptive_avg_pool2d(
          x, torch::nn::functional::AdaptiveAvgPool2dFuncOptions({1, 1}));
      const at::Tensor logits = st->head(pooled.reshape({kResNetBatch, 2 * kResNetWidth}));
      const at::Tensor loss = torch::nn::functional::cross_entropy(logits, st->labels);
      st->opt->zero_grad();
      loss.backward();
      st->opt->step();
    }
  };
}

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
  int64_t n = 0, rows = 0, batch = 0, k_top = 0, layer = -1;
  double target = 0;
  std::string what = "add_out", dtype_name = "float32", pass = "forward";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--measure")) what = argv[i + 1];
    else if (!std::strcmp(argv[i], "--target")) target = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dtype")) dtype_name = argv[i + 1];
    else if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rows")) rows = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch")) batch = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--k")) k_top = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--layer")) layer = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pass")) pass = argv[i + 1];
    else return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (argc % 2 == 0) return usage("every option takes a value");
  if (trials < 1 || !(target > 0) || threads < 1)
    return usage("--trials and --threads must be >= 1 and --target > 0");
  const bool softmax = what == "softmax" || what == "log_softmax";
  const bptool::bench::PoolLayer *pool = nullptr;
  bool pool_train = false;
  for (const bptool::bench::PoolLayer &l : bptool::bench::kPoolLayers)
    for (bool train : {false, true})
      if (what == std::string(l.name) + (train ? "_train" : "")) {
        pool = &l;
        pool_train = train;
      }
  if (what != "add_out" && what != "train_step" && what != "gpt_train_step" && what != "resnet_train_step" &&
      what != "matmul" && what != "layer_norm" && what != "attention" && !softmax && what != "topk" && what != "conv" &&
      !pool)
    return usage(("unknown measurement " + what).c_str());
  if (what == "conv" && (layer < 0 || layer >= bptool::bench::kResNet18LayerCount || batch < 1 ||
                         (pass != "forward" && pass != "data" && pass != "weight")))
    return usage("conv needs --layer 0..7, --batch >= 1 and --pass forward, data or weight");
  if (pool && n < 1) return usage("a pooling layer needs --n (the batch) >= 1");
  at::ScalarType dtype = at::kFloat;
  if (!scalar_type(dtype_name, &dtype)) return usage(("unknown dtype " + dtype_name).c_str());
  if (what == "matmul" && n < 1) return usage("matmul needs --n >= 1");
  if (what == "layer_norm" && (n < 1 || rows < 1)) return usage("layer_norm needs --rows and --n >= 1");
  if (what == "attention" && (n < 1 || batch < 1)) return usage("attention needs --batch >= 1 and --n >= 1");
  if (softmax && (n < 1 || rows < 1)) return usage("softmax and log_softmax need --rows and --n >= 1");
  if (what == "topk" && (rows < 1 || n < 1 || k_top < 1 || k_top > n))
    return usage("topk needs --rows, --n >= 1 and 1 <= --k <= --n");

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
    } else if (pool) {
      const bptool::bench::PoolLayer &l = *pool;
      torch::manual_seed(0);
      at::Tensor x = at::rand({n, l.channels, l.size, l.size}) * 2 - 1;
      if (pool_train) x.requires_grad_();
      const int64_t out = (l.size + 2 * l.padding - l.kernel) / l.stride + 1;
      const at::Tensor dy = at::rand({n, l.channels, out, out}) * 2 - 1;
      const Work layer = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          const at::Tensor y = l.max ? std::get<0>(at::max_pool2d_with_indices(x, l.kernel, l.stride, l.padding))
                                     : at::avg_pool2d(x, l.kernel, l.stride, l.padding, false, true);
          if (pool_train) y.backward(dy);
        }
      };
      seconds = measure(layer, trials, target);
      baseline = std::string("libtorch ") + (l.max ? "at::max_pool2d_with_indices" : "at::avg_pool2d") +
                 (pool_train ? " + backward" : "");
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
    } else if (softmax) {
      torch::manual_seed(0);
      const at::Tensor x = at::rand({rows, n}) * 8 - 4;
      at::Tensor out = at::empty({rows, n}, x.options());
      const bool log = what == "log_softmax";
      const Work rows_of = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          if (log) at::log_softmax_out(out, x, 1);
          else at::softmax_out(out, x, 1);
        }
      };
      seconds = measure(rows_of, trials, target);
      baseline = std::string("libtorch at::") + what + "_out float32";
    } else if (what == "topk") {
      torch::manual_seed(0);
      const at::Tensor x = at::rand({rows, n}) * 2 - 1;
      at::Tensor values = at::empty({rows, k_top}), indices = at::empty({rows, k_top}, at::kLong);
      const Work select = [&](int64_t times) {
        for (int64_t i = 0; i < times; ++i) {
          if (k_top == n)
            at::sort_out(values, indices, x, /*stable=*/true, /*dim=*/1, /*descending=*/true);
          else
            at::topk_out(values, indices, x, k_top, /*dim=*/1, /*largest=*/true, /*sorted=*/true);
        }
      };
      seconds = measure(select, trials, target);
      baseline = k_top == n ? "libtorch at::sort_out(stable)" : "libtorch at::topk_out";
    } else if (what == "conv") {
      const ConvLayer &l = kResNet18Layers[layer];
      torch::manual_seed(0);
      const at::Tensor x = at::randn({batch, l.c_in, l.size, l.size}), w = at::randn({l.c_out, l.c_in, l.kernel, l.kernel}) * 0.1;
      const at::Tensor dy = at::randn({batch, l.c_out, l.out(), l.out()});
      const std::vector<int64_t> stride{l.stride, l.stride}, padding{l.pad, l.pad}, dilation{1, 1}, none{0, 0};
      const std::array<bool, 3> mask{pass == "data", pass == "weight", false};
      const Work run = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          if (pass == "forward")
            (void)at::convolution(x, w, c10::nullopt, stride, padding, dilation, false, none, 1);
          else
            (void)at::convolution_backward(dy, x, w, c10::nullopt, stride, padding, dilation, false, none, 1, mask);
        }
      };
      seconds = measure(run, trials, target);
      baseline = std::string("libtorch ") + (pass == "forward" ? "at::convolution" : "at::convolution_backward") +
                 " (built with oneDNN: " + (at::hasMKLDNN() ? "yes" : "no") + ")";
    } else if (what == "gpt_train_step") {
      torch::manual_seed(0);
      torch::nn::Embedding tok(kGptVocab, kGptModel), pos(kGptSeq, kGptModel);
      torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(
          torch::nn::TransformerEncoderLayerOptions(kGptModel, kGptHeads)
              .dim_feedforward(kGptFeedForward)
              .dropout(0.0)
              .activation(torch::kGELU),
          kGptLayers));
      torch::nn::Linear head(kGptModel, kGptVocab);
      std::vector<at::Tensor> params;
      const std::vector<std::shared_ptr<torch::nn::Module>> modules = {tok.ptr(), pos.ptr(), encoder.ptr(),
                                                                        head.ptr()};
      for (const auto &m : modules)
        for (const at::Tensor &p : m->parameters()) params.push_back(p);
      torch::optim::AdamW opt(params, torch::optim::AdamWOptions());
      const at::Tensor tokens = torch::randint(0, kGptVocab, {kGptBatch, kGptSeq}, torch::kLong);
      const at::Tensor targets = torch::randint(0, kGptVocab, {kGptBatch, kGptSeq}, torch::kLong);
      const at::Tensor positions = torch::arange(kGptSeq, torch::kLong);
      const at::Tensor causal = torch::full({kGptSeq, kGptSeq}, -INFINITY).triu(1);
      const Work step = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) {
          const at::Tensor x = tok->forward(tokens) + pos->forward(positions);  // [B, T, D]
          const at::Tensor h = encoder->forward(x.transpose(0, 1), causal).transpose(0, 1);
          const at::Tensor logits = head->forward(h).reshape({kGptBatch * kGptSeq, kGptVocab});
          const at::Tensor loss =
              torch::nn::functional::cross_entropy(logits, targets.reshape({kGptBatch * kGptSeq}));
          opt.zero_grad();
          loss.backward();
          opt.step();
        }
      };
      seconds = measure(step, trials, target);
      baseline = "libtorch step (torch::nn Embedding, TransformerEncoder, Linear; torch::optim::AdamW)";
    } else if (what == "resnet_train_step") {
      torch::manual_seed(0);
      seconds = measure(resnet_step(), trials, target);
      baseline = "libtorch step (torch::nn Conv2d, BatchNorm2d, Linear; torch::optim::AdamW)";
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
