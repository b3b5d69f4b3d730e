// The plugin suites' runs of the shared comparisons (family_checks.hpp,
// softmax_checks.hpp) as a table: each row is registered as a Catch2 test
// case of its own name and tags, as a TEST_CASE of them would be, so ctest
// finds the same tests; the suite says how a row runs on its plugin.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <random>

#include "plugin_harness.hpp"

namespace bp_test {

// One shared comparison of a plugin's device with the reference.
using SharedCheck = void (*)(const PluginHandle &plugin, int32_t device, const PluginHandle &ref,
                             std::mt19937_64 &rng);

struct ComparisonTest {
  const char *name;
  const char *tags;
  uint64_t seed;
  SharedCheck check;
};

// Registers its rows, each run by `run`, when constructed (at static
// initialisation, like TEST_CASE): `const ComparisonTests kRegistered(kTests, run);`.
class ComparisonTests {
 public:
  using Run = void (*)(const ComparisonTest &);
  template <size_t N>
  ComparisonTests(const ComparisonTest (&rows)[N], Run run) {
    for (const ComparisonTest &row : rows)
      Catch::AutoReg(new Invoker(row, run), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                     Catch::NameAndTags{row.name, row.tags});
  }

 private:
  class Invoker : public Catch::ITestInvoker {
   public:
    Invoker(const ComparisonTest &row, Run run) : row_(row), run_(run) {}
    void invoke() const override { run_(row_); }

   private:
    const ComparisonTest &row_;
    Run run_;
  };
};

}  // namespace bp_test
