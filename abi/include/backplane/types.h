/*
 * backplane/types.h — the plain C99 vocabulary shared by the user API
 * (backplane.h) and the backend ABI (plugin.h): status codes, element types,
 * operator numbers and device kinds.
 *
 * Statuses, dtypes and operators are generated from the lists in
 * vocabulary.h, their one home. Every enum has explicit values and is
 * append-only: a value, once published, keeps its meaning forever. Values are
 * passed across the ABI as int32_t so that the size of an enum never matters.
 */
#ifndef BACKPLANE_TYPES_H
#define BACKPLANE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "backplane/vocabulary.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Highest tensor rank the runtime and every backend handle (since 1.0). */
#define BP_MAX_RANK 8

/* Result of every call. BP_OK is zero; anything else is an error whose text
 * is returned by bp_last_error() (user API) or last_error() (plugin ABI).
 * The values and their meanings are BP_STATUS_LIST in vocabulary.h. */
#define BP_STATUS_ENUMERATOR_(id, value, doc) BP_##id = value,
typedef enum bp_status { BP_STATUS_LIST(BP_STATUS_ENUMERATOR_) } bp_status;
#undef BP_STATUS_ENUMERATOR_

/* Element types: BP_DTYPE_INVALID, then BP_DTYPE_LIST in vocabulary.h
 * (BP_FLOAT32 = 1, BP_FLOAT64, BP_INT32, BP_INT64, BP_BOOL = 5 in 1.0;
 * BP_FLOAT16 = 6, BP_BFLOAT16, BP_INT8, BP_UINT8, BP_INT16 = 10 since 1.4). */
#define BP_DTYPE_ENUMERATOR_(id, value, name, size, kind) BP_##id = value,
typedef enum bp_dtype { BP_DTYPE_INVALID = 0, BP_DTYPE_LIST(BP_DTYPE_ENUMERATOR_) } bp_dtype;
#undef BP_DTYPE_ENUMERATOR_

/* One more than the largest bp_dtype value: sizes tables indexed by dtype
 * (since 1.0). It grows when a minor version appends a dtype; a table sized
 * by an older value must bounds-check what it is given. */
#define BP_DTYPE_COUNT 11 /* 6 in 1.0 to 1.3 */

/* What a device is; by default only GPU and ACCELERATOR kinds count for
 * bp_gpu()/bp_num_gpus() (the config key [devices] accelerator_kinds widens it). */
typedef enum bp_device_kind {
  BP_DEVICE_CPU = 1,
  BP_DEVICE_GPU = 2,
  BP_DEVICE_ACCELERATOR = 3
} bp_device_kind;

/* One free-form device property shown by `bp devices` (caller-allocated; since 1.0).
 * Crosses both boundaries as an array, so its layout is frozen for major 1. */
typedef struct bp_property {
  char key[64];     /* NUL-terminated, e.g. "openblas_core" */
  char value[192];  /* NUL-terminated, e.g. "Cooperlake" */
} bp_property;
#define BP_PROPERTY_SIZE_1_0 256 /* frozen (since 1.1) */
typedef char bp_property_size_check[sizeof(bp_property) == BP_PROPERTY_SIZE_1_0 ? 1 : -1];

/* Operators, numbered for the life of the ABI: BP_OP_LIST in vocabulary.h
 * gives each one's value, name, family, dtypes and output rule. The exact
 * semantics a backend implements are written in plugin.h. */
#define BP_OP_ENUMERATOR_(id, value, name, family, dtypes, out) BP_OP_##id = value,
typedef enum bp_op { BP_OP_LIST(BP_OP_ENUMERATOR_) } bp_op;
#undef BP_OP_ENUMERATOR_

/* One past the largest bp_op value; sizes capability tables (since 1.0). It
 * grows when a minor version appends an operator; a table sized by an older
 * value must bounds-check the operator it is asked about. */
#define BP_OP_LIMIT 160 /* 103 in 1.1 to 1.5 */

/* The limits above hold for every list entry, and every element size is a
 * power of two (checked at compile time; since 1.1). */
#define BP_OP_BELOW_LIMIT_(id, value, name, family, dtypes, out) &&(value) < BP_OP_LIMIT
#define BP_DTYPE_BELOW_COUNT_(id, value, name, size, kind) \
  &&(value) < BP_DTYPE_COUNT && ((size) & ((size)-1)) == 0
