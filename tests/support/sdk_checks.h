/*
 * sdk_checks.h — what the SDK's C tests (tests/sdk) share: the
 * count of checks and failures that main reports, and dense views on the
 * fake plugin's buffers. C99; one test program includes it once.
 */
#ifndef BP_TEST_SDK_CHECKS_H
#define BP_TEST_SDK_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backplane/plugin.h"

static int g_failed = 0, g_checks = 0;

#define CHECK(cond)                                            \
  do {                                                         \
    ++g_checks;                                                \
    if (!(cond)) {                                             \
      ++g_failed;                                              \
      printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                          \
  } while (0)

/* A row-major view of `rank` extents at offset 0 of `buffer`. */
static inline bp_plugin_tensor bp_test_dense_view(bp_buffer buffer, int32_t dtype, int32_t rank, const int64_t *shape) {
  bp_plugin_tensor t;
  int64_t stride = 1;
  int32_t d;
  memset(&t, 0, sizeof t);
  t.buffer = buffer;
  t.dtype = dtype;
  t.rank = rank;
  for (d = rank - 1; d >= 0; --d) {
    t.shape[d] = shape[d];
    t.strides[d] = stride;
    stride *= shape[d];
  }
  return t;
}

#endif
