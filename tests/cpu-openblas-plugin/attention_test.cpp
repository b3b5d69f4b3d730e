// ATTENTION of cpu-openblas (flash-style tiles, attention.cpp) against the
// reference in every float dtype, through the kit's cases and judge
// (tests/support/attention_checks.hpp) with two threads, the same bits
// with one (its tasks are query blocks of batch elements: the thread count
// changes nothing but who computes which block), and the device property
// that names its path.
#include "attention_checks.hpp"
#include "cpu_vs_reference.hpp"

using namespace cpu_test;

TEST_CASE("attention matches the reference in every float dtype, masks, causal, scales and layouts", "[attention]") {
  Pair pair(Options{{"threads", "2"}});
  CHECK(check_attention(pair.cpu, 0, pair.ref, 40) == 4);
}

TEST_CASE("attention's results do not depend on the thread count", "[attention]") {
  std::vector<Bytes> results;
  for (const char *threads : {"1", "2"}) {
    Pair pair(Options{{"threads", threads}});
    const auto kit = bpcheck::Plugin::borrow(pair.cpu.api());
    bpcheck::Builder b(BP_OP_ATTENTION, BP_FLOAT32, BP_FLOAT32, 5);
    bpcheck::AttentionSpec s;
    s.batch = {3, 2}, s.lq = 150, s.lk = 190, s.d = 32, s.dv = 40, s.causal = true;
    s.mask = bpcheck::AttentionMask::keys;
    bpcheck::Case &c = b.start("threads");
    bpcheck::add_attention(b, c, s);
    const bpcheck::Outcome got = bpcheck::run_case(*kit, 0, c);
    REQUIRE(got.ok);
    results.push_back(got.storages[size_t(c.output.storage)]);
  }
  CHECK(results[0] == results[1]);
}

TEST_CASE("the device properties name the attention path", "[attention]") {
  Pair pair;
  CHECK(device_property(pair.cpu, "attention_path").rfind("flash-style tiles", 0) == 0);
}
