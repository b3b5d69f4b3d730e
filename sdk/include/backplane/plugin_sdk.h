/*
 * backplane/plugin_sdk.h — boundary code every backend needs, for plugins
 * written in C99 (since 1.1). C++ plugins include plugin_sdk.hpp, which
 * builds on this header.
 *
 * Header-only: every function is static inline, so nothing is exported from
 * the plugin and no library is linked. CMake: target backplane::plugin_sdk
 * (find_package(backplane CONFIG)). C99 plus two things every compiler
 * Backplane supports has: GCC/Clang's __builtin_*_overflow (the view checks)
 * and a thread-local storage class (BP_SDK_THREAD_LOCAL).
 *
 * What it holds:
 * - BP_SDK_DEFINE_ERRORS(prefix): the calling thread's last-error message
 *   behind the table's last_error(), and a one-line way to fail.
 * - BP_SDK_FITS(s, field): whether a struct the core handed in (with its
 *   struct_size) reaches a field, for reading bp_op_attrs and writing
 *   bp_plugin_device_info only as far as the core's version.
 * - bp_sdk_check_execute(): validation of execute()'s arguments (operator
 *   known, input count for its family, attrs, every view well-formed and
 *   inside its buffer, shapes and dtypes as plugin.h's semantics require),
 *   with a message that names the operator and the argument at fault.
 * - bp_sdk_check_collective(): the same for collective()'s arguments
 *   (since 1.2).
 * - bp_sdk_check_fused(): the same for execute_fused()'s program, with the
 *   dtype of every value (since 1.3).
 * - BP_SDK_API_HEAD, BP_SDK_API_ENTRIES: the entry table's order, written
 *   once (since 1.4).
 * - What every backend otherwise rewrites (since 1.4), in backplane/sdk/
 *   and included here: the C type of each dtype of the vocabulary
 *   (dtypes.h), the coalesced iteration space of strided views
 *   (coalesce.h), float-to-integer saturation (saturate.h), and the
 *   liveness and support checks of fused programs (fused.h).
 *
 * What it does not hold: kernels, and the plugin's own capability table
 * (which ops and dtypes it implements; bp_vocab_allows() in types.h gives
 * what the ABI defines).
 */
#ifndef BACKPLANE_PLUGIN_SDK_H
#define BACKPLANE_PLUGIN_SDK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backplane/plugin.h"
#include "backplane/sdk/coalesce.h"
#include "backplane/sdk/conv.h"
#include "backplane/sdk/dtypes.h"
#include "backplane/sdk/fused.h"
#include "backplane/sdk/saturate.h"
#include "backplane/sdk/window.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the entry table ------------------------------------------------------ */

/* The first fields of a bp_plugin_api initializer, in table order: its size,
 * the ABI version built against, `flags` (BP_PLUGIN_* bits), the backend
 * `name`, the plugin's `version` and the `device_prefix` (since 1.4). */
#define BP_SDK_API_HEAD(flags, name, version, device_prefix) \
  sizeof(bp_plugin_api), BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR, (flags), (name), (version), (device_prefix)

/* The entries that follow BP_SDK_API_HEAD, last_error to synchronize, for a
 * plugin that names its functions <prefix>last_error, <prefix>init, ...,
 * <prefix>synchronize (since 1.4): the table's order is written once. */
#define BP_SDK_API_ENTRIES(prefix)                                                                         \
  prefix##last_error, prefix##init, prefix##device_count, prefix##device_info, prefix##device_properties, \
      prefix##alloc, prefix##free, prefix##write, prefix##read, prefix##copy, prefix##supports,          \
      prefix##execute, prefix##synchronize

/* ---- errors ------------------------------------------------------------- */

/* Thread-local storage class. C99 has none; __thread is the GCC/Clang
 * spelling, _Thread_local the C11 one. */
#if defined(__cplusplus)
#define BP_SDK_THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define BP_SDK_THREAD_LOCAL _Thread_local
#else
#define BP_SDK_THREAD_LOCAL __thread
#endif

#if defined(__GNUC__)
#define BP_SDK_PRINTF_LIKE(format_index, first_arg) \
  __attribute__((format(printf, format_index, first_arg)))
#else
#define BP_SDK_PRINTF_LIKE(format_index, first_arg)
#endif

/* Capacity of a last-error message, NUL included; longer ones are cut. */
#define BP_SDK_MESSAGE_CAPACITY 1024

/* Defines, in the one .c file that uses it, the calling thread's message
 * buffer and two functions (declare them in the plugin's own header with
 * BP_SDK_DECLARE_ERRORS; build with hidden visibility so they stay private):
 *   bp_status <prefix>_fail(bp_status status, const char *format, ...);
 *       records a printf-style message and returns status, so a failure is
 *       one line: return my_fail(BP_ERR_SHAPE, "...", ...);
 *   const char *<prefix>_last_error(void);
 *       the table's last_error entry.
 * A successful call leaves the message alone: it describes the last failure. */
#define BP_SDK_DEFINE_ERRORS(prefix)                                                     \
  static BP_SDK_THREAD_LOCAL char prefix##_message_[BP_SDK_MESSAGE_CAPACITY] =           \
      "no call has failed on this thread";                                              \
  BP_SDK_DECLARE_ERRORS(prefix)                                                          \
  bp_status prefix##_fail(bp_status status, const char *format, ...) {                   \
    va_list args;                                                                        \
    va_start(args, format);                                                              \
    vsnprintf(prefix##_message_, sizeof prefix##_message_, format, args);                \
    va_end(args);                                                                        \
    return status;                                                                       \
  }                                                                                      \
  const char *prefix##_last_error(void) { return prefix##_message_; }

#define BP_SDK_DECLARE_ERRORS(prefix)                                                    \
  bp_status prefix##_fail(bp_status status, const char *format, ...)                     \
      BP_SDK_PRINTF_LIKE(2, 3);                                                          \
  const char *prefix##_last_error(void);

/* ---- versioned structs -------------------------------------------------- */

/* 1 when the struct *s, as its producer built it (s->struct_size), reaches
 * the end of `field`: read bp_op_attrs fields and write bp_plugin_device_info
 * fields only when it is. */
#define BP_SDK_FITS(s, field)                                                         \
  ((size_t)(s)->struct_size >=                                                        \
   (size_t)((const char *)&(s)->field - (const char *)(s)) + sizeof((s)->field))

/* ---- execute() arguments ------------------------------------------------- */

/* Tells the validator about a buffer: returns 1 and sets *bytes to its
 * allocated size when `buffer` is a live buffer of this plugin, else 0. */
typedef int32_t (*bp_sdk_buffer_bytes_fn)(void *context, bp_buffer buffer, uint64_t *bytes);

/* What bp_sdk_check_execute found, for the plugin to dispatch on. */
typedef struct bp_sdk_execute_info {
  int32_t family;      /* the operator's bp_op_family */
  int32_t dtype;       /* the dtype supports() is asked with (plugin.h): input 0's, WHERE's
                          value inputs', a creation op's output's */
  int32_t scalar_mode; /* bp_scalar_mode of a BINARY/COMPARE op, else BP_SCALAR_NONE */
  int64_t numel;       /* elements of the output */
} bp_sdk_execute_info;

/* Result of one check: BP_OK, or a status and its message. */
typedef struct bp_sdk_check {
  bp_status status;
  char message[512];
} bp_sdk_check;

static inline bp_status bp_sdk_reject_(bp_sdk_check *c, bp_status status, const char *format, ...)
    BP_SDK_PRINTF_LIKE(3, 4);
static inline bp_status bp_sdk_reject_(bp_sdk_check *c, bp_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(c->message, sizeof c->message, format, args);
  va_end(args);
  c->status = status;
  return status;
}

