// Collectives across the devices of this process (backplane/collectives.h):
// run by the backend's collective entry when every tensor is on a distinct
// device of one backend that has it, else staged through host memory here.
// Callers (capi/capi_collectives.cpp) look up the handles and check the
// autograd write rules; everything else is checked here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensors/view.hpp"

namespace bp::core {
class Backend;
}

namespace bp::core::collectives {

// In place: every tensor becomes the reduction of all of them.
void all_reduce(const std::vector<View> &tensors, int32_t reduce_op);
// In place: every tensor becomes a copy of tensors[root].
void broadcast(const std::vector<View> &tensors, int32_t root);
// New tensors of shape [n, S...], one on each input's device.
std::vector<View> all_gather(const std::vector<View> &inputs);
// Inputs of shape [n, S...]; new tensors of shape S, one on each input's device.
std::vector<View> reduce_scatter(const std::vector<View> &inputs, int32_t reduce_op);

// The shared checks, also used across processes (agreement.cpp): a
// reduce_op that is a BP_REDUCE_* defined for dtype, else Error naming fn.
void check_reduce_op(const char *fn, int32_t reduce_op, int32_t dtype);
// Why a plugin's collective entry must not see dtype: the plugin was built
// against an ABI minor older than the dtype (its number means nothing to
// it, plugin.h); empty when it may. The core stages such a call instead.
std::string unknown_to(const Backend &b, int32_t dtype);
// Reduces `n` host arrays of `count` elements of dtype, laid end to end in
// `parts`, into `out` (count elements), as collectives.h defines the
// reduction: floats summed in participant order; float16 and bfloat16
// summed (and divided) in float32 and rounded once.
void reduce_host(int32_t dtype, int32_t reduce_op, const void *parts, int64_t n, int64_t count, void *out);

}  // namespace bp::core::collectives
