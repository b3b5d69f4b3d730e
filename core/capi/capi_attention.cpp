// bp_attention: handles and the options struct read here (as far as the
// caller's struct_size reaches); the work is in composites/attention.cpp.
#include <algorithm>
#include <cstring>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/sized_struct.hpp"
#include "capi/tensor_arg.hpp"
#include "composites/attention.hpp"

using namespace bp::core;

extern "C" {

bp_status bp_attention(bp_tensor q, bp_tensor k, bp_tensor v, const bp_attention_options *options,
                       bp_tensor *out) {
  const char *fn = "bp_attention";
  return guarded([&] {
    as_function(fn, {"attention"}, [&] {
      bp_tensor &o = require(out, fn, "out");
      bp_attention_options given;
      std::memset(&given, 0, sizeof given);
      if (options) {
        check_struct_size(options->struct_size, BP_ATTENTION_OPTIONS_SIZE_1_6, fn);
        std::memcpy(&given, options, std::min<size_t>(options->struct_size, sizeof given));
      }
      AttentionOptions resolved;
      resolved.mask = given.mask ? &tensor_arg(fn, given.mask, "the mask") : nullptr;
      resolved.causal = given.causal != 0;
      resolved.scale = given.scale;
      resolved.dropout = given.dropout;
      resolved.seed = given.seed;
      o = handles().insert(attention(tensor_arg(fn, q, "q"), tensor_arg(fn, k, "k"), tensor_arg(fn, v, "v"),
                                     resolved));
    });
  });
}

}  // extern "C"
