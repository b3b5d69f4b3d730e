#include "ops.hpp"

namespace cpu_backend {

// The kernels cover the whole vocabulary: each family's kernel is templated
// over every dtype its operators are defined for.
const bp_plugin::Capabilities kCapabilities = bp_plugin::Capabilities::everything_except();

}  // namespace cpu_backend