/* "[2, 3]" into text (capacity >= 16). */
static inline const char *bp_sdk_shape_text(int32_t rank, const int64_t *shape, char *text,
                                            size_t capacity) {
  size_t used = 0;
  int32_t d;
  int n = snprintf(text, capacity, "[");
  used = n > 0 ? (size_t)n : 0;
  for (d = 0; d < rank && d < BP_MAX_RANK && used < capacity; ++d) {
    n = snprintf(text + used, capacity - used, d ? ", %lld" : "%lld", (long long)shape[d]);
    used += n > 0 ? (size_t)n : 0;
  }
  if (used < capacity) snprintf(text + used, capacity - used, "]");
  return text;
}

/* 1 when no two elements of the view (no axis of extent 0, spans already
 * checked for overflow) share an address: with its axes of extent > 1 sorted
 * by stride, each stride exceeds the span of the axes before it. Sufficient
 * (a one-to-one view it refuses would be exotic) and true of every view the
 * core builds. Sets *axis to an axis at fault when it returns 0. */
static inline int32_t bp_sdk_elements_distinct_(const bp_plugin_tensor *t, int32_t *axis) {
  int32_t order[BP_MAX_RANK], n = 0, d, k;
  uint64_t span = 0; /* largest offset, in elements, reached by the axes so far */
  for (d = 0; d < t->rank; ++d) {
    if (t->shape[d] <= 1) continue;
    for (k = n; k > 0 && t->strides[order[k - 1]] > t->strides[d]; --k) order[k] = order[k - 1];
    order[k] = d;
    ++n;
  }
  for (k = 0; k < n; ++k) {
    const int32_t a = order[k];
    if ((uint64_t)t->strides[a] <= span) {
      *axis = a;
      return 0;
    }
    span += (uint64_t)(t->shape[a] - 1) * (uint64_t)t->strides[a];
  }
  return 1;
}

/* Checks one view: a known dtype, rank 0..BP_MAX_RANK, extents and strides
 * >= 0, and, when it addresses any element, a live buffer of this plugin
 * (bytes_of), an offset that is a multiple of the element size, and every
 * element inside the buffer. A view without elements passes whatever its
 * strides and buffer. An output's elements must not overlap (see
 * bp_sdk_elements_distinct_). Sets *numel. `role` names the view in the
 * message ("input 1", "output"). A negative extent or a rank out of range is
 * BP_ERR_SHAPE; anything else malformed is BP_ERR_INVALID_ARGUMENT. */
static inline bp_status bp_sdk_check_view(const char *op, const char *role,
                                          const bp_plugin_tensor *t, int32_t is_output,
                                          bp_sdk_buffer_bytes_fn bytes_of, void *context,
                                          int64_t *numel, bp_sdk_check *c) {
  uint64_t count = 1, last = 0, size, end, bytes = 0;
  int32_t d, overflow = 0, empty = 0, axis = 0;
  if (t == NULL) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, role);
  size = (uint64_t)bp_vocab_dtype_size(t->dtype);
  if (size == 0)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: %s has dtype %d, which is not a bp_dtype",
                          op, role, (int)t->dtype);
  if (t->rank < 0 || t->rank > BP_MAX_RANK)
    return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: %s has rank %d (0..%d allowed)", op, role,
                          (int)t->rank, BP_MAX_RANK);
  for (d = 0; d < t->rank; ++d) {
    if (t->shape[d] < 0)
      return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: %s has extent %lld on axis %d", op, role,
                            (long long)t->shape[d], (int)d);
    if (t->strides[d] < 0)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                            "%s: %s has stride %lld on axis %d (strides are >= 0)", op, role,
                            (long long)t->strides[d], (int)d);
    empty |= t->shape[d] == 0;
  }
  *numel = 0;
  if (empty) return BP_OK; /* nothing addressed: any strides, no buffer needed */
  for (d = 0; d < t->rank; ++d) {
    uint64_t span;
    overflow |= __builtin_mul_overflow(count, (uint64_t)t->shape[d], &count);
    overflow |= __builtin_mul_overflow((uint64_t)t->shape[d] - 1, (uint64_t)t->strides[d], &span);
    overflow |= __builtin_add_overflow(last, span, &last);
  }
  if (overflow || count > (uint64_t)INT64_MAX)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: %s addresses more elements than 64 bits count", op, role);
  if (is_output && !bp_sdk_elements_distinct_(t, &axis))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: %s's elements overlap (stride %lld on axis %d of extent %lld)", op,
                          role, (long long)t->strides[axis], (int)axis,
                          (long long)t->shape[axis]);
  *numel = (int64_t)count;
  if (t->buffer == NULL || !bytes_of(context, t->buffer, &bytes))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: %s's buffer is %s", op, role,
                          t->buffer == NULL ? "NULL" : "not a live buffer of this plugin");
  /* Element sizes are powers of two: a mask, not a division, on this path
   * every operator takes. */
  if ((t->offset & (size - 1)) != 0)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: %s's offset %llu is not a multiple of its element size %llu", op,
                          role, (unsigned long long)t->offset, (unsigned long long)size);
  overflow |= __builtin_add_overflow(last, (uint64_t)1, &end);
  overflow |= __builtin_mul_overflow(end, size, &end);
  overflow |= __builtin_add_overflow(end, t->offset, &end);
  if (overflow || end > bytes)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: %s reaches past its buffer (%llu bytes from offset %llu; the buffer "
                          "has %llu bytes)",
                          op, role, (unsigned long long)((last + 1) * size),
                          (unsigned long long)t->offset, (unsigned long long)bytes);
  return BP_OK;
}

/* 1 when the two views have one rank and the same extents. */
static inline int32_t bp_sdk_same_shape(const bp_plugin_tensor *a, const bp_plugin_tensor *b) {
  int32_t d;
  if (a->rank != b->rank) return 0;
  for (d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d]) return 0;
  return 1;
}

static inline bp_status bp_sdk_reject_shapes_(const char *op, const char *what,
                                              const bp_plugin_tensor *in,
                                              const bp_plugin_tensor *out, bp_sdk_check *c) {
  char a[160], b[160];
  return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: %s %s does not fit the output's %s", op, what,
                        bp_sdk_shape_text(in->rank, in->shape, a, sizeof a),
                        bp_sdk_shape_text(out->rank, out->shape, b, sizeof b));
}

/* The dtype a NORMALIZE operator's mean and rstd are written in for input
 * dtype `dtype` (plugin.h): float64 for float64, float32 for the other
 * float dtypes (since 1.6). */
static inline int32_t bp_sdk_statistics_dtype(int32_t dtype) {
  return dtype == BP_FLOAT64 ? BP_FLOAT64 : BP_FLOAT32;
}

/* 1 when the view is absent (plugin.h, execute; since 1.6). */
static inline int32_t bp_sdk_absent(const bp_plugin_tensor *t) {
  return t->dtype == BP_DTYPE_INVALID;
}

