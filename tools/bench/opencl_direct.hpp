// opencl_direct.hpp — the OpenCL baselines of `bp bench`: the same OpenCL
// device a Backplane opencl:i device uses, driven directly (own context and
// queue, CLBlast GEMM, clEnqueueWriteBuffer/ReadBuffer/CopyBuffer), in bp-bench-direct
// (direct.hpp). Built with OpenCL where it is found (BP_BENCH_HAVE_OPENCL)
// and CLBlast (BP_BENCH_HAVE_CLBLAST); otherwise open() says why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backplane.hpp"

namespace bptool::bench {

class OpenclDirect {
 public:
  // The OpenCL device behind a Backplane opencl:i device (same platform
  // filter and device type as the config, checked by device name), or
  // nullptr with *why.
  static std::unique_ptr<OpenclDirect> open(const bp::Device &device, std::string *why);
  ~OpenclDirect();

  std::string device_name() const;

  // CLBlastSgemm, row-major n x n x n, on buffers this object owns.
  bool has_clblast(std::string *why) const;
  void sgemm_setup(int64_t n);
  void sgemm(int64_t repetitions);  // returns after clFinish

  // Blocking clEnqueueWriteBuffer / clEnqueueReadBuffer of `bytes`.
  void transfer_setup(size_t bytes);
  void write(int64_t repetitions);
  void read(int64_t repetitions);
  // clCreateBuffer + blocking write + release: what an allocating upload costs.
  void write_new(int64_t repetitions);

  // clEnqueueCopyBuffer of `bytes` between two buffers of the device: the
  // least any kernel that reads and writes that many bytes can take.
  void copy_setup(size_t bytes);
  void copy(int64_t repetitions);  // returns after clFinish

  // The chain y = x**2 - 0.5; z = y**3 - 0.2 written by hand as one kernel
  // (z = v * v * v - 0.2f with v = x * x - 0.5f, no contraction into fma,
  // as Backplane's kernels): x uploaded once, each repetition into a fresh
  // buffer, waited for and released.
  void chain_setup(const std::vector<float> &x);
  void chain(int64_t repetitions);
  std::vector<float> chain_result();  // z, from one more run

  // The cl_context and cl_command_queue this object drives, for the
  // baselines in files of their own (opencl_conv_direct.cpp; since 1.6).
  void *cl_context_handle() const;
  void *cl_queue_handle() const;

  struct Impl;

 private:
  explicit OpenclDirect(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bptool::bench
