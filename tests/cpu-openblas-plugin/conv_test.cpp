// The convolutions (oneDNN where it is built in and takes the problem,
// im2col + OpenBLAS otherwise) against the reference on the kit's cases,
// on one thread and on several.
#include "conv_check.hpp"

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
