// The errors of functions made of operators (concatenate, the composites):
// named after the function the caller called, not the operators it runs.
#pragma once

#include <cstdint>
#include <string>

#include "backplane/backplane.h"

namespace bp::core {

// Error(status, "fn: what") whose op is fn.
[[noreturn]] void function_fail(const char *fn, bp_status status, const std::string &what);

// axis, counted from the end when negative, for a tensor of `rank`
// dimensions; else BP_ERR_SHAPE naming fn.
int32_t function_axis(const char *fn, int32_t axis, int32_t rank);

}  // namespace bp::core
