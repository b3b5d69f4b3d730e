// backplane/plugin_sdk.hpp — boundary code every C++ backend needs (since
// 1.1): an exception that carries a bp_status, the calling thread's
// last-error message, the guard that turns exceptions into statuses (nothing
// C++ crosses the ABI), the attribute reader, the switch from a runtime dtype
// to a template instance, a capability table derived from the vocabulary,
// and the argument validation of execute() and collective() (plugin_sdk.h);
// since 1.4 the switch over a dtype set of the vocabulary (dispatch_set)
// and the support check of fused programs. live_buffers.hpp and
// unique_handle.hpp (backplane/sdk/) hold the rest of the C++ SDK.
//
// Header-only C++17; each plugin .so gets its own copy, and with hidden
// visibility none of it is exported. CMake: target backplane::plugin_sdk.
#pragma once

#include <bitset>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>

#include "backplane/half.h"
#include "backplane/plugin.h"
#include "backplane/plugin_sdk.h"

namespace bp_plugin {

// ---- errors ----------------------------------------------------------------

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
  char message[BP_SDK_MESSAGE_CAPACITY];
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
  thread_local char message[BP_SDK_MESSAGE_CAPACITY] = "no call has failed on this thread";
  return message;
}
inline const char *last_error_message() { return last_error_buffer(); }
inline void set_last_error_message(const char *message) {
  std::snprintf(last_error_buffer(), BP_SDK_MESSAGE_CAPACITY, "%s", message);
}

// Runs an ABI entry's body; every exception becomes a status and a message
// (Error's own, or one prefixed with the backend's name). Inlined into each
// entry: with table-driven exceptions the success path pays nothing for the
// try.
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

// ---- names -----------------------------------------------------------------

// The vocabulary's names, with a fallback for numbers a newer core may send.
inline const char *op_name(int32_t op) {
  const char *name = bp_vocab_op_name(op);
  return name ? name : "unknown operator";
}

// ---- attributes ------------------------------------------------------------

// The attributes an operator reads; fields past the core's struct_size read
// as 0 (an older core sends a shorter bp_op_attrs).
struct Attrs {
  int32_t scalar_mode = BP_SCALAR_NONE;
  double scalar = 0, scalar2 = 0;
  uint64_t seed = 0;
  int32_t option = 0;            // since 1.6
  const void *params = nullptr;  // since 1.6: the family's struct, see plugin.h
};

// `op` names the operator in the error for a NULL attrs.
inline Attrs read_attrs(const bp_op_attrs *a, const char *op) {
  if (!a) fail(BP_ERR_INVALID_ARGUMENT, "%s: attrs is NULL", op);
  Attrs r;
  if (BP_SDK_FITS(a, scalar_mode)) r.scalar_mode = a->scalar_mode;
  if (BP_SDK_FITS(a, scalar)) r.scalar = a->scalar;
  if (BP_SDK_FITS(a, scalar2)) r.scalar2 = a->scalar2;
  if (BP_SDK_FITS(a, seed)) r.seed = a->seed;
  if (BP_SDK_FITS(a, option)) r.option = a->option;
  if (BP_SDK_FITS(a, params)) r.params = a->params;
  return r;
}

// ---- dtypes ----------------------------------------------------------------