/* Shapes as plugin.h's semantics require for the family. */
static inline bp_status bp_sdk_check_shapes_(const char *op, int32_t family,
                                             const bp_plugin_tensor *in, int32_t n,
                                             const bp_plugin_tensor *out, bp_sdk_check *c) {
  static const char *const roles[3] = {"input 0", "input 1", "input 2"};
  int32_t i, d;
  switch (family) {
    case BP_OP_FAMILY_REDUCE:
      if (in[0].rank != out->rank) return bp_sdk_reject_shapes_(op, "input 0", &in[0], out, c);
      for (d = 0; d < out->rank; ++d)
        if (out->shape[d] != 1 && out->shape[d] != in[0].shape[d])
          return bp_sdk_reject_shapes_(op, "input 0 (each axis is kept or reduced to 1)", &in[0],
                                       out, c);
      return BP_OK;
    case BP_OP_FAMILY_MATMUL: {
      const int32_t r = out->rank;
      int32_t ok = r >= 2 && in[0].rank == r && in[1].rank == r;
      for (d = 0; ok && d < r - 2; ++d)
        ok = in[0].shape[d] == out->shape[d] && in[1].shape[d] == out->shape[d];
      ok = ok && in[0].shape[r - 2] == out->shape[r - 2] &&
           in[1].shape[r - 1] == out->shape[r - 1] && in[0].shape[r - 1] == in[1].shape[r - 2];
      if (!ok) {
        char a[160], b[160], o[160];
        return bp_sdk_reject_(c, BP_ERR_SHAPE,
                              "%s: shapes %s x %s -> %s do not fit [..., M, K] x [..., K, N] -> "
                              "[..., M, N]",
                              op, bp_sdk_shape_text(in[0].rank, in[0].shape, a, sizeof a),
                              bp_sdk_shape_text(in[1].rank, in[1].shape, b, sizeof b),
                              bp_sdk_shape_text(out->rank, out->shape, o, sizeof o));
      }
      return BP_OK;
    }
    case BP_OP_FAMILY_SCAN:
      if (out->rank < 1 || !bp_sdk_same_shape(&in[0], out))
        return bp_sdk_reject_shapes_(op, "input 0 (a scan keeps the shape, rank >= 1)", &in[0],
                                     out, c);
      return BP_OK;
    case BP_OP_FAMILY_SOFTMAX:
      if (out->rank < 1 || !bp_sdk_same_shape(&in[0], out))
        return bp_sdk_reject_shapes_(op, "input 0 (softmax keeps the shape, rank >= 1)", &in[0],
                                     out, c);
      return BP_OK;
    case BP_OP_FAMILY_GATHER:
    case BP_OP_FAMILY_SCATTER: {
      /* GATHER: data (in[0]) -> out; SCATTER: values (in[1]) -> out. The
       * indexed tensor has rank k + m, the rows tensor 1 + m. */
      const int32_t gather = family == BP_OP_FAMILY_GATHER;
      const bp_plugin_tensor *index = gather ? &in[1] : &in[0];
      const bp_plugin_tensor *indexed = gather ? &in[0] : out;
      const bp_plugin_tensor *rows = gather ? out : &in[1];
      const int32_t k = index->rank == 2 ? (int32_t)index->shape[1] : -1;
      int32_t ok = k >= 1 && k <= indexed->rank && rows->rank == 1 + indexed->rank - k &&
                   rows->shape[0] == index->shape[0];
      for (d = 1; ok && d < rows->rank; ++d) ok = rows->shape[d] == indexed->shape[k + d - 1];
      if (!ok) {
        char a[160], b[160], o[160];
        return bp_sdk_reject_(c, BP_ERR_SHAPE,
                              "%s: index %s, %s %s and %s %s do not fit index [N, k], indexed "
                              "[s0..sk-1, r...] and rows [N, r...]",
                              op, bp_sdk_shape_text(index->rank, index->shape, a, sizeof a),
                              gather ? "data" : "output",
                              bp_sdk_shape_text(indexed->rank, indexed->shape, b, sizeof b),
                              gather ? "output" : "values",
                              bp_sdk_shape_text(rows->rank, rows->shape, o, sizeof o));
      }
      return BP_OK;
    }
    case BP_OP_FAMILY_TOPK: { /* x [..., n] -> values and indices [..., k], 0 <= k <= n */
      const int32_t r = in[0].rank;
      int32_t ok = r >= 1 && out[0].rank == r && out[1].rank == r;
      for (d = 0; ok && d < r - 1; ++d) ok = out[0].shape[d] == in[0].shape[d] && out[1].shape[d] == in[0].shape[d];
      ok = ok && out[0].shape[r - 1] == out[1].shape[r - 1] && out[0].shape[r - 1] <= in[0].shape[r - 1];
      if (!ok) {
        char a[160], b[160], o[160];
        return bp_sdk_reject_(c, BP_ERR_SHAPE,
                              "%s: input %s, values %s and indices %s do not fit x [..., n] -> values and "
                              "indices [..., k] with k <= n",
                              op, bp_sdk_shape_text(in[0].rank, in[0].shape, a, sizeof a),
                              bp_sdk_shape_text(out[0].rank, out[0].shape, b, sizeof b),
                              bp_sdk_shape_text(out[1].rank, out[1].shape, o, sizeof o));
      }
      return BP_OK;
    }
    case BP_OP_FAMILY_NORMALIZE: {
      /* x [..., n] -> y of x's shape; weight and bias [n] or absent; mean
       * and rstd (out[1], out[2]) [..., 1] or absent (plugin.h). */
      const int32_t r = in[0].rank;
      const int64_t extent = r >= 1 ? in[0].shape[r - 1] : 0;
      char a[160], b[160];
      if (r < 1)
        return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: input 0 (x) has rank 0; it normalises along its last axis", op);
      if (!bp_sdk_same_shape(&in[0], &out[0])) return bp_sdk_reject_shapes_(op, "input 0 (x)", &in[0], &out[0], c);
      for (i = 1; i < 3; ++i)
        if (!bp_sdk_absent(&in[i]) && (in[i].rank != 1 || in[i].shape[0] != extent))
          return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: %s %s is not [%lld], x's last extent (x is %s)", op,
                                i == 1 ? "input 1 (weight)" : "input 2 (bias)",
                                bp_sdk_shape_text(in[i].rank, in[i].shape, a, sizeof a), (long long)extent,
                                bp_sdk_shape_text(r, in[0].shape, b, sizeof b));
      for (i = 1; i < 3; ++i) {
        int32_t ok;
        if (bp_sdk_absent(&out[i])) continue;
        ok = out[i].rank == r && out[i].shape[r - 1] == 1;
        for (d = 0; ok && d < r - 1; ++d) ok = out[i].shape[d] == in[0].shape[d];
        if (!ok)
          return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: output %d (%s) %s is not x's shape with a last extent of 1 (x is %s)",
                                op, (int)i, i == 1 ? "mean" : "rstd",
                                bp_sdk_shape_text(out[i].rank, out[i].shape, a, sizeof a),
                                bp_sdk_shape_text(r, in[0].shape, b, sizeof b));
      }
      return BP_OK;
    }
    case BP_OP_FAMILY_ATTENTION: {
      /* q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv], mask absent or
       * [..., Lq, Lk] -> [..., Lq, Dv] (since 1.6). */
      const int32_t r = out->rank;
      const int32_t masked = in[3].dtype != BP_DTYPE_INVALID; /* absent: see bp_sdk_absent */
      int32_t ok = r >= 2 && in[0].rank == r && in[1].rank == r && in[2].rank == r &&
                   (!masked || in[3].rank == r);
      for (d = 0; ok && d < r - 2; ++d)
        ok = in[0].shape[d] == out->shape[d] && in[1].shape[d] == out->shape[d] &&
             in[2].shape[d] == out->shape[d] && (!masked || in[3].shape[d] == out->shape[d]);
      ok = ok && in[0].shape[r - 2] == out->shape[r - 2] && in[2].shape[r - 1] == out->shape[r - 1] &&
           in[1].shape[r - 1] == in[0].shape[r - 1] && in[2].shape[r - 2] == in[1].shape[r - 2] &&
           (!masked || (in[3].shape[r - 2] == out->shape[r - 2] && in[3].shape[r - 1] == in[1].shape[r - 2]));
      if (!ok) {
        char a[160], b[160], v[160], m[160], o[160];
        return bp_sdk_reject_(c, BP_ERR_SHAPE,
                              "%s: q %s, k %s, v %s, mask %s -> %s do not fit q [..., Lq, D], k [..., "
                              "Lk, D], v [..., Lk, Dv], mask absent or [..., Lq, Lk] -> [..., Lq, Dv]",
                              op, bp_sdk_shape_text(in[0].rank, in[0].shape, a, sizeof a),
                              bp_sdk_shape_text(in[1].rank, in[1].shape, b, sizeof b),
                              bp_sdk_shape_text(in[2].rank, in[2].shape, v, sizeof v),
                              masked ? bp_sdk_shape_text(in[3].rank, in[3].shape, m, sizeof m) : "absent",
                              bp_sdk_shape_text(out->rank, out->shape, o, sizeof o));
      }
      return BP_OK;
    }
    case BP_OP_FAMILY_CONV: /* bp_sdk_check_conv_, which needs the window */
      return BP_OK;
    case BP_OP_FAMILY_POOL:
    case BP_OP_FAMILY_POOL_GRAD: return BP_OK; /* the window's rule: bp_sdk_check_pool_ */
    default: /* elementwise: the core has resolved broadcasting */
      for (i = 0; i < n; ++i)
        if (!bp_sdk_same_shape(&in[i], out))
          return bp_sdk_reject_shapes_(op, roles[i], &in[i], out, c);
      return BP_OK;
  }
}

