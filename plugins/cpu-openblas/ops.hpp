// The capability table: exactly which (op, dtype, out_dtype) triples this
// backend implements. supports() and execute() both read it, so what is
// declared is what runs.
#pragma once

#include "backplane/plugin_sdk.hpp"

namespace cpu_backend {

// Every operator of the vocabulary for every dtype the ABI defines it for
// (built in ops.cpp).
extern const bp_plugin::Capabilities kCapabilities;

inline bool op_supports(int32_t op, int32_t dtype, int32_t out_dtype) {
  return kCapabilities.supports(op, dtype, out_dtype);
}

}  // namespace cpu_backend
