// What every C++ backend needs at its ABI boundary, written once: an
// exception that carries a bp_status, the calling thread's last-error
// message, the guard that turns exceptions into statuses (nothing C++ crosses
// the ABI), and the switch from a runtime dtype to a template instance.
// Header-only: each plugin .so gets its own copy (symbols stay hidden).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

#include "backplane/plugin.h"
#include "backplane/types.h"
#include "backplane_kernels/elementwise.hpp"

namespace bp_plugin {

class Error : public std::runtime_error {
 public:
  Error(bp_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
  bp_status status() const { return status_; }

 private:
  bp_status status_;
};

// Throws Error(status, printf-style message).
[[noreturn]] inline void fail(bp_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
inline void fail(bp_status status, const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  throw Error(status, message);
}

// The calling thread's last error (what the plugin's last_error() returns).
// A plain array: recording an error allocates nothing and leaves no TLS
// destructor to run at thread exit.
inline char *last_error_buffer() {
  thread_local char message[1024];
  return message;
}
inline const char *last_error_message() { return last_error_buffer(); }
inline void set_last_error_message(const char *message) {
  std::snprintf(last_error_buffer(), 1024, "%s", message);
}

// Runs an ABI entry's body; every exception becomes a status and a message
// prefixed with the backend's name. Inlined into each entry: with
// table-driven exceptions the success path pays nothing for the try.
template <class Body>
__attribute__((always_inline)) inline bp_status guarded(const char *backend, Body &&body) noexcept {
  char message[512];
  try {
    body();
    return BP_OK;
  } catch (const Error &e) {
    set_last_error_message(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    std::snprintf(message, sizeof message, "%s: out of host memory (a temporary allocation failed)",
                  backend);
    set_last_error_message(message);
    return BP_ERR_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    std::snprintf(message, sizeof message, "%s: internal error: %s", backend, e.what());
    set_last_error_message(message);
    return BP_ERR_INTERNAL;
  } catch (...) {
    std::snprintf(message, sizeof message, "%s: internal error: unknown exception", backend);
    set_last_error_message(message);
    return BP_ERR_INTERNAL;
  }
}

// The attributes an operator reads; fields past the caller's struct_size
// read as 0 (an older core sends a shorter bp_op_attrs).
struct Attrs {
  int32_t scalar_mode = BP_SCALAR_NONE;
  double scalar = 0, scalar2 = 0;
  uint64_t seed = 0;
};

// `op` names the operator in the error for a NULL attrs.
inline Attrs read_attrs(const bp_op_attrs *a, const char *op) {
  if (!a) fail(BP_ERR_INVALID_ARGUMENT, "%s: attrs is NULL", op);
  auto fits = [a](size_t offset, size_t size) { return a->struct_size >= offset + size; };
  Attrs r;
  if (fits(offsetof(bp_op_attrs, scalar_mode), sizeof a->scalar_mode)) r.scalar_mode = a->scalar_mode;
  if (fits(offsetof(bp_op_attrs, scalar), sizeof a->scalar)) r.scalar = a->scalar;
  if (fits(offsetof(bp_op_attrs, scalar2), sizeof a->scalar2)) r.scalar2 = a->scalar2;
  if (fits(offsetof(bp_op_attrs, seed), sizeof a->seed)) r.seed = a->seed;
  return r;
}

using bp_kernels::boolean;

// C++ element type <-> bp_dtype.
template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr int32_t value = BP_FLOAT32;
};
template <>
struct dtype_of<double> {
  static constexpr int32_t value = BP_FLOAT64;
};
template <>
struct dtype_of<int32_t> {
  static constexpr int32_t value = BP_INT32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr int32_t value = BP_INT64;
};
template <>
struct dtype_of<boolean> {
  static constexpr int32_t value = BP_BOOL;
};

// Bytes per element; 0 for an invalid dtype.
inline int64_t dtype_size(int32_t dtype) {
  static constexpr int64_t kSizes[] = {0, 4, 8, 4, 8, 1};
  return static_cast<uint32_t>(dtype) < 6u ? kSizes[dtype] : 0;
}

// "float32", ...; "invalid" for anything else.
inline const char *dtype_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float32";
    case BP_FLOAT64: return "float64";
    case BP_INT32: return "int32";
    case BP_INT64: return "int64";
    case BP_BOOL: return "bool";
    default: return "invalid";
  }
}

// "add", ...; "unknown" for anything else.
inline const char *op_name(int32_t op) {
  switch (op) {
    case BP_OP_ADD: return "add";
    case BP_OP_SUB: return "sub";
    case BP_OP_MUL: return "mul";
    case BP_OP_DIV: return "div";
    case BP_OP_POW: return "pow";
    case BP_OP_MAXIMUM: return "maximum";
    case BP_OP_MINIMUM: return "minimum";
    case BP_OP_EQ: return "eq";
    case BP_OP_NE: return "ne";
    case BP_OP_LT: return "lt";
    case BP_OP_LE: return "le";
    case BP_OP_GT: return "gt";
    case BP_OP_GE: return "ge";
    case BP_OP_WHERE: return "where";
    case BP_OP_NEG: return "neg";
    case BP_OP_ABS: return "abs";
    case BP_OP_EXP: return "exp";
    case BP_OP_LOG: return "log";
    case BP_OP_SQRT: return "sqrt";
    case BP_OP_TANH: return "tanh";
    case BP_OP_SIGMOID: return "sigmoid";
    case BP_OP_RELU: return "relu";
    case BP_OP_SUM: return "sum";
    case BP_OP_MEAN: return "mean";
    case BP_OP_MAX: return "max";
    case BP_OP_MIN: return "min";
    case BP_OP_ARGMAX: return "argmax";
    case BP_OP_NORM: return "norm";
    case BP_OP_MATMUL: return "matmul";
    case BP_OP_COPY: return "copy";
    case BP_OP_FILL: return "fill";
    case BP_OP_ARANGE: return "arange";
    case BP_OP_RANDOM_UNIFORM: return "random_uniform";
    case BP_OP_RANDOM_NORMAL: return "random_normal";
    default: return "unknown";
  }
}

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the T among Ts whose dtype is `dtype`. Callers
// have validated the dtype against their operator table, so no match is a
// bug in the plugin.
template <class... Ts, class F>
void dispatch(int32_t dtype, F &&f) {
  const bool found = ((dtype == dtype_of<Ts>::value ? (f(type_tag<Ts>{}), true) : false) || ...);
  if (!found) fail(BP_ERR_INTERNAL, "no kernel for dtype %d (validation missed it)", dtype);
}

}  // namespace bp_plugin

// Type lists for dispatch<...>: the dtype groups of the operator table.
#define BP_FLOAT_TYPES float, double
#define BP_NUMERIC_TYPES float, double, int32_t, int64_t
#define BP_ALL_TYPES float, double, int32_t, int64_t, boolean
