// bp-bench-nccl — the NCCL side of `bp bench --figure allreduce`, a program of
// its own so that bp never links the CUDA runtime or NCCL. In one process,
// across every CUDA device:
//
//   bp-bench-nccl --trials N --target SECONDS --mb 4,16,...
//
// times bp_all_reduce(SUM) of float32 tensors on cuda:0..n-1 (the CUDA
// backend's collective entry, NCCL) against ncclAllReduce called directly,
// in place, on cudaMalloc'ed buffers of the same size with a communicator
// clique of its own, and prints one JSON object per size:
//
//   {"mb": 4, "devices": 2, "backplane_ms": 0.41, "baseline_ms": 0.40, "nccl": "2.28.3", "path": "..."}
//
// Without a CUDA device it prints {"skip": "<why>"} and exits 0.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backplane.hpp"
#include "pair_json.hpp"
#include "timing.hpp"

namespace {

using bptool::bench::compare;
using bptool::bench::Pair;
using bptool::bench::Work;

int usage(const char *why) {
  std::fprintf(stderr, "bp-bench-nccl: %s\nusage: bp-bench-nccl --trials N --target SECONDS --mb 4,16,...\n", why);
  return 2;
}

void skip(const std::string &why) { std::printf("%s\n", nlohmann::json{{"skip", why}}.dump().c_str()); }

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "bp-bench-nccl: %s\n", what.c_str());
  std::exit(1);
}

void cuda(cudaError_t e, const char *call) {
  if (e != cudaSuccess) die(std::string(call) + ": " + cudaGetErrorString(e));
}

void nccl(ncclResult_t r, const char *call) {
  if (r != ncclSuccess) die(std::string(call) + ": " + ncclGetErrorString(r));
}

// The direct baseline: one clique over every device, buffers and streams of its own.
class Direct {
 public:
  Direct(int devices, size_t count) : n_(devices), count_(count), comms_(size_t(devices)), bufs_(size_t(devices)),
                                      streams_(size_t(devices)) {
    std::vector<int> list(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) list[size_t(i)] = i;
    nccl(ncclCommInitAll(comms_.data(), n_, list.data()), "ncclCommInitAll");
    for (int i = 0; i < n_; ++i) {
      cuda(cudaSetDevice(i), "cudaSetDevice");
      cuda(cudaMalloc(&bufs_[size_t(i)], count_ * sizeof(float)), "cudaMalloc");
      cuda(cudaMemset(bufs_[size_t(i)], 0, count_ * sizeof(float)), "cudaMemset");
      cuda(cudaStreamCreate(&streams_[size_t(i)]), "cudaStreamCreate");
    }
  }
  ~Direct() {
    for (int i = 0; i < n_; ++i) {
      cudaSetDevice(i);
      cudaStreamDestroy(streams_[size_t(i)]);
      cudaFree(bufs_[size_t(i)]);
      ncclCommDestroy(comms_[size_t(i)]);
    }
  }
  Direct(const Direct &) = delete;
  Direct &operator=(const Direct &) = delete;

  void run() {
    nccl(ncclGroupStart(), "ncclGroupStart");
    for (int i = 0; i < n_; ++i)
      nccl(ncclAllReduce(bufs_[size_t(i)], bufs_[size_t(i)], count_, ncclFloat, ncclSum, comms_[size_t(i)],
                         streams_[size_t(i)]),
           "ncclAllReduce");
    nccl(ncclGroupEnd(), "ncclGroupEnd");
    for (int i = 0; i < n_; ++i) {
      cuda(cudaSetDevice(i), "cudaSetDevice");
      cuda(cudaStreamSynchronize(streams_[size_t(i)]), "cudaStreamSynchronize");
    }
  }

 private:
  int n_;
  size_t count_;
  std::vector<ncclComm_t> comms_;
  std::vector<void *> bufs_;
  std::vector<cudaStream_t> streams_;
};

}  // namespace

int main(int argc, char **argv) {
  int trials = 0;
  double target = 0;
  std::string mb_list;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--target")) target = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--mb")) mb_list = argv[i + 1];
    else return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (argc % 2 == 0) return usage("every option takes a value");
  if (trials < 1 || !(target > 0) || mb_list.empty()) return usage("--trials >= 1, --target > 0 and --mb are required");

  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    skip(e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device");
    return 0;
  }
  int version = 0;
  nccl(ncclGetVersion(&version), "ncclGetVersion");
  const std::string nccl_version = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
                                   "." + std::to_string(version % 100);
  try {
    std::vector<bp::Device> cuda_devices;
    for (int i = 0; i < devices; ++i) cuda_devices.emplace_back("cuda:" + std::to_string(i));
    std::istringstream sizes(mb_list);
    for (std::string item; std::getline(sizes, item, ',');) {
      const long mb = std::atol(item.c_str());
      if (mb <= 0) return usage(("bad size in --mb: " + item).c_str());
      const size_t count = size_t(mb) * (size_t(1) << 20) / sizeof(float);
      std::vector<bp::Tensor> ts;
      for (const bp::Device &d : cuda_devices) ts.push_back(bp::zeros({int64_t(count)}, bp::f32, d));
      const Work ours = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) bp::all_reduce(ts, bp::Reduce::sum);
        for (const bp::Device &d : cuda_devices) bp::check(bp_synchronize(d.id()));
      };
      Direct direct(devices, count);
      const Work theirs = [&](int64_t k) {
        for (int64_t i = 0; i < k; ++i) direct.run();
      };
      bp::check(bp_trace_clear());
      bp::check(bp_trace_enable(1));
      ours(1);
      bp::check(bp_trace_enable(0));
      char line[512] = "";
      if (bp_trace_count() > 0) bp_trace_line(bp_trace_count() - 1, line, sizeof line);
      const Pair p = compare(ours, theirs, trials, target);
      nlohmann::json row = pair_ms_json(p);
      row.update({{"mb", mb}, {"devices", devices}, {"nccl", nccl_version}, {"path", line}});
      std::printf("%s\n", row.dump().c_str());
      std::fflush(stdout);
    }
  } catch (const std::exception &ex) {
    die(ex.what());
  }
  return 0;
}
