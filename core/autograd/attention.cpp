// The fused ATTENTION operator in the recording layer. It records no
// gradient, so it runs only where none is wanted; otherwise bp_attention's
// composite (composites/attention.cpp) runs, operator by operator, and
// records each.
#include "autograd/functions.hpp"
#include "autograd/meta.hpp"
#include "dispatch/operators.hpp"

namespace bp::core::autograd {

std::optional<View> fused_attention(const View &q, const View &k, const View &v, const View *mask,
                                    double scale, bool causal) {
  if (mask ? any_requires_grad({&q, &k, &v, mask}) : any_requires_grad({&q, &k, &v})) return std::nullopt;
  if (!dispatch::attention_offered(q)) return std::nullopt;
  return dispatch::attention(q, k, v, mask, scale, causal);
}

}  // namespace bp::core::autograd
