/*
 * backplane/types.h — the plain C99 vocabulary shared by the user API
 * (backplane.h) and the backend ABI (plugin.h): status codes, element types,
 * operator numbers and device kinds.
 *
 * Every enum has explicit values and is append-only: a value, once published,
 * keeps its meaning forever. Values are passed across the ABI as int32_t so
 * that the size of an enum never matters.
 */
#ifndef BACKPLANE_TYPES_H
#define BACKPLANE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Highest tensor rank the runtime and every backend handle (since 1.0). */
#define BP_MAX_RANK 8

/* Result of every call. BP_OK is zero; anything else is an error whose text
 * is returned by bp_last_error() (user API) or last_error() (plugin ABI). */
typedef enum bp_status {
  BP_OK = 0,
  BP_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, bad enum value, bad option */
  BP_ERR_INVALID_HANDLE = 2,   /* zero, released or never-issued tensor handle, or bad bp_device id */
  BP_ERR_DEVICE_MISMATCH = 3,  /* operator inputs live on different devices */
  BP_ERR_UNKNOWN_DEVICE = 4,   /* a device name or index that does not exist */
  BP_ERR_UNSUPPORTED = 5,      /* the owning backend does not implement op/dtype */
  BP_ERR_SHAPE = 6,            /* shapes cannot broadcast, bad axis, bad rank */
  BP_ERR_DTYPE = 7,            /* element type not allowed for this operator */
  BP_ERR_OUT_OF_MEMORY = 8,    /* a host or device allocation failed */
  BP_ERR_CONFIG = 9,           /* the TOML configuration is malformed or invalid */
  BP_ERR_PLUGIN = 10,          /* a backend could not be loaded or initialised */
  BP_ERR_BACKEND = 11,         /* a backend call failed (driver error, ...) */
  BP_ERR_STATE = 12,           /* call not valid now (e.g. bp_init twice) */
  BP_ERR_INTERNAL = 13         /* a bug in Backplane; the message says where */
} bp_status;

/* Element types. Bool is stored as one byte holding 0 or 1. */
typedef enum bp_dtype {
  BP_DTYPE_INVALID = 0,
  BP_FLOAT32 = 1,
  BP_FLOAT64 = 2,
  BP_INT32 = 3,
  BP_INT64 = 4,
  BP_BOOL = 5
} bp_dtype;

/* Number of bp_dtype values including BP_DTYPE_INVALID (since 1.0). */
#define BP_DTYPE_COUNT 6

/* What a device is; by default only GPU and ACCELERATOR kinds count for
 * bp_gpu()/bp_num_gpus() (the config key [devices] accelerator_kinds widens it). */
typedef enum bp_device_kind {
  BP_DEVICE_CPU = 1,
  BP_DEVICE_GPU = 2,
  BP_DEVICE_ACCELERATOR = 3
} bp_device_kind;

/* One free-form device property shown by `bp devices` (caller-allocated; since 1.0). */
typedef struct bp_property {
  char key[64];     /* NUL-terminated, e.g. "openblas_core" */
  char value[192];  /* NUL-terminated, e.g. "Cooperlake" */
} bp_property;

/* Operators, numbered for the life of the ABI. The exact semantics a backend
 * must implement are written in plugin.h, above bp_plugin_get_api_fn. */
typedef enum bp_op {
  /* binary elementwise, inputs and output of one dtype (comparisons: bool out) */
  BP_OP_ADD = 1,
  BP_OP_SUB = 2,
  BP_OP_MUL = 3,
  BP_OP_DIV = 4,
  BP_OP_POW = 5,
  BP_OP_MAXIMUM = 6,
  BP_OP_MINIMUM = 7,
  BP_OP_EQ = 8,
  BP_OP_NE = 9,
  BP_OP_LT = 10,
  BP_OP_LE = 11,
  BP_OP_GT = 12,
  BP_OP_GE = 13,
  /* ternary: where(cond, a, b) */
  BP_OP_WHERE = 14,
  /* unary elementwise */
  BP_OP_NEG = 20,
  BP_OP_ABS = 21,
  BP_OP_EXP = 22,
  BP_OP_LOG = 23,
  BP_OP_SQRT = 24,
  BP_OP_TANH = 25,
  BP_OP_SIGMOID = 26,
  BP_OP_RELU = 27,
  /* reductions */
  BP_OP_SUM = 40,
  BP_OP_MEAN = 41,
  BP_OP_MAX = 42,
  BP_OP_MIN = 43,
  BP_OP_ARGMAX = 44,
  BP_OP_NORM = 45, /* Frobenius norm: sqrt(sum(x*x)) */
  /* linear algebra */
  BP_OP_MATMUL = 60,
  /* element copy with conversion (cast, contiguous copy, copy into a view) */
  BP_OP_COPY = 70,
  /* creation, no inputs */
  BP_OP_FILL = 80,
  BP_OP_ARANGE = 81,
  BP_OP_RANDOM_UNIFORM = 82,
  BP_OP_RANDOM_NORMAL = 83
} bp_op;

/* One past the largest bp_op value; sizes capability tables (since 1.0). */
#define BP_OP_LIMIT 84

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TYPES_H */
