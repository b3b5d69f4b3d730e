// Results the kit computes itself, for the operators whose every bit
// plugin.h fixes by a rule: COPY between dtypes, FILL, ARANGE and
// RANDOM_UNIFORM, where a dtype of ABI 1.4 (float16, bfloat16, int8, uint8,
// int16) is involved. Conversions into float16 and bfloat16 are
// backplane/half.h's. The numerics group holds every plugin to these, the
// reference too: comparing with the reference alone would let the oracle's
// own rounding go unchecked.
#pragma once

#include <cstdint>
#include <vector>

#include "case.hpp"

namespace bpcheck {

// Whether host_result knows the case's result.
bool has_host_result(const Case &c);
// The case's output storage as plugin.h says it must be after the call:
// its initial bytes (sentinels) with every output element written.
std::vector<uint8_t> host_result(const Case &c);

}  // namespace bpcheck
