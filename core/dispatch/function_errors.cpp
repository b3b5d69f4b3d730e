#include "dispatch/function_errors.hpp"

#include "errors/error.hpp"

namespace bp::core {

void function_fail(const char *fn, bp_status status, const std::string &what) {
  Error e(status, std::string(fn) + ": " + what);
  e.op = fn;
  throw e;
}

int32_t function_axis(const char *fn, int32_t axis, int32_t rank) {
  const int32_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    function_fail(fn, BP_ERR_SHAPE, "axis " + std::to_string(axis) + " is out of range for " +
                                        std::to_string(rank) + " dimensions");
  return a;
}

}  // namespace bp::core
