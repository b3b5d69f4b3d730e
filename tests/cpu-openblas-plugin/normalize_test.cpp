// VAR and the NORMALIZE family (LAYER_NORM, RMS_NORM) against the reference
// on every case the kit builds for them (tests/support/kit_cases.hpp): every
// float dtype, weight, bias and statistics absent or present, strided and in
// place, empty and constant rows, rows far from 0, long rows and many rows
// (the thread pool's split), special values; the same with two threads,
// whose split of the rows must not change a bit; and outputs large enough
// for the streaming stores.
#include "cpu_vs_reference.hpp"
#include "kit_cases.hpp"

using namespace cpu_test;

TEST_CASE("var, layer_norm and rms_norm match the reference on the kit's cases", "[normalize]") {
  Pair pair;
  for (bp_op op : {BP_OP_VAR, BP_OP_LAYER_NORM, BP_OP_RMS_NORM})
    for (bp_dtype dtype : kFloatTypes) check_kit_cases(pair.cpu, 0, pair.ref, op, dtype, dtype);
}

TEST_CASE("layer_norm and rms_norm give the same bits on one thread and on two", "[normalize][threads]") {
  PluginHandle one("cpu-openblas", {{"threads", "1"}}), two("cpu-openblas", {{"threads", "2"}});
  const auto p1 = bpcheck::Plugin::borrow(one.api()), p2 = bpcheck::Plugin::borrow(two.api());
  for (bp_op op : {BP_OP_LAYER_NORM, BP_OP_RMS_NORM})
    for (bp_dtype dtype : kFloatTypes) {
      // 256 rows of 300: enough work for the pool to split the rows.
      const bpcheck::Case c = bpcheck::make_small_cases(op, dtype, dtype, 5, {{256, 300}}).front();
      INFO(op_name(op) << " " << dtype_name(dtype));
      const bpcheck::Outcome a = bpcheck::run_case(*p1, 0, c), b = bpcheck::run_case(*p2, 0, c);
      REQUIRE(a.ok);
      REQUIRE(b.ok);
      CHECK(a.storages == b.storages);
    }
}

TEST_CASE("layer_norm and rms_norm outputs of 8 MiB and more (streaming stores) match the reference", "[normalize]") {
  Pair pair;
  const auto cpu = bpcheck::Plugin::borrow(pair.cpu.api()), ref = bpcheck::Plugin::borrow(pair.ref.api());
  struct Big {
    bp_op op;
    bp_dtype dtype;
    std::vector<int64_t> shape;
  };
  // 8 MiB of output each; the last has rows that end in a tail of scalar stores.
  for (const Big &b : {Big{BP_OP_LAYER_NORM, BP_FLOAT32, {2048, 1024}}, Big{BP_OP_RMS_NORM, BP_FLOAT64, {1024, 1024}},
                       Big{BP_OP_LAYER_NORM, BP_FLOAT32, {1049, 2001}}}) {
    const bpcheck::Case c = bpcheck::make_small_cases(b.op, b.dtype, b.dtype, 7, {b.shape}).front();
    INFO(op_name(b.op) << " " << dtype_name(b.dtype) << " " << c.label);
    const bpcheck::Outcome want = bpcheck::run_case(*ref, 0, c), got = bpcheck::run_case(*cpu, 0, c);
    REQUIRE(want.ok);
    const std::string verdict = bpcheck::judge(c, got, want);
    INFO(verdict);
    CHECK(verdict.empty());
  }
}

// The row loop's copy is the widest this CPU runs: each gives the same bits
// (the cases above), so only the property says which one ran.
TEST_CASE("the device names the normalisation row loop this CPU runs", "[normalize][properties]") {
  Pair pair;
  const std::string path = device_property(pair.cpu, "norm_path");
  INFO("norm_path = " << path);
#if defined(__x86_64__) || defined(__i386__)
  const char *want = __builtin_cpu_supports("avx512f") ? "avx512f"
                     : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") ? "avx2"
                                                                                          : "baseline";
  CHECK(path == want);
#else
  CHECK(path == "baseline");
#endif
}