typedef char bp_op_limit_check[1 BP_OP_LIST(BP_OP_BELOW_LIMIT_) ? 1 : -1];
typedef char bp_dtype_count_check[1 BP_DTYPE_LIST(BP_DTYPE_BELOW_COUNT_) ? 1 : -1];
#undef BP_OP_BELOW_LIMIT_
#undef BP_DTYPE_BELOW_COUNT_

/* ---- the vocabulary's columns (since 1.1) -------------------------------- */

/* How an operator uses its inputs (BP_OP_FAMILY_LIST in vocabulary.h). */
#define BP_OP_FAMILY_ENUMERATOR_(id, value, name, arity) BP_OP_FAMILY_##id = value,
typedef enum bp_op_family { BP_OP_FAMILY_LIST(BP_OP_FAMILY_ENUMERATOR_) } bp_op_family;
#undef BP_OP_FAMILY_ENUMERATOR_

/* Collectives and their reductions (BP_COLLECTIVE_LIST and
 * BP_REDUCE_OP_LIST in vocabulary.h; since 1.2). */
#define BP_COLLECTIVE_ENUMERATOR_(id, value, name) BP_COLLECTIVE_##id = value,
typedef enum bp_collective { BP_COLLECTIVE_LIST(BP_COLLECTIVE_ENUMERATOR_) } bp_collective;
#undef BP_COLLECTIVE_ENUMERATOR_
#define BP_REDUCE_OP_ENUMERATOR_(id, value, name, dtypes) BP_REDUCE_##id = value,
typedef enum bp_reduce_op { BP_REDUCE_OP_LIST(BP_REDUCE_OP_ENUMERATOR_) } bp_reduce_op;
#undef BP_REDUCE_OP_ENUMERATOR_

/* What a dtype's elements are. */
typedef enum bp_dtype_kind {
  BP_DTYPE_KIND_BOOL = 1,
  BP_DTYPE_KIND_SIGNED_INT = 2,
  BP_DTYPE_KIND_UNSIGNED_INT = 3,
  BP_DTYPE_KIND_FLOAT = 4
} bp_dtype_kind;

/* The input dtypes an operator is defined for. */
typedef enum bp_dtype_set {
  BP_DTYPE_SET_FLOAT = 1,   /* float kinds */
  BP_DTYPE_SET_NUMERIC = 2, /* float and integer kinds (everything but bool) */
  BP_DTYPE_SET_ALL = 3,     /* every dtype, bool included */
  BP_DTYPE_SET_INTEGRAL = 4 /* integer and bool kinds: the bitwise operators (since 1.1) */
} bp_dtype_set;

/* How an operator's output dtype follows from its input dtype. */
typedef enum bp_out_rule {
  BP_OUT_SAME = 1,  /* the input's dtype */
  BP_OUT_BOOL = 2,  /* bool (comparisons) */
  BP_OUT_INT64 = 3, /* int64 (ARGMAX, ARGMIN) */
  BP_OUT_SUM = 4,   /* float inputs keep their dtype; integer and bool into int64 (SUM, PROD) */
  BP_OUT_ANY = 5    /* any dtype the caller asks for (COPY converts) */
} bp_out_rule;

/* ---- lookups generated from the lists (static inline, since 1.1) --------
 * Usable by applications and plugins alike without linking libbackplane.
 * Each returns NULL or 0 for a number it does not know (say, a value a newer
 * minor version added); none of them fails otherwise. */