/* The dtype relations of plugin.h: inputs of one dtype (WHERE: a bool
 * condition and two values of one dtype; GATHER and SCATTER: an int64 index,
 * and SCATTER's values of the output's dtype; TOPK: int64 indices, its output 1;
 * else BP_ERR_DTYPE), and an (input,
 * output) dtype pair the ABI defines for the operator (else
 * BP_ERR_UNSUPPORTED). Sets info->dtype. */
static inline bp_status bp_sdk_check_dtypes_(const char *op_name, int32_t op, int32_t family,
                                             const bp_plugin_tensor *in, int32_t n,
                                             const bp_plugin_tensor *out,
                                             bp_sdk_execute_info *info, bp_sdk_check *c) {
  int32_t first = 0, i;
  if (family == BP_OP_FAMILY_WHERE) {
    if (in[0].dtype != BP_BOOL)
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: input 0 (the condition) must be bool, not %s",
                            op_name, bp_vocab_dtype_name(in[0].dtype));
    first = 1;
  }
  if (family == BP_OP_FAMILY_GATHER || family == BP_OP_FAMILY_SCATTER) {
    const int32_t at = family == BP_OP_FAMILY_GATHER ? 1 : 0;
    if (in[at].dtype != BP_INT64)
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: input %d (the index) must be int64, not %s",
                            op_name, (int)at, bp_vocab_dtype_name(in[at].dtype));
    info->dtype = in[1 - at].dtype;
    if (family == BP_OP_FAMILY_SCATTER && info->dtype != out->dtype)
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: input 1 (the values) is %s but the output is %s",
                            op_name, bp_vocab_dtype_name(info->dtype),
                            bp_vocab_dtype_name(out->dtype));
    n = 0; /* no further "one dtype" relation between the inputs */
  } else if (family == BP_OP_FAMILY_NORMALIZE) {
    /* x, and weight and bias where present, share a dtype; mean and rstd,
     * where present, are in the statistics' dtype (plugin.h). */
    const int32_t stats = bp_sdk_statistics_dtype(in[0].dtype);
    info->dtype = in[0].dtype;
    for (i = 1; i < 3; ++i)
      if (!bp_sdk_absent(&in[i]) && in[i].dtype != info->dtype)
        return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: input %d (%s) is %s but x is %s", op_name, (int)i,
                              i == 1 ? "weight" : "bias", bp_vocab_dtype_name(in[i].dtype),
                              bp_vocab_dtype_name(info->dtype));
    for (i = 1; i < 3; ++i)
      if (!bp_sdk_absent(&out[i]) && bp_vocab_dtype_in_set(info->dtype, BP_DTYPE_SET_FLOAT) && out[i].dtype != stats)
        return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: output %d (%s) is %s; for %s input the statistics are %s",
                              op_name, (int)i, i == 1 ? "mean" : "rstd", bp_vocab_dtype_name(out[i].dtype),
                              bp_vocab_dtype_name(info->dtype), bp_vocab_dtype_name(stats));
    n = 0; /* the relations above replace "inputs of one dtype" */
  } else if (family == BP_OP_FAMILY_POOL_GRAD) {
    info->dtype = in[0].dtype; /* input 1, the indices, is bp_sdk_check_pool_'s */
    n = 1;
  } else {
    info->dtype = n > first ? in[first].dtype : out->dtype;
  }
  if (family == BP_OP_FAMILY_TOPK && out[1].dtype != BP_INT64)
    return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: output 1 (the indices) must be int64, not %s", op_name,
                          bp_vocab_dtype_name(out[1].dtype));
  if (family == BP_OP_FAMILY_ATTENTION && in[3].dtype == BP_DTYPE_INVALID) n = 3; /* an absent mask has no dtype */
  for (i = first + 1; i < n; ++i)
    if (in[i].dtype != BP_DTYPE_INVALID && in[i].dtype != info->dtype) /* an absent input has none */
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: input %d is %s but input %d is %s", op_name,
                            (int)first, bp_vocab_dtype_name(info->dtype), (int)i,
                            bp_vocab_dtype_name(in[i].dtype));
  /* Nobody implements a pair the ABI does not define: BP_ERR_UNSUPPORTED,
   * like any pair the plugin does not implement. */
  if (!bp_vocab_allows(op, info->dtype, out->dtype))
    return bp_sdk_reject_(c, BP_ERR_UNSUPPORTED,
                          "%s: %s -> %s is not an (input, output) dtype pair the ABI defines",
                          op_name, bp_vocab_dtype_name(info->dtype),
                          bp_vocab_dtype_name(out->dtype));
  return BP_OK;
}

/* 1 when input (is_output 0) or output (is_output 1) `index` of the family
 * may be absent (plugin.h: a view of dtype BP_DTYPE_INVALID, rank 0, NULL
 * buffer; since 1.6). */
static inline int32_t bp_sdk_may_be_absent_(int32_t family, int32_t is_output, int32_t index) {
  (void)is_output;
  (void)index;
  switch (family) {
    /* NORMALIZE: weight and bias (inputs 1, 2), mean and rstd (outputs 1, 2). */
    case BP_OP_FAMILY_NORMALIZE: return index >= 1;
    case BP_OP_FAMILY_ATTENTION: return !is_output && index == 3; /* the mask */
    case BP_OP_FAMILY_CONV: return !is_output && index == 2; /* the bias */
    case BP_OP_FAMILY_POOL: return is_output && index == 1;       /* MAX_POOL's indices */
    case BP_OP_FAMILY_POOL_GRAD: return !is_output && index == 1; /* AVG_POOL_GRAD's */
    default: return 0;
  }
}

/* Checks a view that may be absent: an absent one must be exactly that
 * (rank 0, NULL buffer) and allowed there; else as bp_sdk_check_view. */
static inline bp_status bp_sdk_check_role_(const char *op, int32_t family, const char *role,
                                           const bp_plugin_tensor *t, int32_t is_output,
                                           int32_t index, bp_sdk_buffer_bytes_fn bytes_of,
                                           void *context, int64_t *numel, bp_sdk_check *c) {
  if (t != NULL && bp_sdk_absent(t)) {
    *numel = 0;
    if (!bp_sdk_may_be_absent_(family, is_output, index))
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: %s is absent (dtype 0), which it may not be",
                            op, role);
    if (t->rank != 0 || t->buffer != NULL)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                            "%s: %s has dtype 0 (absent) but rank %d and %s buffer", op, role,
                            (int)t->rank, t->buffer ? "a" : "no");
    return BP_OK;
  }
  return bp_sdk_check_view(op, role, t, is_output, bytes_of, context, numel, c);
}

/* attrs->params as the sliding-window struct of a CONV or POOL family
 * operator (since 1.6), or NULL when attrs is too short to hold params,
 * params is NULL or its struct_size does not reach the 1.6 fields. */
static inline const bp_window_params *bp_sdk_window_params(const bp_op_attrs *attrs) {
  const bp_window_params *w;
  if (attrs == NULL || !BP_SDK_FITS(attrs, params) || attrs->params == NULL) return NULL;
  w = (const bp_window_params *)attrs->params;
  return w->struct_size >= BP_WINDOW_PARAMS_SIZE_1_6 ? w : NULL;
}

/* The scalar attributes plugin.h gives a meaning to (since 1.6): VAR's
 * correction, a non-negative integer; NORMALIZE's eps, finite and >= 0;
 * and RMS_NORM's output 1 (mean), which is always absent. */
