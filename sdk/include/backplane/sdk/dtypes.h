/*
 * backplane/sdk/dtypes.h — the C type that holds one element of each dtype
 * of the vocabulary (since 1.5). C99, C++ and CUDA.
 *
 * BP_SDK_CTYPE_<id> names the storage type of BP_<id>: float, double and
 * the fixed-width integers; uint8_t for bool (0 or 1); uint16_t holding the
 * bits of float16 and bfloat16 (backplane/half.h converts them). A switch
 * over the vocabulary picks them up with
 *
 *   #define CASE(id, value, name, size, kind) case value: ... BP_SDK_CTYPE_##id ...
 *   BP_DTYPE_LIST(CASE)
 *
 * so a plugin that lists dtypes this way follows the vocabulary: a dtype a
 * newer vocabulary adds without a row here fails to compile below, rather
 * than being left out silently. C++ plugins dispatch on the vocabulary's
 * dtype sets with bp_plugin::dispatch_set (plugin_sdk.hpp).
 */
#ifndef BACKPLANE_SDK_DTYPES_H
#define BACKPLANE_SDK_DTYPES_H

#include <stdint.h>

#include "backplane/types.h"

#define BP_SDK_CTYPE_FLOAT32 float
#define BP_SDK_CTYPE_FLOAT64 double
#define BP_SDK_CTYPE_INT32 int32_t
#define BP_SDK_CTYPE_INT64 int64_t
#define BP_SDK_CTYPE_BOOL uint8_t
#define BP_SDK_CTYPE_FLOAT16 uint16_t
#define BP_SDK_CTYPE_BFLOAT16 uint16_t
#define BP_SDK_CTYPE_INT8 int8_t
#define BP_SDK_CTYPE_UINT8 uint8_t
#define BP_SDK_CTYPE_INT16 int16_t

/* Every vocabulary dtype has a storage type of its size (C99 has no
 * static_assert: a negative array size stops the build). */
#define BP_SDK_CTYPE_CHECK_(id, value, name, size, kind) \
  typedef char bp_sdk_ctype_size_##id[sizeof(BP_SDK_CTYPE_##id) == (size) ? 1 : -1];
BP_DTYPE_LIST(BP_SDK_CTYPE_CHECK_)
#undef BP_SDK_CTYPE_CHECK_

#endif /* BACKPLANE_SDK_DTYPES_H */
