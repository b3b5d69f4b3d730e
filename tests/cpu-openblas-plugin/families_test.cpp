// Scans, gathers, scatters and top-k against the reference for every dtype and
// layout, through the shared comparisons (tests/support/family_checks.hpp).
#include "cpu_vs_reference.hpp"
#include "family_checks.hpp"

using namespace cpu_test;

namespace {

const ComparisonTest kTests[] = {
    {"scans match the reference for every dtype and layout", "[scan]", 61, check_scans},
    {"gathers of every index length match the reference for every dtype and layout", "[gather]", 62, check_gathers},
    {"scatters of every index length into known values match the reference for every dtype and layout",
     "[scatter][sweep]", 63, check_scatters},
    {"topk matches the reference bit for bit for every dtype, direction, k and layout", "[topk]", 64, check_topks},
};
const ComparisonTests kRegistered(kTests, run_on_cpu);

}  // namespace