static inline bp_status bp_sdk_check_attrs_(const char *name, int32_t op, const bp_op_attrs *attrs,
                                            const bp_plugin_tensor *output, bp_sdk_check *c) {
  const double scalar = BP_SDK_FITS(attrs, scalar) ? attrs->scalar : 0.0;
  if (op == BP_OP_VAR && !(scalar >= 0 && scalar <= 9007199254740992.0 && (double)(int64_t)scalar == scalar))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: the correction (attrs.scalar) is %g, not a non-negative integer",
                          name, scalar);
  if (bp_vocab_op_family(op) == BP_OP_FAMILY_NORMALIZE && !(scalar >= 0 && scalar <= 1.7976931348623157e308))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: eps (attrs.scalar) is %g; it must be finite and >= 0",
                          name, scalar);
  if (op == BP_OP_RMS_NORM && !bp_sdk_absent(&output[1]))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: output 1 (mean) is given; rms_norm writes no mean, it must be absent",
                          name);
  return BP_OK;
}

/* The CONV family's window and geometry (backplane/sdk/conv.h; since 1.6). */
static inline bp_status bp_sdk_check_conv_(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                                           const bp_plugin_tensor *out, bp_sdk_check *c) {
  bp_sdk_conv g;
  c->status = bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), in, out, &g, c->message, sizeof c->message);
  return c->status;
}

/* The POOL and POOL_GRAD families (plugin.h, since 1.6): attrs->params is
 * a well-formed bp_window_params (BP_ERR_INVALID_ARGUMENT), the views are
 * [N, C, spatial...] of its rank with the output extents its rule gives, and
 * every MAX_POOL window reaches the input (BP_ERR_SHAPE); the indices are
 * int64 of the pooled shape (BP_ERR_DTYPE, BP_ERR_SHAPE), present or absent
 * as the operator requires (BP_ERR_INVALID_ARGUMENT). */
static inline bp_status bp_sdk_check_pool_(const char *name, int32_t op, const bp_op_attrs *attrs,
                                           const bp_plugin_tensor *in, const bp_plugin_tensor *out,
                                           bp_sdk_check *c) {
  const bp_window_params *w = bp_sdk_window_params(attrs);
  const int32_t grad = bp_vocab_op_family(op) == BP_OP_FAMILY_POOL_GRAD;
  /* The unpooled view (x or dx), the pooled one (y or dy), the indices. */
  const bp_plugin_tensor *full = grad ? out : &in[0], *pooled = grad ? &in[0] : out;
  const bp_plugin_tensor *index = grad ? &in[1] : &out[1];
  const int32_t wants_index = op == BP_OP_MAX_POOL || op == BP_OP_MAX_POOL_GRAD;
  char a[160], b[160];
  int32_t d, r;
  if (w == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: attrs.params must be a bp_window_params of at least %u bytes", name,
                          (unsigned)BP_WINDOW_PARAMS_SIZE_1_6);
  r = w->spatial_rank;
  if (r < 1 || r > BP_WINDOW_MAX_RANK)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: the window's spatial_rank %d is not 1..%d", name,
                          (int)r, (int)BP_WINDOW_MAX_RANK);
  if (w->groups != 1)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: a pooling window has groups 1, not %d", name,
                          (int)w->groups);
  for (d = 0; d < r; ++d)
    if (w->kernel[d] < 1 || w->stride[d] < 1 || w->dilation[d] < 1 || w->pad_begin[d] < 0 ||
        w->pad_end[d] < 0)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                            "%s: spatial axis %d of the window has kernel %lld, stride %lld, dilation %lld and "
                            "padding %lld, %lld (kernel, stride and dilation >= 1, padding >= 0)",
                            name, (int)d, (long long)w->kernel[d], (long long)w->stride[d],
                            (long long)w->dilation[d], (long long)w->pad_begin[d], (long long)w->pad_end[d]);
  if (full->rank != r + 2 || pooled->rank != r + 2 || full->shape[0] != pooled->shape[0] ||
      full->shape[1] != pooled->shape[1])
    return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: %s %s and %s %s are not [N, C, %d spatial axes] alike", name,
                          grad ? "dx" : "input", bp_sdk_shape_text(full->rank, full->shape, a, sizeof a),
                          grad ? "dy" : "output", bp_sdk_shape_text(pooled->rank, pooled->shape, b, sizeof b),
                          (int)r);
  for (d = 0; d < r; ++d) {
    const int64_t s = full->shape[2 + d], o = pooled->shape[2 + d];
    const int64_t lo = bp_sdk_window_extent(s, w->kernel[d], w->stride[d], w->dilation[d], w->pad_begin[d],
                                            w->pad_end[d], 0);
    const int64_t hi = bp_sdk_window_extent(s, w->kernel[d], w->stride[d], w->dilation[d], w->pad_begin[d],
                                            w->pad_end[d], 1);
    int64_t unreached;
    if (lo < 1)
      return bp_sdk_reject_(c, BP_ERR_SHAPE,
                            "%s: spatial axis %d: the window (kernel %lld, dilation %lld) is larger than the padded "
                            "input (%lld + %lld + %lld)",
                            name, (int)d, (long long)w->kernel[d], (long long)w->dilation[d],
                            (long long)w->pad_begin[d], (long long)s, (long long)w->pad_end[d]);
    if (o != lo && o != hi)
      return bp_sdk_reject_(c, BP_ERR_SHAPE,
                            "%s: spatial axis %d: kernel %lld, stride %lld, dilation %lld over %lld elements padded "
                            "by %lld and %lld give %lld outputs (%lld in ceil mode), not %lld",
                            name, (int)d, (long long)w->kernel[d], (long long)w->stride[d],
                            (long long)w->dilation[d], (long long)s, (long long)w->pad_begin[d],
                            (long long)w->pad_end[d], (long long)lo, (long long)hi, (long long)o);
    if (op != BP_OP_MAX_POOL) continue;
    unreached = bp_sdk_window_unreached(s, o, w->kernel[d], w->stride[d], w->dilation[d], w->pad_begin[d]);
    if (unreached >= 0)
      return bp_sdk_reject_(c, BP_ERR_SHAPE,
                            "%s: spatial axis %d: the window of output position %lld covers only padding (it has "
                            "no maximum)",
                            name, (int)d, (long long)unreached);
  }
  if (!wants_index) {
    if (!bp_sdk_absent(index))
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: %s must be absent (dtype 0)", name,
                            grad ? "input 1" : "output 1");
    return BP_OK;
  }
  if (bp_sdk_absent(index)) {
    if (grad) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: input 1 (the indices) is absent", name);
    return BP_OK;
  }
  if (index->dtype != BP_INT64)
    return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: %s (the indices) must be int64, not %s", name,
                          grad ? "input 1" : "output 1", bp_vocab_dtype_name(index->dtype));
  if (!bp_sdk_same_shape(index, pooled))
    return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: the indices %s do not have the pooled shape %s", name,
                          bp_sdk_shape_text(index->rank, index->shape, a, sizeof a),
                          bp_sdk_shape_text(pooled->rank, pooled->shape, b, sizeof b));
  return BP_OK;
}

/* Validates everything about an execute() call that plugin.h fixes: the
 * operator is known, attrs is present (its scalar_mode read only as far as
 * its struct_size), the input count is the family's arity (BINARY and
 * COMPARE with a scalar operand: 1), every view (the family's outputs, at
 * `output`, and the inputs) is well-formed and inside a live buffer of this
 * plugin or, where the family allows it, absent (since 1.6), the shapes and
 * dtypes are as the operator's semantics require. The device index and whether the plugin implements the
 * (op, dtype) pair are the plugin's to check. Returns BP_OK and fills *info,
 * or a status with c->message set ("add: input 1 ..."). */
