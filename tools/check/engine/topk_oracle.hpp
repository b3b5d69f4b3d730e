// TOPK's results as the kit computes them itself (ABI 1.6): plugin.h fixes
// every bit of both outputs (the order, stable in both directions, NaN
// after every number, -0 tied with +0), so the kit holds every plugin, the
// reference too, to its own std::stable_sort of each row.
#pragma once

#include <cstdint>
#include <vector>

#include "case.hpp"

namespace bpcheck {

// -1, 0 or 1: element a before, tied with, or after element b (both of
// `dtype`, as stored) in plugin.h's ascending order.
int topk_order(int32_t dtype, const uint8_t *a, const uint8_t *b);

// Every storage of a TOPK case as plugin.h says it must be after the call:
// the initial bytes (sentinels) with both outputs written.
std::vector<std::vector<uint8_t>> topk_result(const Case &c);

// Why a TOPK result differs from topk_result's, for a failure message: ""
// when its indices agree, else which rule the first differing position
// breaks ("a tie ...", "NaN ...", "out of order").
std::string topk_diagnosis(const Case &c, const std::vector<uint8_t> &got_indices,
                           const std::vector<uint8_t> &expected_indices);

}  // namespace bpcheck
