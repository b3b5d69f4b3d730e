// SOFTMAX and LOG_SOFTMAX of the CUDA plugin (softmax.cu: a warp per row up
// to 1024 elements, a block per row past that) against the reference for
// every float dtype, layout and special row, through the shared comparisons
// (tests/support/softmax_checks.hpp).
#include "cuda_test.hpp"
#include "softmax_checks.hpp"

using namespace cuda_test;

namespace {

const ComparisonTest kTests[] = {
    {"cuda: softmax and log_softmax match the reference for every dtype, layout and special row", "[cuda][softmax]",
     77, check_softmax},
};
const ComparisonTests kRegistered(kTests, run_on_cuda);

}  // namespace
