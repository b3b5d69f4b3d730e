// Looking up a handle argument of a C function, naming the function and the
// argument when it is no live tensor.
#pragma once

#include <string>

#include "backplane/backplane.h"
#include "errors/error.hpp"
#include "tensors/handle_table.hpp"

namespace bp::core {

inline const View &tensor_arg(const char *fn, bp_tensor h, const std::string &what) {
  const View *v = handles().get(h);
  if (!v)
    fail(BP_ERR_INVALID_HANDLE, std::string(fn) + ": " + what + " is " +
                                    (h == 0 ? "a null tensor handle" : "not a live tensor (released or never issued)"));
  return *v;
}

}  // namespace bp::core
