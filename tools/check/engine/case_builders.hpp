// The test cases of each operator family: shapes, layouts (broadcast,
// transposed, strided, in place), scalar operands, special values and
// large tensors. Families come from the vocabulary: an operator the lists
// gain gets the cases of its family.
#pragma once

#include <cstdint>
#include <vector>

#include "case.hpp"

namespace bpcheck {

// Every test case for one declared combination (L2).
std::vector<Case> make_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed);
// A few ordinary (non-special) cases: for threads and queues (L4).
std::vector<Case> make_small_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed,
                                   const std::vector<std::vector<int64_t>> &shapes);
// Two shapes for make_small_cases, a small and a larger one, that suit the op.
std::vector<std::vector<int64_t>> small_shapes_for(int32_t op);

// A case whose output is its input 0 (x = op(x, y), x = op(x)): binary
// and unary ops with out_dtype == dtype only; also COPY.
bool can_chain(int32_t op, int32_t dtype, int32_t out_dtype);
Case make_chain_case(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed, const std::vector<int64_t> &shape);

}  // namespace bpcheck
