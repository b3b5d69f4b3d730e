// Scans, gathers, scatters and top-k of the CUDA plugin against the reference for
// every dtype and layout, through the shared comparisons
// (tests/support/family_checks.hpp).
#include "cuda_test.hpp"
#include "family_checks.hpp"

using namespace cuda_test;

namespace {

const ComparisonTest kTests[] = {
    {"cuda: scans match the reference for every dtype and layout", "[cuda][scan]", 71, check_scans},
    {"cuda: gathers of every index length match the reference for every dtype and layout", "[cuda][gather]", 72,
     check_gathers},
    {"cuda: scatters of every index length into known values match the reference for every dtype and layout",
     "[cuda][scatter]", 73, check_scatters},
    {"cuda: topk matches the reference bit for bit for every dtype, direction, k and layout", "[cuda][topk]", 74,
     check_topks},
};
const ComparisonTests kRegistered(kTests, run_on_cuda);

}  // namespace
