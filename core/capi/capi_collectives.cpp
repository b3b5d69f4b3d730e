// Collectives across the devices of this process (comm/in_process.cpp):
// handles in, handles out, and the autograd rules for the in-place ones.
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "comm/in_process.hpp"
#include "errors/error.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;

namespace {

// The participants' views (valid while the call runs: guarded() pins them),
// named by index on failure; a handle given twice would make an in-place
// collective read what it already wrote.
std::vector<const View *> participants(const char *fn, const bp_tensor *tensors, int32_t count, const char *what) {
  if (!tensors) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + " is NULL");
  if (count < 1) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": count is " + std::to_string(count) + "; it must be at least 1");
  std::vector<const View *> views;
  views.reserve(size_t(count));
  for (int32_t i = 0; i < count; ++i) {
    const View *v = handles().get(tensors[i]);
    if (!v) {
      Error e(BP_ERR_INVALID_HANDLE, std::string(fn) + ": " + what + "[" + std::to_string(i) + "] is " +
                                         (tensors[i] == 0 ? "a null tensor handle"
                                                          : "not a live tensor (released or never issued)"));
      e.input = i;
      throw e;
    }
    for (int32_t j = 0; j < i; ++j)
      if (tensors[j] == tensors[i])
        fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + "[" + std::to_string(j) + "] and [" +
                                          std::to_string(i) + "] are the same tensor; give each participant its own");
    views.push_back(v);
  }
  return views;
}

// Copies of the views for the collective (a copy carries no autograd link:
// the checks below read the handles' own views).
std::vector<View> copies(const std::vector<const View *> &views) {
  std::vector<View> out;
  for (const View *v : views) out.push_back(*v);
  return out;
}

// An in-place collective on the tensors: a write into each (autograd.h's
// rules for _out functions), refused before any is written.
template <class Run>
void in_place(const char *fn, const bp_tensor *tensors, int32_t count, Run &&run) {
  const std::vector<const View *> views = participants(fn, tensors, count, "tensors");
  for (const View *v : views) autograd::before_write(fn, *v, {});
  run(copies(views));
  for (const View *v : views) autograd::wrote(*v);
}

// Hands out one handle per view, all or none.
void emit_all(const char *fn, std::vector<View> &&views, bp_tensor *outputs) {
  if (!outputs) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": outputs is NULL");
  std::vector<bp_tensor> made;
  try {
    for (View &v : views) made.push_back(handles().insert(std::move(v)));
  } catch (...) {
    for (bp_tensor h : made) handles().release(h);
    throw;
  }
  std::copy(made.begin(), made.end(), outputs);
}

// Runs body as C function fn (bp_all_reduce): messages the collective
// raised as "all_reduce: ..." name the function the caller called.
template <class Body>
bp_status collective(const char *fn, Body &&body) {
  return guarded([&] { as_function(fn, {fn + 3}, body); });
}

}  // namespace

extern "C" {

bp_status bp_all_reduce(const bp_tensor *tensors, int32_t count, int32_t reduce_op) {
  return collective("bp_all_reduce", [&] {
    in_place("bp_all_reduce", tensors, count,
             [&](const std::vector<View> &views) { collectives::all_reduce(views, reduce_op); });
  });
}

bp_status bp_broadcast(const bp_tensor *tensors, int32_t count, int32_t root) {
  return collective("bp_broadcast", [&] {
    in_place("bp_broadcast", tensors, count,
             [&](const std::vector<View> &views) { collectives::broadcast(views, root); });
  });
}

bp_status bp_all_gather(const bp_tensor *inputs, int32_t count, bp_tensor *outputs) {
  return collective("bp_all_gather", [&] {
    if (!outputs) fail(BP_ERR_INVALID_ARGUMENT, "bp_all_gather: outputs is NULL");
    emit_all("bp_all_gather", collectives::all_gather(copies(participants("bp_all_gather", inputs, count, "inputs"))),
             outputs);
  });
}

bp_status bp_reduce_scatter(const bp_tensor *inputs, int32_t count, int32_t reduce_op, bp_tensor *outputs) {
  return collective("bp_reduce_scatter", [&] {
    if (!outputs) fail(BP_ERR_INVALID_ARGUMENT, "bp_reduce_scatter: outputs is NULL");
    emit_all("bp_reduce_scatter",
             collectives::reduce_scatter(copies(participants("bp_reduce_scatter", inputs, count, "inputs")), reduce_op),
             outputs);
  });
}

}  // extern "C"