// Everything of this section is also in bp_plugin::dtypes, so that a
// plugin's namespace takes it with one `using namespace bp_plugin::dtypes;`
// (since 1.4).
inline namespace dtypes {

inline const char *dtype_name(int32_t dtype) {
  const char *name = bp_vocab_dtype_name(dtype);
  return name ? name : "invalid dtype";
}
inline int64_t dtype_size(int32_t dtype) { return bp_vocab_dtype_size(dtype); }

// Bool elements: one byte holding 0 or 1, a type of its own so that
// templates never mistake it for an integer.
enum class boolean : uint8_t {};

// Float16 and bfloat16 elements: their 16 bits (backplane/half.h converts
// them), types of their own so that no template does integer arithmetic on
// them by mistake (since 1.4).
enum class float16 : uint16_t {};
enum class bfloat16 : uint16_t {};

// The C++ type of each dtype of the vocabulary: the C storage type
// (BP_SDK_CTYPE_<id>, backplane/sdk/dtypes.h) except for bool and the two
// halves, which have the types above (since 1.4).
#define BP_SDK_CPP_TYPE_FLOAT32 float
#define BP_SDK_CPP_TYPE_FLOAT64 double
#define BP_SDK_CPP_TYPE_INT32 int32_t
#define BP_SDK_CPP_TYPE_INT64 int64_t
#define BP_SDK_CPP_TYPE_BOOL ::bp_plugin::boolean
#define BP_SDK_CPP_TYPE_FLOAT16 ::bp_plugin::float16
#define BP_SDK_CPP_TYPE_BFLOAT16 ::bp_plugin::bfloat16
#define BP_SDK_CPP_TYPE_INT8 int8_t
#define BP_SDK_CPP_TYPE_UINT8 uint8_t
#define BP_SDK_CPP_TYPE_INT16 int16_t

// C++ element type -> bp_dtype, for every dtype of the vocabulary (one
// without a BP_SDK_CPP_TYPE_ row above does not compile).
template <class T>
struct dtype_of;
#define BP_SDK_DTYPE_OF_(id, number, name, size, kind)                                          \
  template <>                                                                                 \
  struct dtype_of<BP_SDK_CPP_TYPE_##id> {                                                     \
    static constexpr int32_t value = (number);                                                \
  };                                                                                          \
  static_assert(sizeof(BP_SDK_CPP_TYPE_##id) == (size), "the C++ type of BP_" #id " has its size");
BP_DTYPE_LIST(BP_SDK_DTYPE_OF_)
#undef BP_SDK_DTYPE_OF_

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the T among Ts whose dtype is `dtype`. Callers
// have validated the dtype against their capability table, so no match is a
// bug in the plugin.
template <class... Ts, class F>
void dispatch(int32_t dtype, F &&f) {
  const bool found = ((dtype == dtype_of<Ts>::value ? (f(type_tag<Ts>{}), true) : false) || ...);
  if (!found) fail(BP_ERR_INTERNAL, "no kernel for dtype %d (validation missed it)", dtype);
}

// Whether a dtype of bp_dtype_kind `kind` is in the bp_dtype_set `set`
// (bp_vocab_dtype_in_set, as a constant expression).
constexpr bool kind_in_set(int32_t kind, int32_t set) {
  return set == BP_DTYPE_SET_FLOAT      ? kind == BP_DTYPE_KIND_FLOAT
         : set == BP_DTYPE_SET_NUMERIC  ? kind != BP_DTYPE_KIND_BOOL
         : set == BP_DTYPE_SET_ALL      ? true
         : set == BP_DTYPE_SET_INTEGRAL ? kind != BP_DTYPE_KIND_FLOAT
                                        : false;
}

// dispatch over every dtype of the vocabulary's dtype set `set`
// (BP_DTYPE_SET_FLOAT, _NUMERIC, _ALL, _INTEGRAL): generated from
// BP_DTYPE_LIST, so a dtype the vocabulary adds joins every set it belongs
// to (since 1.4).
template <int32_t set, class F>
void dispatch_set(int32_t dtype, F &&f) {
  static_assert(set == BP_DTYPE_SET_FLOAT || set == BP_DTYPE_SET_NUMERIC || set == BP_DTYPE_SET_ALL ||
                    set == BP_DTYPE_SET_INTEGRAL,
                "a dtype set of the vocabulary");
  switch (dtype) {
#define BP_SDK_DISPATCH_CASE_(id, number, name, size, kind) \
  case number:                                              \
    if constexpr (kind_in_set(kind, set)) {                 \
      f(type_tag<BP_SDK_CPP_TYPE_##id>{});                  \
      return;                                               \
    }                                                       \
    break;
    BP_DTYPE_LIST(BP_SDK_DISPATCH_CASE_)
#undef BP_SDK_DISPATCH_CASE_
    default:
      break;
  }
  fail(BP_ERR_INTERNAL, "no kernel for dtype %d (validation missed it)", dtype);
}

}  // namespace dtypes

// ---- capabilities ----------------------------------------------------------

// Which (op, dtype, out_dtype) triples a backend implements: for each
// operator it lists, every pair the ABI defines (bp_vocab_allows) whose input
// dtype is among the ones it names. supports() and execute() both ask it,
// so what is declared is what runs.
class Capabilities {
 public:
  // Implements `op` for these input dtypes (for creation ops: output dtypes).
  Capabilities &add(int32_t op, std::initializer_list<int32_t> dtypes) {
    if (uint32_t(op) >= uint32_t(BP_OP_LIMIT)) return *this;
    for (int32_t in : dtypes)
      for (int32_t out = 0; out < BP_DTYPE_COUNT; ++out)
        if (uint32_t(in) < uint32_t(BP_DTYPE_COUNT) && bp_vocab_allows(op, in, out))
          pairs_[size_t(op)].set(size_t(in) * BP_DTYPE_COUNT + size_t(out));
    return *this;
  }

  // Implements every operator of the vocabulary for every dtype the ABI
  // defines it for, except those in `except`.
  static Capabilities everything_except(std::initializer_list<int32_t> except = {}) {
    Capabilities c;
    const int32_t all[] = {
#define BP_SDK_DTYPE_(id, value, name, size, kind) value,
        BP_DTYPE_LIST(BP_SDK_DTYPE_)
#undef BP_SDK_DTYPE_
    };
#define BP_SDK_OP_(id, value, name, family, dtypes, out) c.add_unless(value, all, except);
    BP_OP_LIST(BP_SDK_OP_)
#undef BP_SDK_OP_
    return c;
  }

  // One bit test: execute asks on every call.
  bool supports(int32_t op, int32_t dtype, int32_t out_dtype) const {
    return uint32_t(op) < uint32_t(BP_OP_LIMIT) && uint32_t(dtype) < uint32_t(BP_DTYPE_COUNT) &&
           uint32_t(out_dtype) < uint32_t(BP_DTYPE_COUNT) &&
           pairs_[size_t(op)].test(size_t(dtype) * BP_DTYPE_COUNT + size_t(out_dtype));
  }

  // Throws BP_ERR_UNSUPPORTED naming the backend, op and dtypes unless supported.
  void require(const char *backend, int32_t op, int32_t dtype, int32_t out_dtype) const {
    if (!supports(op, dtype, out_dtype))
      fail(BP_ERR_UNSUPPORTED, "%s does not implement %s for %s -> %s", backend, op_name(op),
           dtype_name(dtype), dtype_name(out_dtype));
  }

 private:
  template <size_t N>
  void add_unless(int32_t op, const int32_t (&dtypes)[N], std::initializer_list<int32_t> except) {
    for (int32_t e : except)
      if (e == op) return;
    for (int32_t in : dtypes) add(op, {in});
  }

  std::bitset<size_t(BP_DTYPE_COUNT) * BP_DTYPE_COUNT> pairs_[BP_OP_LIMIT];
};

// ---- execute() arguments ---------------------------------------------------

using ExecuteInfo = bp_sdk_execute_info;

// bp_sdk_check_execute, throwing Error on failure. `bytes_of` tells whether a
// buffer is a live one of this plugin and its size (plugin_sdk.h).
inline ExecuteInfo check_execute(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                                 int32_t n_inputs, const bp_plugin_tensor *output,
                                 bp_sdk_buffer_bytes_fn bytes_of, void *context) {
  ExecuteInfo info;
  bp_sdk_check check;
  if (bp_sdk_check_execute(op, attrs, inputs, n_inputs, output, bytes_of, context, &info, &check) != BP_OK)
    throw Error(check.status, check.message);
  return info;
}

// ---- collective() arguments (since 1.2) ------------------------------------

using CollectiveInfo = bp_sdk_collective_info;

// bp_sdk_check_collective, throwing Error on failure. `group_size` is the
// number of participants of args->group when it is not 0 (only the plugin
// knows it); ignored for group 0.
inline CollectiveInfo check_collective(const bp_collective_args *args, int32_t group_size,
                                       bp_sdk_buffer_bytes_fn bytes_of, void *context) {
  CollectiveInfo info;
  bp_sdk_check check;
  if (bp_sdk_check_collective(args, group_size, bytes_of, context, &info, &check) != BP_OK)
    throw Error(check.status, check.message);
  return info;
}

// ---- execute_fused() programs (since 1.3) ----------------------------------

using FusedInfo = bp_sdk_fused_info;

// bp_sdk_check_fused, throwing Error on failure.
inline FusedInfo check_fused(const bp_fused_program *program, bp_sdk_buffer_bytes_fn bytes_of, void *context) {
  FusedInfo info;
  bp_sdk_check check;
  if (bp_sdk_check_fused(program, bytes_of, context, &info, &check) != BP_OK) throw Error(check.status, check.message);
  return info;
}

// Error(BP_ERR_UNSUPPORTED) naming the first instruction whose triple
// implements(op, dtype, out_dtype) refuses (bp_sdk_fused_first_unsupported);
// `who`, the backend or device, is the one that refuses (since 1.4).
template <class Implements>
void require_fused_supported(const bp_fused_program &program, const char *who, Implements implements) {
  const int32_t k = bp_sdk_fused_first_unsupported(
      &program,
      [](void *f, int32_t op, int32_t dtype, int32_t out_dtype) -> int32_t {
        return (*static_cast<Implements *>(f))(op, dtype, out_dtype) ? 1 : 0;
      },
      static_cast<void *>(&implements));
  if (k < 0) return;
  const bp_fused_instr &in = program.instrs[k];
  fail(BP_ERR_UNSUPPORTED, "fused instruction %d (%s): %s does not implement %s -> %s", static_cast<int>(k),
       op_name(in.op), who, dtype_name(in.dtype), dtype_name(in.out_dtype));
}

}  // namespace bp_plugin

// Type lists for dispatch<...>: the dtype groups of the vocabulary's sets,
// as of 1.0 (kept: plugins written against them still build; dispatch_set
// covers every dtype of a set).
#define BP_FLOAT_TYPES float, double
#define BP_NUMERIC_TYPES float, double, int32_t, int64_t
#define BP_ALL_TYPES float, double, int32_t, int64_t, ::bp_plugin::boolean
// The dtypes 1.4 added: 8- and 16-bit integers, and the 16-bit floats, which
// compute in float32 (plugin.h).
#define BP_SMALL_INT_TYPES int8_t, uint8_t, int16_t
#define BP_HALF_TYPES ::bp_plugin::float16, ::bp_plugin::bfloat16