static inline bp_status bp_sdk_check_execute(int32_t op, const bp_op_attrs *attrs,
                                             const bp_plugin_tensor *inputs, int32_t n_inputs,
                                             const bp_plugin_tensor *output,
                                             bp_sdk_buffer_bytes_fn bytes_of, void *context,
                                             bp_sdk_execute_info *info, bp_sdk_check *c) {
  char role[24];
  const char *name = bp_vocab_op_name(op);
  int32_t arity, outputs, i;
  int64_t numel;
  bp_status s;
  c->status = BP_OK;
  c->message[0] = '\0';
  info->family = bp_vocab_op_family(op);
  info->dtype = BP_DTYPE_INVALID;
  info->scalar_mode = BP_SCALAR_NONE;
  info->numel = 0;
  if (name == NULL)
    return bp_sdk_reject_(c, BP_ERR_UNSUPPORTED, "operator %d is not in this plugin's vocabulary",
                          (int)op);
  if (attrs == NULL) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: attrs is NULL", name);
  arity = bp_vocab_family_arity(info->family);
  if ((info->family == BP_OP_FAMILY_BINARY || info->family == BP_OP_FAMILY_COMPARE) &&
      BP_SDK_FITS(attrs, scalar_mode) && attrs->scalar_mode != BP_SCALAR_NONE) {
    if (attrs->scalar_mode != BP_SCALAR_RHS && attrs->scalar_mode != BP_SCALAR_LHS)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: scalar_mode %d is not a bp_scalar_mode",
                            name, (int)attrs->scalar_mode);
    info->scalar_mode = attrs->scalar_mode;
    arity = 1;
  }
  if (n_inputs != arity)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: takes %d input%s, got %d", name,
                          (int)arity, arity == 1 ? "" : "s", (int)n_inputs);
  if (arity > 0 && inputs == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", name);
  outputs = bp_vocab_family_outputs(info->family);
  if (output == NULL) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: output is NULL", name);
  for (i = 0; i < outputs; ++i) {
    if (i == 0)
      snprintf(role, sizeof role, "output");
    else
      snprintf(role, sizeof role, "output %d", (int)i);
    s = bp_sdk_check_role_(name, info->family, role, &output[i], 1, i, bytes_of, context,
                           i == 0 ? &info->numel : &numel, c);
    if (s != BP_OK) return s;
  }
  for (i = 0; i < n_inputs; ++i) {
    snprintf(role, sizeof role, "input %d", (int)i);
    s = bp_sdk_check_role_(name, info->family, role, &inputs[i], 0, i, bytes_of, context, &numel, c);
    if (s != BP_OK) return s;
  }
  if (info->family == BP_OP_FAMILY_TOPK && BP_SDK_FITS(attrs, option) && (attrs->option & ~BP_OPTION_LARGEST) != 0)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "%s: attrs.option is %d; the only option bit is BP_OPTION_LARGEST (1)", name,
                          (int)attrs->option);
  s = bp_sdk_check_shapes_(name, info->family, inputs, n_inputs, output, c);
  if (s != BP_OK) return s;
  if (info->family == BP_OP_FAMILY_CONV) {
    s = bp_sdk_check_conv_(op, attrs, inputs, output, c);
    if (s != BP_OK) return s;
  }
  if (info->family == BP_OP_FAMILY_POOL || info->family == BP_OP_FAMILY_POOL_GRAD) {
    s = bp_sdk_check_pool_(name, op, attrs, inputs, output, c);
    if (s != BP_OK) return s;
  }
  s = bp_sdk_check_dtypes_(name, op, info->family, inputs, n_inputs, output, info, c);
  if (s != BP_OK) return s;
  return bp_sdk_check_attrs_(name, op, attrs, output, c);
}

/* ---- collective() arguments (since 1.2) ---------------------------------- */

/* What bp_sdk_check_collective found. */
typedef struct bp_sdk_collective_info {
  int32_t dtype;        /* of every input and output */
  int32_t participants; /* n: count for group 0, else the group's size */
  int64_t numel;        /* elements of S, the shape one participant contributes or receives */
} bp_sdk_collective_info;

/* 1 when the two views are the very same view: an output "in place". */
static inline int32_t bp_sdk_same_view(const bp_plugin_tensor *a, const bp_plugin_tensor *b) {
  int32_t d;
  if (a->buffer != b->buffer || a->offset != b->offset || a->dtype != b->dtype || !bp_sdk_same_shape(a, b))
    return 0;
  for (d = 0; d < a->rank; ++d)
    if (a->shape[d] > 1 && a->strides[d] != b->strides[d]) return 0;
  return 1;
}

/* Bytes [*first, *end) a well-formed view of numel > 0 elements can touch. */
static inline void bp_sdk_view_bytes_(const bp_plugin_tensor *t, uint64_t *first, uint64_t *end) {
  uint64_t last = 0;
  int32_t d;
  for (d = 0; d < t->rank; ++d) last += (uint64_t)(t->shape[d] - 1) * (uint64_t)t->strides[d];
  *first = t->offset;
  *end = t->offset + (last + 1) * (uint64_t)bp_vocab_dtype_size(t->dtype);
}

/* Contiguity as plugin.h's collectives require it: dense C-order strides on
 * every axis that has more than one element. */
static inline bp_status bp_sdk_check_contiguous_(const char *name, const char *role, const bp_plugin_tensor *t,
                                                 bp_sdk_check *c) {
  int64_t stride = 1;
  int32_t d;
  for (d = t->rank - 1; d >= 0; --d) {
    if (t->shape[d] > 1 && t->strides[d] != stride)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                            "%s: %s is not contiguous (stride %lld on axis %d, where dense C order has %lld)", name,
                            role, (long long)t->strides[d], (int)d, (long long)stride);
    stride *= t->shape[d];
  }
  return BP_OK;
}

/* Validates everything about a collective() call that plugin.h fixes:
 * struct_size reaches every 1.2 field; the collective (and, for ALL_REDUCE
 * and REDUCE_SCATTER, the reduction) is known, else BP_ERR_INVALID_ARGUMENT;
 * count >= 1 (exactly 1 with a group); devices, inputs and outputs are not
 * NULL; with group 0 the device indices are pairwise distinct; BROADCAST's
 * root is a participant; every view is well-formed, contiguous and inside a
 * live buffer of this plugin (bp_sdk_check_view); the inputs share one dtype
 * and the outputs have it (BP_ERR_DTYPE, as is a reduction the dtype does
 * not define: SUM or MEAN of bool); the inputs share one shape and the
 * outputs have the collective's (BP_ERR_SHAPE); and each output is exactly
 * its participant's input view or overlaps no input and no other output.
 * `group_size` is the number of participants of a group (args->group != 0),
 * which only the plugin knows; it is ignored for group 0. Left to the
 * plugin: the device indices, that each view's buffer is on its device, the
 * group number, and whether it implements the case (BP_ERR_UNSUPPORTED lets
 * the core stage it). Returns BP_OK and fills *info, or a status with
 * c->message set ("all_reduce: input 1 ..."). */
