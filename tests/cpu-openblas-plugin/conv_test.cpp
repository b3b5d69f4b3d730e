// The convolutions (oneDNN where it is built in and takes the problem,
// im2col + OpenBLAS otherwise) against the reference on the kit's cases,
// on one thread and on several.
#include <filesystem>
#include <iterator>
#include <thread>

#include "conv_check.hpp"
#include "family_builders.hpp"
#include "skip.hpp"

using namespace bp_test;

TEST_CASE("cpu: convolutions agree with the reference on the kit's cases") {
  Comparison pair("cpu-openblas", Options{{"threads", "1"}});
  check_conv_cases(pair.plugin, pair.ref, 12);
}

TEST_CASE("cpu: threaded convolutions agree with the reference (batch slices, summed weight gradients)") {
  Comparison pair("cpu-openblas", Options{{"threads", "3"}});
  check_conv_cases(pair.plugin, pair.ref, 12);
}

// oneDNN's blocked layouts and scratchpads, and the pointwise GEMM's
// operands, are blocks of the memory pool for the length of a call only:
// after each call, memory_in_use counts the live buffers alone again.
TEST_CASE("cpu: a convolution's scratch is given back after each call") {
  PluginHandle cpu("cpu-openblas", Options{{"threads", "2"}});
  const auto plugin = bpcheck::Plugin::borrow(cpu.api());
  auto in_use = [&] {
    bp_plugin_device_info info = blank_device_info();
    cpu.check(cpu.api().device_info(0, &info), "device_info");
    return info.memory_in_use;
  };
  const uint64_t before = in_use();
  int checked = 0;
  for (bp_op op : ops_in(BP_OP_FAMILY_CONV))
    for (bp_dtype dtype : {BP_FLOAT32, BP_BFLOAT16})
      for (const bpcheck::Case &c : bpcheck::make_cases(op, dtype, dtype, 7)) {
        INFO(op_name(op) << " " << dtype_name(dtype) << ", case " << c.label);
        REQUIRE(bpcheck::run_case(*plugin, 0, c).ok);
        CHECK(in_use() == before);
        ++checked;
      }
  CHECK(checked > 20);
}

// A batch of one on several threads splits the output channels (or the
// groups) between them in blocks of 16: channel counts that split evenly
// and not, a remainder block smaller than the others, groups and
// depthwise, 1- to 3-D, with and without a bias, float32 and bfloat16. So
// does a larger ungrouped batch whose weights outweigh x, writing its
// channels of each batch item of y in place.
TEST_CASE("cpu: a batch of one, or weights larger than x, splits the output channels between the threads") {
  for (const char *threads : {"2", "3"}) {
    Comparison pair("cpu-openblas", Options{{"threads", threads}});
    const auto p = bpcheck::Plugin::borrow(pair.plugin.api()), r = bpcheck::Plugin::borrow(pair.ref.api());
    for (bp_dtype dtype : {BP_FLOAT32, BP_BFLOAT16}) {
      bpcheck::Builder b(BP_OP_CONV, dtype, dtype, 11);
      auto spec = [](int rank, int64_t c_in, int64_t c_out, int32_t groups, int64_t extent, int64_t kernel,
                     bool bias, int64_t n = 1) {
        bpcheck::ConvSpec s;
        s.rank = rank, s.n = n, s.c_in = c_in, s.c_out = c_out, s.groups = groups, s.bias = bias;
        for (int i = 0; i < rank; ++i)
          s.in[i] = extent, s.kernel[i] = kernel, s.pad_begin[i] = s.pad_end[i] = kernel / 2;
        return s;
      };
      bpcheck::add_conv(b, spec(2, 8, 32, 1, 6, 3, true), "32 channels, two blocks");
      bpcheck::add_conv(b, spec(2, 5, 40, 1, 5, 3, false), "40 channels: 32 and 8");
      bpcheck::add_conv(b, spec(1, 3, 56, 1, 9, 3, true), "1-D, 56 channels");
      bpcheck::add_conv(b, spec(3, 2, 48, 1, 3, 1, true), "3-D pointwise, 48 channels");
      bpcheck::add_conv(b, spec(2, 64, 64, 32, 5, 3, true), "32 groups of 2");
      bpcheck::add_conv(b, spec(2, 48, 48, 48, 7, 3, false), "depthwise, 48 channels");
      bpcheck::add_conv(b, spec(2, 4, 8, 1, 5, 3, true), "8 channels: not split");
      bpcheck::add_conv(b, spec(2, 8, 40, 1, 4, 3, true, 3), "batch 3, weights larger than x, 40 channels");
      bpcheck::add_conv(b, spec(1, 6, 48, 1, 5, 3, false, 2), "1-D, batch 2, weights larger than x");
      bpcheck::add_conv(b, spec(2, 8, 32, 1, 12, 1, true, 3), "batch 3, x larger than the weights: batch slices");
      bpcheck::add_conv(b, spec(2, 64, 64, 2, 3, 3, true, 2), "batch 2, 2 groups: batch slices");
      for (const bpcheck::Case &c : b.cases) {
        INFO(threads << " threads, " << dtype_name(dtype) << ", " << c.label);
        const bpcheck::Outcome got = bpcheck::run_case(*p, 0, c), want = bpcheck::run_case(*r, 0, c);
        REQUIRE(want.ok);
        CHECK(bpcheck::judge(c, got, want) == "");
      }
    }
  }
}

