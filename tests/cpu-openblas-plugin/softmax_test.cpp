// SOFTMAX and LOG_SOFTMAX against the reference for every float dtype, layout
// and special row, through the shared comparisons
// (tests/support/softmax_checks.hpp), and the row kernel this CPU picked.
#include "cpu_vs_reference.hpp"
#include "softmax_checks.hpp"

using namespace cpu_test;

namespace {

const ComparisonTest kTests[] = {
    {"softmax and log_softmax match the reference for every dtype, layout and special row", "[softmax]", 67,
     check_softmax},
};
const ComparisonTests kRegistered(kTests, run_on_cpu);

}  // namespace

TEST_CASE("the device names its softmax row kernel", "[softmax][properties]") {
  Pair pair;
  const std::string path = device_property(pair.cpu, "softmax_path");
  INFO("softmax_path = " << path);
  CHECK((path.rfind("avx512f", 0) == 0 || path.rfind("avx2+fma", 0) == 0 || path.rfind("scalar", 0) == 0));
}