static inline bp_status bp_sdk_check_collective(const bp_collective_args *args, int32_t group_size,
                                                bp_sdk_buffer_bytes_fn bytes_of, void *context,
                                                bp_sdk_collective_info *info, bp_sdk_check *c) {
  const char *name;
  const bp_plugin_tensor *first;
  int32_t i, j, d, n, gathered, scattered, reducing, share_rank;
  const int64_t *share_shape;
  char role[32], other[32], a[160], b[160];
  int64_t numel = 0;
  bp_status s;
  c->status = BP_OK;
  c->message[0] = '\0';
  info->dtype = BP_DTYPE_INVALID;
  info->participants = 0;
  info->numel = 0;
  if (args == NULL) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "collective: args is NULL");
  if (args->struct_size < BP_COLLECTIVE_ARGS_SIZE_1_2)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "collective: args->struct_size %u is smaller than a version 1.2 bp_collective_args (%u)",
                          (unsigned)args->struct_size, (unsigned)BP_COLLECTIVE_ARGS_SIZE_1_2);
  name = bp_vocab_collective_name(args->collective);
  if (name == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "collective: %d is not a BP_COLLECTIVE_*",
                          (int)args->collective);
  reducing = args->collective == BP_COLLECTIVE_ALL_REDUCE || args->collective == BP_COLLECTIVE_REDUCE_SCATTER;
  gathered = args->collective == BP_COLLECTIVE_ALL_GATHER;
  scattered = args->collective == BP_COLLECTIVE_REDUCE_SCATTER;
  if (reducing && bp_vocab_reduce_op_name(args->reduce_op) == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: reduce_op %d is not a BP_REDUCE_*", name,
                          (int)args->reduce_op);
  if (args->count < 1 || (args->group != 0 && args->count != 1))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: count is %d (%s)", name, (int)args->count,
                          args->group != 0 ? "a group's collective has one participant in this process"
                                           : "at least 1");
  if (args->devices == NULL || args->inputs == NULL || args->outputs == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", name,
                          args->devices == NULL ? "devices" : args->inputs == NULL ? "inputs" : "outputs");
  n = args->group != 0 ? group_size : args->count;
  if (n < 1) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: the group has %d participants", name, (int)n);
  if (args->group == 0)
    for (i = 1; i < args->count; ++i)
      for (j = 0; j < i; ++j)
        if (args->devices[i] == args->devices[j])
          return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                                "%s: devices[%d] and devices[%d] are both device %d (participants are distinct "
                                "devices)",
                                name, (int)j, (int)i, (int)args->devices[i]);
  if (args->collective == BP_COLLECTIVE_BROADCAST && (args->root < 0 || args->root >= n))
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "%s: root %d is not a participant (0..%d)", name,
                          (int)args->root, (int)(n - 1));
  for (i = 0; i < args->count; ++i) {
    snprintf(role, sizeof role, "input %d", (int)i);
    s = bp_sdk_check_view(name, role, &args->inputs[i], 0, bytes_of, context, &numel, c);
    if (s == BP_OK && numel > 0) s = bp_sdk_check_contiguous_(name, role, &args->inputs[i], c);
    if (s != BP_OK) return s;
    snprintf(role, sizeof role, "output %d", (int)i);
    s = bp_sdk_check_view(name, role, &args->outputs[i], 1, bytes_of, context, &numel, c);
    if (s == BP_OK && numel > 0) s = bp_sdk_check_contiguous_(name, role, &args->outputs[i], c);
    if (s != BP_OK) return s;
  }
  first = &args->inputs[0];
  info->dtype = first->dtype;
  for (i = 0; i < args->count; ++i) {
    if (args->inputs[i].dtype != info->dtype || args->outputs[i].dtype != info->dtype)
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: %s %d is %s but input 0 is %s", name,
                            args->inputs[i].dtype != info->dtype ? "input" : "output", (int)i,
                            bp_vocab_dtype_name(args->inputs[i].dtype != info->dtype ? args->inputs[i].dtype
                                                                                     : args->outputs[i].dtype),
                            bp_vocab_dtype_name(info->dtype));
  }
  if (reducing && !bp_vocab_dtype_in_set(info->dtype, bp_vocab_reduce_op_dtypes(args->reduce_op)))
    return bp_sdk_reject_(c, BP_ERR_DTYPE, "%s: reduction %s is not defined for %s", name,
                          bp_vocab_reduce_op_name(args->reduce_op), bp_vocab_dtype_name(info->dtype));
  /* S: the inputs' shape, or for REDUCE_SCATTER what follows their leading n. */
  if (scattered && (first->rank < 1 || first->shape[0] != n))
    return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: input 0 %s does not have the leading extent %d (participants)",
                          name, bp_sdk_shape_text(first->rank, first->shape, a, sizeof a), (int)n);
  if (gathered && first->rank >= BP_MAX_RANK)
    return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: input 0 has rank %d; the output would need %d (at most %d)", name,
                          (int)first->rank, (int)first->rank + 1, BP_MAX_RANK);
  share_rank = scattered ? first->rank - 1 : first->rank;
  share_shape = scattered ? first->shape + 1 : first->shape;
  for (i = 0; i < args->count; ++i) {
    const bp_plugin_tensor *in = &args->inputs[i], *out = &args->outputs[i];
    int32_t fits = out->rank == share_rank + gathered && (!gathered || out->shape[0] == n);
    if (!bp_sdk_same_shape(in, first))
      return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: input %d %s differs from input 0 %s", name, (int)i,
                            bp_sdk_shape_text(in->rank, in->shape, a, sizeof a),
                            bp_sdk_shape_text(first->rank, first->shape, b, sizeof b));
    for (d = 0; fits && d < share_rank; ++d) fits = out->shape[d + gathered] == share_shape[d];
    if (!fits)
      return bp_sdk_reject_(c, BP_ERR_SHAPE, "%s: output %d %s does not fit input %s (%s)", name, (int)i,
                            bp_sdk_shape_text(out->rank, out->shape, a, sizeof a),
                            bp_sdk_shape_text(in->rank, in->shape, b, sizeof b),
                            gathered     ? "all_gather writes [n, S...]"
                            : scattered ? "reduce_scatter reads [n, S...] and writes S"
                                        : "the output has the input's shape");
  }
  numel = 1;
  for (d = 0; d < share_rank; ++d) numel *= share_shape[d];
  /* Overlaps: an output may be its own participant's input view, nothing else. */
  for (i = 0; numel > 0 && i < args->count; ++i) {
    uint64_t first_byte, end_byte, other_first, other_end;
    const bp_plugin_tensor *out = &args->outputs[i];
    bp_sdk_view_bytes_(out, &first_byte, &end_byte);
    for (j = 0; j < 2 * args->count; ++j) {
      const bp_plugin_tensor *v = j < args->count ? &args->inputs[j] : &args->outputs[j - args->count];
      if (v == out || v->buffer != out->buffer) continue;
      if (j == i && bp_sdk_same_view(v, out)) continue;
      bp_sdk_view_bytes_(v, &other_first, &other_end);
      if (first_byte < other_end && other_first < end_byte) {
        snprintf(role, sizeof role, "output %d", (int)i);
        snprintf(other, sizeof other, "%s %d", j < args->count ? "input" : "output",
                 (int)(j < args->count ? j : j - args->count));
        return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                              "%s: %s overlaps %s (an output is exactly its participant's input view, or "
                              "overlaps no input and no other output)",
                              name, role, other);
      }
    }
  }
  info->participants = n;
  info->numel = numel;
  return BP_OK;
}

/* ---- execute_fused() programs (since 1.3) -------------------------------- */

/* What bp_sdk_check_fused found. */
typedef struct bp_sdk_fused_info {
  int64_t numel;                                           /* elements of the program's shape */
  int32_t n_values;                                        /* n_inputs + n_instrs */
  int32_t value_dtypes[BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS]; /* dtype of every value */
} bp_sdk_fused_info;

