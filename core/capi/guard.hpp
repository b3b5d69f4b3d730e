// The C API boundary: every exported function runs its body through
// guarded(), so no C++ exception ever crosses the ABI; each becomes a status
// and the calling thread's error record. The body runs pinned
// (tensors/reclamation.hpp): a view it looks up stays valid until it returns,
// whatever other threads release meanwhile.
#pragma once

#include <new>

#include "errors/error.hpp"
#include "tensors/reclamation.hpp"

namespace bp::core {

template <class Body>
bp_status guarded(Body &&body) noexcept {
  try {
    reclamation::Pin pin;
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
