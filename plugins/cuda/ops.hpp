// The capability table: exactly which (op, dtype, out_dtype) triples this
// backend implements, derived from the vocabulary. supports() and execute()
// both read it, so what is declared is what runs.
#pragma once

#include <cstdint>
#include <string>

#include "backplane/plugin_sdk.hpp"

namespace bp_cuda {

// Every operator of the vocabulary for every dtype the ABI defines it for.
extern const bp_plugin::Capabilities kCapabilities;

inline bool op_supports(int32_t op, int32_t dtype, int32_t out_dtype) {
  return kCapabilities.supports(op, dtype, out_dtype);
}

// How messages name a kernel: "add (float32)".
std::string kernel_name(int32_t op, int32_t dtype);

}  // namespace bp_cuda
