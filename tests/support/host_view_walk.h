/*
 * host_view_walk.h — reading the elements of a plugin view whose buffer is
 * host memory, for the test plugins that wrap the reference plugin
 * (tests/conformance/planted/planted.c, tests/compat/eigen_like_plugin_1_0.c).
 * C99, static inline. Include after backplane/plugin.h of any ABI version:
 * it reads only the view fields of 1.0.
 */
#ifndef BP_TEST_HOST_VIEW_WALK_H
#define BP_TEST_HOST_VIEW_WALK_H

#include <stdint.h>
#include <string.h>

/* Steps idx through shape in C order; 0 after the last index. */
static inline int bp_test_next_index(int64_t *idx, const int64_t *shape, int32_t rank) {
  int32_t d;
  for (d = rank - 1; d >= 0; --d) {
    if (++idx[d] < shape[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

/* Address of element idx of view t, whose buffer's memory starts at base,
 * of elements element_size bytes wide. */
static inline unsigned char *bp_test_element_at(void *base, const bp_plugin_tensor *t, const int64_t *idx,
                                                int64_t element_size) {
  int64_t at = 0;
  int32_t d;
  for (d = 0; d < t->rank; ++d) at += idx[d] * t->strides[d];
  return (unsigned char *)base + t->offset + at * element_size;
}

/* The float32 (else float64) element at p, as a double. */
static inline double bp_test_load_float(const unsigned char *p, int32_t dtype) {
  if (dtype == BP_FLOAT32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  } else {
    double v;
    memcpy(&v, p, 8);
    return v;
  }
}

#endif
