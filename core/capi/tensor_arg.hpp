// Looking up a handle argument of a C function, naming the function and the
// argument when it is no live tensor, and handing a made tensor back.
#pragma once

#include <initializer_list>
#include <string>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
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

// Runs make() as the C function fn (as_function: the core's messages then
// name fn, not the internal names) and hands its tensor to *out.
template <class Make>
bp_status made(const char *fn, std::initializer_list<const char *> internal, bp_tensor *out, Make &&make) {
  return guarded([&] {
    as_function(fn, internal, [&] {
      bp_tensor &o = require(out, fn, "out");
      o = handles().insert(make());
    });
  });
}

}  // namespace bp::core
