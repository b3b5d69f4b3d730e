// The C API boundary: every exported function runs its body through
// guarded(), so no C++ exception ever crosses the ABI; each becomes a status
// and the calling thread's error record. The body runs pinned
// (tensors/reclamation.hpp): a view it looks up stays valid until it returns,
// whatever other threads release meanwhile.
#pragma once

#include <initializer_list>
#include <new>
#include <string>

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

// Runs body as the C function `fn`: an error's message then starts with
// "fn: ", replacing the internal name ("copy: ", "bp_full: ") the code that
// raised it used, so the message names the function the caller called.
template <class Body>
void as_function(const char *fn, std::initializer_list<const char *> internal_names, Body &&body) {
  try {
    body();
  } catch (const Error &e) {
    std::string m = e.what();
    const std::string own = std::string(fn) + ": ";
    if (m.compare(0, own.size(), own) != 0) {
      for (const char *name : internal_names) {
        const std::string prefix = std::string(name) + ": ";
        if (m.compare(0, prefix.size(), prefix) == 0) {
          m.erase(0, prefix.size());
          break;
        }
      }
      m = own + m;
    }
    Error renamed(e.status(), m);
    renamed.op = e.op;
    renamed.input = e.input;
    renamed.devices = e.devices;
    throw renamed;
  }
}

template <class T>
T &require(T *p, const char *fn, const char *arg) {
  if (!p) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + arg + " is NULL");
  return *p;
}

}  // namespace bp::core