// A weight gradient larger than x splits dw's output channels between the
// threads, each reading its channels of dy in place over the whole batch:
// even and uneven splits, a remainder block, 1- to 3-D, strides and
// dilations, float32 and bfloat16 (float32 dw), and problems left to the
// batch split (dw smaller than x, groups).
TEST_CASE("cpu: a weight gradient larger than x splits its output channels between the threads") {
  for (const char *threads : {"2", "3"}) {
    Comparison pair("cpu-openblas", Options{{"threads", threads}});
    const auto p = bpcheck::Plugin::borrow(pair.plugin.api()), r = bpcheck::Plugin::borrow(pair.ref.api());
    for (bp_dtype dtype : {BP_FLOAT32, BP_BFLOAT16}) {
      bpcheck::Builder b(BP_OP_CONV_WEIGHT_GRAD, dtype, dtype, 13);
      auto spec = [](int rank, int64_t n, int64_t c_in, int64_t c_out, int32_t groups, int64_t extent, int64_t kernel,
                     int64_t stride, int64_t dilation) {
        bpcheck::ConvSpec s;
        s.rank = rank, s.n = n, s.c_in = c_in, s.c_out = c_out, s.groups = groups, s.bias = false;
        for (int i = 0; i < rank; ++i)
          s.in[i] = extent, s.kernel[i] = kernel, s.stride[i] = stride, s.dilation[i] = dilation,
          s.pad_begin[i] = s.pad_end[i] = dilation * (kernel / 2);
        return s;
      };
      bpcheck::add_conv(b, spec(2, 3, 8, 32, 1, 4, 3, 1, 1), "32 channels, two blocks");
      bpcheck::add_conv(b, spec(2, 2, 6, 40, 1, 5, 3, 2, 1), "40 channels: 32 and 8, stride 2");
      bpcheck::add_conv(b, spec(2, 4, 5, 48, 1, 5, 3, 1, 2), "48 channels, dilation 2");
      bpcheck::add_conv(b, spec(1, 2, 8, 56, 1, 6, 3, 1, 1), "1-D, 56 channels");
      bpcheck::add_conv(b, spec(3, 2, 4, 48, 1, 3, 3, 1, 1), "3-D, 48 channels");
      bpcheck::add_conv(b, spec(2, 4, 8, 32, 1, 12, 1, 1, 1), "dw smaller than x: batch slices");
      bpcheck::add_conv(b, spec(2, 2, 64, 64, 2, 3, 3, 1, 1), "2 groups: batch slices");
      for (const bpcheck::Case &c : b.cases) {
        INFO(threads << " threads, " << dtype_name(dtype) << ", " << c.label);
        const bpcheck::Outcome got = bpcheck::run_case(*p, 0, c), want = bpcheck::run_case(*r, 0, c);
        REQUIRE(want.ok);
        CHECK(bpcheck::judge(c, got, want) == "");
      }
    }
  }
}

// oneDNN runs every convolution and pooling on the pool's threads, at one
// OpenMP thread each (conv_onednn.cpp's plan_for). A primitive built at
// OpenMP's default opened a team whenever it ran, and libgomp's workers
// are threads of their own that stay in the process: the process's threads
// (/proc/self/task) are counted once the plugin is started and again after
// the calls. The kit's float32 and bfloat16 cases take every path: batch
// slices, channel splits, a batch of one that does not split. Where the
// process may run on one core only, OpenMP's default team is that one
// thread: no team to open, so nothing to check.
TEST_CASE("cpu: convolutions and pooling open no OpenMP team beside the pool's threads") {
  if (std::thread::hardware_concurrency() < 2) return bp_test::skip("one core: OpenMP's default team is a single thread");
  auto threads_now = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/task"), std::filesystem::directory_iterator());
  };
  PluginHandle cpu("cpu-openblas", Options{{"threads", "2"}});
  const auto plugin = bpcheck::Plugin::borrow(cpu.api());
  const auto before = threads_now();
  int ran = 0;
  std::vector<bp_op> ops = ops_in(BP_OP_FAMILY_CONV);
  for (int32_t family : {BP_OP_FAMILY_POOL, BP_OP_FAMILY_POOL_GRAD})
    for (bp_op op : ops_in(family)) ops.push_back(op);
  for (bp_op op : ops)
    for (bp_dtype dtype : {BP_FLOAT32, BP_BFLOAT16}) {
      if (!supported(cpu, op, dtype, dtype, 0)) continue;
      for (const bpcheck::Case &c : bpcheck::make_cases(op, dtype, dtype, 5)) {
        INFO(op_name(op) << " " << dtype_name(dtype) << ", case " << c.label);
        REQUIRE(bpcheck::run_case(*plugin, 0, c).ok);
        ++ran;
      }
    }
  CHECK(ran > 20);
  CHECK(threads_now() == before);
}