/* "BP_ERR_SHAPE", or NULL. */
static inline const char *bp_vocab_status_name(int32_t status) {
  switch (status) {
#define BP_CASE_(id, value, doc) case value: return "BP_" #id;
    BP_STATUS_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* "float32", or NULL. */
static inline const char *bp_vocab_dtype_name(int32_t dtype) {
  switch (dtype) {
#define BP_CASE_(id, value, name, size, kind) case value: return name;
    BP_DTYPE_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* Bytes per element, or 0. */
static inline int32_t bp_vocab_dtype_size(int32_t dtype) {
  switch (dtype) {
#define BP_CASE_(id, value, name, size, kind) case value: return size;
    BP_DTYPE_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* A bp_dtype_kind, or 0. */
static inline int32_t bp_vocab_dtype_kind(int32_t dtype) {
  switch (dtype) {
#define BP_CASE_(id, value, name, size, kind) case value: return kind;
    BP_DTYPE_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* 1 when dtype is a known dtype inside the bp_dtype_set `set`, else 0. */
static inline int32_t bp_vocab_dtype_in_set(int32_t dtype, int32_t set) {
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  switch (set) {
    case BP_DTYPE_SET_FLOAT: return kind == BP_DTYPE_KIND_FLOAT;
    case BP_DTYPE_SET_NUMERIC: return kind != 0 && kind != BP_DTYPE_KIND_BOOL;
    case BP_DTYPE_SET_ALL: return kind != 0;
    case BP_DTYPE_SET_INTEGRAL: return kind != 0 && kind != BP_DTYPE_KIND_FLOAT;
    default: return 0;
  }
}

/* "binary", or NULL. */
static inline const char *bp_vocab_family_name(int32_t family) {
  switch (family) {
#define BP_CASE_(id, value, name, arity) case value: return name;
    BP_OP_FAMILY_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* Tensor inputs execute() receives for the family (BINARY: 2, or 1 with a
 * scalar operand), or -1. */
static inline int32_t bp_vocab_family_arity(int32_t family) {
  switch (family) {
#define BP_CASE_(id, value, name, arity) case value: return arity;
    BP_OP_FAMILY_LIST(BP_CASE_)
#undef BP_CASE_
    default: return -1;
  }
}

/* Tensors execute() writes for the family: BP_OP_FAMILY_OUTPUTS_LIST's
 * count, 1 for every other family, -1 for a number that is no family
 * (since 1.6). */
static inline int32_t bp_vocab_family_outputs(int32_t family) {
  switch (family) {
#define BP_CASE_(id, outputs) case BP_OP_FAMILY_##id: return outputs;
    BP_OP_FAMILY_OUTPUTS_LIST(BP_CASE_)
#undef BP_CASE_
    default: return bp_vocab_family_name(family) ? 1 : -1;
  }
}

/* "add", or NULL. */
static inline const char *bp_vocab_op_name(int32_t op) {
  switch (op) {
#define BP_CASE_(id, value, name, family, dtypes, out) case value: return name;
    BP_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* A bp_op_family, or 0. */
static inline int32_t bp_vocab_op_family(int32_t op) {
  switch (op) {
#define BP_CASE_(id, value, name, family, dtypes, out) case value: return family;
    BP_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* The bp_dtype_set of input dtypes the operator is defined for, or 0. */
static inline int32_t bp_vocab_op_dtypes(int32_t op) {
  switch (op) {
#define BP_CASE_(id, value, name, family, dtypes, out) case value: return dtypes;
    BP_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* The bp_out_rule of the operator, or 0. */
static inline int32_t bp_vocab_op_out(int32_t op) {
  switch (op) {
#define BP_CASE_(id, value, name, family, dtypes, out) case value: return out;
    BP_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* The ABI minor version that brought the operator, for the operators of
 * 1.5 and later (vocabulary.h's BP_OP_LIST_1_5, ...): the core asks a plugin
 * about it only when the plugin's abi_minor is at least this. 0 for the
 * operators of 1.0 to 1.4, which every plugin may be asked about, and for a
 * number that is no operator (since 1.6). */
static inline uint32_t bp_vocab_op_since(int32_t op) {
  switch (op) {
#define BP_CASE_5_(id, value, name, family, dtypes, out) case value: return 5;
#define BP_CASE_6_(id, value, name, family, dtypes, out) case value: return 6;
    BP_OP_LIST_1_5(BP_CASE_5_)
    BP_OP_LIST_1_6(BP_CASE_6_)
#undef BP_CASE_5_
#undef BP_CASE_6_
    default: return 0;
  }
}

/* "all_reduce", or NULL (since 1.2). */
static inline const char *bp_vocab_collective_name(int32_t collective) {
  switch (collective) {
#define BP_CASE_(id, value, name) case value: return name;
    BP_COLLECTIVE_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* "sum", or NULL (since 1.2). */
static inline const char *bp_vocab_reduce_op_name(int32_t reduce_op) {
  switch (reduce_op) {
#define BP_CASE_(id, value, name, dtypes) case value: return name;
    BP_REDUCE_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return NULL;
  }
}

/* The bp_dtype_set a reduction is defined for, or 0 (since 1.2). */
static inline int32_t bp_vocab_reduce_op_dtypes(int32_t reduce_op) {
  switch (reduce_op) {
#define BP_CASE_(id, value, name, dtypes) case value: return dtypes;
    BP_REDUCE_OP_LIST(BP_CASE_)
#undef BP_CASE_
    default: return 0;
  }
}

/* The output dtype the operator writes for input dtype `dtype`;
 * BP_DTYPE_INVALID when the ABI does not define the operator for that dtype
 * or the output is not fixed by it (COPY). */
static inline int32_t bp_vocab_out_dtype(int32_t op, int32_t dtype) {
  if (!bp_vocab_dtype_in_set(dtype, bp_vocab_op_dtypes(op))) return BP_DTYPE_INVALID;
  switch (bp_vocab_op_out(op)) {
    case BP_OUT_SAME: return dtype;
    case BP_OUT_BOOL: return BP_BOOL;
    case BP_OUT_INT64: return BP_INT64;
    case BP_OUT_SUM: return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT ? dtype : BP_INT64;
    default: return BP_DTYPE_INVALID;
  }
}

/* The signed integer dtype of `size` bytes, or BP_DTYPE_INVALID (since 1.4). */
static inline int32_t bp_vocab_signed_dtype(int32_t size) {
#define BP_CASE_(id, value, name, size_, kind) \
  if ((kind) == BP_DTYPE_KIND_SIGNED_INT && (size_) == size) return value;
  BP_DTYPE_LIST(BP_CASE_)
#undef BP_CASE_
  return BP_DTYPE_INVALID;
}

/* The dtype in which two tensor operands of dtypes a and b meet (since 1.4;
 * the user API's promotion, backplane.h). It depends on the dtypes only,
 * never on values, as in PyTorch and JAX:
 *
 * - Categories rank bool < integer < floating. Operands of different
 *   categories meet in the higher one's dtype: int64 with float16 gives
 *   float16, bool with uint8 gives uint8.
 * - Two integers of one signedness, or two floats of different sizes, meet
 *   in the wider.
 * - A signed and an unsigned integer meet in the signed one when it is
 *   wider, else in the signed dtype twice the unsigned one's size: int8 with
 *   uint8 gives int16 (every value of both fits).
 * - float16 with bfloat16 gives float32 (neither holds the other's values).
 *
 * The table it gives for the dtypes of 1.4 (symmetric; b8 is bool):
 *
 *            b8   u8   i8   i16  i32  i64  f16  bf16 f32  f64
 *     b8     b8   u8   i8   i16  i32  i64  f16  bf16 f32  f64
 *     u8          u8   i16  i16  i32  i64  f16  bf16 f32  f64
 *     i8               i8   i16  i32  i64  f16  bf16 f32  f64
 *     i16                   i16  i32  i64  f16  bf16 f32  f64
 *     i32                        i32  i64  f16  bf16 f32  f64
 *     i64                             i64  f16  bf16 f32  f64
 *     f16                                  f16  f32  f32  f64
 *     bf16                                      bf16 f32  f64
 *     f32                                           f32  f64
 *     f64                                                f64
 *
 * BP_DTYPE_INVALID when either is not a dtype, or when no dtype holds both
 * (an unsigned integer as wide as the widest signed one). */
static inline int32_t bp_vocab_promote(int32_t a, int32_t b) {
  const int32_t ka = bp_vocab_dtype_kind(a), kb = bp_vocab_dtype_kind(b);
  const int32_t ca = ka == BP_DTYPE_KIND_BOOL ? 0 : ka == BP_DTYPE_KIND_FLOAT ? 2 : 1;
  const int32_t cb = kb == BP_DTYPE_KIND_BOOL ? 0 : kb == BP_DTYPE_KIND_FLOAT ? 2 : 1;
  const int32_t sa = bp_vocab_dtype_size(a), sb = bp_vocab_dtype_size(b);
  if (ka == 0 || kb == 0) return BP_DTYPE_INVALID;
  if (a == b) return a;
  if (ca != cb) return ca > cb ? a : b;
  if (ka == kb) {
    if (sa != sb) return sa > sb ? a : b;
    return ka == BP_DTYPE_KIND_FLOAT ? BP_FLOAT32 : BP_DTYPE_INVALID;
  }
  /* One signed, one unsigned integer. */
  {
    const int32_t s = ka == BP_DTYPE_KIND_SIGNED_INT ? a : b;
    const int32_t u_size = ka == BP_DTYPE_KIND_SIGNED_INT ? sb : sa;
    return bp_vocab_dtype_size(s) > u_size ? s : bp_vocab_signed_dtype(2 * u_size);
  }
}

/* 1 when the ABI defines `op` for input dtype `dtype` writing `out_dtype`
 * (the pairs supports() may answer 1 for), else 0. */
static inline int32_t bp_vocab_allows(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (bp_vocab_op_out(op) == BP_OUT_ANY)
    return bp_vocab_dtype_in_set(dtype, bp_vocab_op_dtypes(op)) &&
           bp_vocab_dtype_kind(out_dtype) != 0;
  return out_dtype != BP_DTYPE_INVALID && bp_vocab_out_dtype(op, dtype) == out_dtype;
}

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TYPES_H */