/* Instruction k of a program as plugin.h's bp_fused_program fixes it. */
static inline bp_status bp_sdk_check_fused_instr_(const bp_fused_program *p, int32_t k,
                                                  const int32_t *value_dtypes, bp_sdk_check *c) {
  const bp_fused_instr *in = &p->instrs[k];
  const char *name = bp_vocab_op_name(in->op);
  const int32_t values = p->n_inputs + k;
  int32_t family, arity, i;
  if (name == NULL)
    return bp_sdk_reject_(c, BP_ERR_UNSUPPORTED, "fused instruction %d: operator %d is not in this plugin's vocabulary",
                          (int)k, (int)in->op);
  family = bp_vocab_op_family(in->op);
  if (family != BP_OP_FAMILY_BINARY && family != BP_OP_FAMILY_COMPARE && family != BP_OP_FAMILY_WHERE &&
      family != BP_OP_FAMILY_UNARY && family != BP_OP_FAMILY_COPY)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused instruction %d: %s is not an elementwise operator",
                          (int)k, name);
  arity = bp_vocab_family_arity(family);
  if (in->scalar_mode != BP_SCALAR_NONE) {
    if (family != BP_OP_FAMILY_BINARY && family != BP_OP_FAMILY_COMPARE)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused instruction %d: %s takes no scalar operand", (int)k,
                            name);
    if (in->scalar_mode != BP_SCALAR_RHS && in->scalar_mode != BP_SCALAR_LHS)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused instruction %d (%s): scalar_mode %d is not a bp_scalar_mode",
                            (int)k, name, (int)in->scalar_mode);
    arity = 1;
  }
  if (in->reserved != 0)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused instruction %d (%s): reserved is %d, not 0", (int)k, name,
                          (int)in->reserved);
  for (i = 0; i < 3; ++i) {
    const int32_t v = in->args[i];
    if (i >= arity) {
      if (v != -1)
        return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused instruction %d (%s): args[%d] is %d past the arity %d, not -1",
                              (int)k, name, (int)i, (int)v, (int)arity);
      continue;
    }
    if (v < 0 || v >= values)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                            "fused instruction %d (%s): operand %d is value %d, not one of the %d values before it",
                            (int)k, name, (int)i, (int)v, (int)values);
    {
      const int32_t want = family == BP_OP_FAMILY_WHERE && i == 0 ? BP_BOOL : in->dtype;
      if (value_dtypes[v] != want)
        return bp_sdk_reject_(c, BP_ERR_DTYPE, "fused instruction %d (%s): operand %d (value %d) is %s, not %s", (int)k,
                              name, (int)i, (int)v, bp_vocab_dtype_name(value_dtypes[v]), bp_vocab_dtype_name(want));
    }
  }
  if (!bp_vocab_allows(in->op, in->dtype, in->out_dtype))
    return bp_sdk_reject_(c, BP_ERR_UNSUPPORTED,
                          "fused instruction %d (%s): %s -> %s is not an (input, output) dtype pair the ABI defines",
                          (int)k, name, bp_vocab_dtype_name(in->dtype), bp_vocab_dtype_name(in->out_dtype));
  return BP_OK;
}

/* Validates everything about an execute_fused() call that plugin.h fixes:
 * struct_size reaches every 1.3 field; the counts are within
 * BP_FUSED_MAX_* (n_instrs and n_outputs at least 1) and the arrays they
 * describe are not NULL; every view is well-formed and inside a live buffer
 * of this plugin (bp_sdk_check_view), every input has the program's shape
 * (outputs[0]'s) and every output has it with dense C-order strides; each
 * instruction is an elementwise operator with its family's operands, each
 * an earlier value of the dtype the instruction says (BP_ERR_DTYPE
 * otherwise), -1 past the arity, and an (op, dtype, out_dtype) the ABI
 * defines (else BP_ERR_UNSUPPORTED); each output value is a value of the
 * output's dtype; and each output overlaps no other output and either is
 * the very same view as an input or overlaps none. Left to the plugin: the
 * device index and whether it implements each triple. Returns BP_OK and
 * fills *info, or a status with c->message set ("fused instruction 2 (sub):
 * ..."). */
static inline bp_status bp_sdk_check_fused(const bp_fused_program *p, bp_sdk_buffer_bytes_fn bytes_of,
                                           void *context, bp_sdk_fused_info *info, bp_sdk_check *c) {
  char role[32], a[160], b[160];
  int32_t i, j, k;
  int64_t numel = 0;
  bp_status s;
  c->status = BP_OK;
  c->message[0] = '\0';
  info->numel = 0;
  info->n_values = 0;
  if (p == NULL) return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused program: program is NULL");
  if (p->struct_size < BP_FUSED_PROGRAM_SIZE_1_3)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused program: struct_size %u is smaller than version 1.3's %u",
                          (unsigned)p->struct_size, (unsigned)BP_FUSED_PROGRAM_SIZE_1_3);
  if (p->n_inputs < 0 || p->n_inputs > BP_FUSED_MAX_INPUTS || p->n_instrs < 1 || p->n_instrs > BP_FUSED_MAX_INSTRS ||
      p->n_outputs < 1 || p->n_outputs > BP_FUSED_MAX_OUTPUTS)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                          "fused program: %d inputs, %d instructions, %d outputs (0..%d, 1..%d and 1..%d allowed)",
                          (int)p->n_inputs, (int)p->n_instrs, (int)p->n_outputs, BP_FUSED_MAX_INPUTS,
                          BP_FUSED_MAX_INSTRS, BP_FUSED_MAX_OUTPUTS);
  if ((p->n_inputs > 0 && p->inputs == NULL) || p->instrs == NULL || p->outputs == NULL || p->output_values == NULL)
    return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused program: inputs, instrs, outputs or output_values is NULL");
  for (j = 0; j < p->n_outputs; ++j) {
    snprintf(role, sizeof role, "output %d", (int)j);
    s = bp_sdk_check_view("fused program", role, &p->outputs[j], 1, bytes_of, context, &numel, c);
    if (s != BP_OK) return s;
    if (!bp_sdk_same_shape(&p->outputs[j], &p->outputs[0]))
      return bp_sdk_reject_(c, BP_ERR_SHAPE, "fused program: output %d has shape %s, output 0 %s", (int)j,
                            bp_sdk_shape_text(p->outputs[j].rank, p->outputs[j].shape, a, sizeof a),
                            bp_sdk_shape_text(p->outputs[0].rank, p->outputs[0].shape, b, sizeof b));
    /* A view without elements may have any strides (plugin.h). */
    if (numel > 0) {
      s = bp_sdk_check_contiguous_("fused program", role, &p->outputs[j], c);
      if (s != BP_OK) return s;
    }
    info->numel = numel;
  }
  for (i = 0; i < p->n_inputs; ++i) {
    snprintf(role, sizeof role, "input %d", (int)i);
    s = bp_sdk_check_view("fused program", role, &p->inputs[i], 0, bytes_of, context, &numel, c);
    if (s != BP_OK) return s;
    if (!bp_sdk_same_shape(&p->inputs[i], &p->outputs[0]))
      return bp_sdk_reject_shapes_("fused program", role, &p->inputs[i], &p->outputs[0], c);
    info->value_dtypes[i] = p->inputs[i].dtype;
  }
  for (k = 0; k < p->n_instrs; ++k) {
    s = bp_sdk_check_fused_instr_(p, k, info->value_dtypes, c);
    if (s != BP_OK) return s;
    info->value_dtypes[p->n_inputs + k] = p->instrs[k].out_dtype;
  }
  info->n_values = p->n_inputs + p->n_instrs;
  for (j = 0; j < p->n_outputs; ++j) {
    const int32_t v = p->output_values[j];
    if (v < 0 || v >= info->n_values)
      return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT, "fused program: output %d takes value %d, not one of the %d values",
                            (int)j, (int)v, (int)info->n_values);
    if (info->value_dtypes[v] != p->outputs[j].dtype)
      return bp_sdk_reject_(c, BP_ERR_DTYPE, "fused program: output %d is %s but its value %d is %s", (int)j,
                            bp_vocab_dtype_name(p->outputs[j].dtype), (int)v,
                            bp_vocab_dtype_name(info->value_dtypes[v]));
  }
  if (info->numel == 0) return BP_OK;
  for (j = 0; j < p->n_outputs; ++j) {
    uint64_t first, end, other_first, other_end;
    bp_sdk_view_bytes_(&p->outputs[j], &first, &end);
    for (i = 0; i < p->n_inputs + j; ++i) {
      const int32_t is_input = i < p->n_inputs;
      const bp_plugin_tensor *v = is_input ? &p->inputs[i] : &p->outputs[i - p->n_inputs];
      if (v->buffer != p->outputs[j].buffer || (is_input && bp_sdk_same_view(v, &p->outputs[j]))) continue;
      bp_sdk_view_bytes_(v, &other_first, &other_end);
      if (first < other_end && other_first < end)
        return bp_sdk_reject_(c, BP_ERR_INVALID_ARGUMENT,
                              "fused program: output %d overlaps %s %d (an output is the very same view as an "
                              "input, or overlaps no input and no other output)",
                              (int)j, is_input ? "input" : "output", (int)(is_input ? i : i - p->n_inputs));
    }
  }
  return BP_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_PLUGIN_SDK_H */
