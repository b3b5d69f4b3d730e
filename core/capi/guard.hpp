// The C API boundary: every exported function runs its body through
// guarded(), so no C++ exception ever crosses the ABI; each becomes a status
// and the calling thread's error record.
#pragma once

#include <new>

#include "errors/error.hpp"

namespace bp::core {

template <class Body>
bp_status guarded(Body &&body) noexcept {
  try {
    body();
    return BP_OK;
  } catch (...) {
    return record_current_exception();
  }
}

template <class T>
T &require(T *p, const char *fn, const char *arg) {
  if (!p) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + arg + " is NULL");
  return *p;
}

}  // namespace bp::core
