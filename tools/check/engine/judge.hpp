// Judging what a plugin wrote: sentinel bytes around its output, inputs
// left alone, and every output element against the reference's within the
// tolerance of the op and dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "case_runner.hpp"
#include "tolerances.hpp"

namespace bpcheck {

// "" when the storage of output `which` (output_at) has its sentinel bytes
// intact, else what was overwritten ("wrote past the end of its output
// (sentinel ...)").
std::string check_sentinels(const Case &c, const std::vector<uint8_t> &output_storage, size_t which = 0);
// "" when no input storage (other than the outputs') changed.
std::string check_inputs_untouched(const Case &c, const std::vector<std::vector<uint8_t>> &after);
// "" when the elements of output `which` agree with the reference's (or
// whose else `expected` is), within the tolerance of the op and dtype;
// where plugin.h leaves an element of output 0 open for the plugin under
// test (rules.hpp), every allowed answer. Accumulation scales are output
// 0's; the other outputs of a family that writes several compare with the
// op's tolerance alone. With `bound` (a test's named bound, the second part
// of the tolerance table), float elements are judged by within_bound
// instead of the op's class: the build's own tests hold their plugins to
// it, tighter than the class where both sides are known code, and looser
// only where a test says why (tolerances.cpp).
std::string compare_outputs(const Case &c, const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected,
                            const char *whose = "the reference", size_t which = 0, const Bound *bound = nullptr);

// Whether every backend must give the reference's very bits (NaN payloads
// aside) for `op` on `dtype`: integer and bool results always, float ones
// for the operators compare_outputs judges without a tolerance.
bool exact_result(int32_t op, int32_t dtype);

// The full verdict for one case, every output judged: "" or the failure
// text (naming the output when the family writes several).
std::string judge(const Case &c, const Outcome &got, const Outcome &expected);

}  // namespace bpcheck
