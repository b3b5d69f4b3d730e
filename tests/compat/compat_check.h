/*
 * compat_check.h — the few checking helpers the 1.0 compatibility programs
 * share. Plain C99 over the frozen 1.0 backplane.h: every check that fails
 * prints what it expected and what it got (with bp_last_error()), the program
 * goes on, and exits 1 at the end if anything failed.
 */
#ifndef COMPAT_CHECK_H
#define COMPAT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backplane/backplane.h>

/* The frozen headers and nothing newer: 1.1's types.h includes vocabulary.h
 * and its backplane.h says minor 1. */
#if BP_API_VERSION_MAJOR != 1 || BP_API_VERSION_MINOR != 0 || defined(BACKPLANE_VOCABULARY_H)
#error "the compat programs must be compiled against tests/compat/abi-1.0/include only"
#endif

static int g_failures = 0;
static int g_checks = 0;

#define COMPAT_FAIL(...)                                   \
  do {                                                     \
    ++g_failures;                                          \
    fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                          \
    fprintf(stderr, "\n");                                 \
  } while (0)

/* A condition that must hold. */
#define CHECK(cond)                                  \
  do {                                               \
    ++g_checks;                                      \
    if (!(cond)) COMPAT_FAIL("%s", #cond);           \
  } while (0)

/* A call that must return `expected` (a bp_status). */
#define CHECK_STATUS(call, expected)                                                                \
  do {                                                                                              \
    int32_t got_ = (int32_t)(call);                                                                 \
    ++g_checks;                                                                                     \
    if (got_ != (int32_t)(expected))                                                                \
      COMPAT_FAIL("%s returned %s (%d), expected %s; last error: %s", #call, bp_status_name(got_), \
                  (int)got_, #expected, bp_last_error());                                           \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, BP_OK)

/* A call that must succeed for the rest of the program to make sense. */
#define REQUIRE_OK(call)                                                                       \
  do {                                                                                         \
    int32_t got_ = (int32_t)(call);                                                            \
    ++g_checks;                                                                                \
    if (got_ != BP_OK) {                                                                       \
      COMPAT_FAIL("%s returned %s (%d); last error: %s", #call, bp_status_name(got_), (int)got_, \
                  bp_last_error());                                                            \
      fprintf(stderr, "cannot go on: %d of %d checks failed\n", g_failures, g_checks);        \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

#define CHECK_STR(got, expected)                                                               \
  do {                                                                                         \
    const char *g_ = (got);                                                                    \
    const char *e_ = (expected);                                                               \
    ++g_checks;                                                                                \
    if (g_ == NULL || strcmp(g_, e_) != 0)                                                     \
      COMPAT_FAIL("%s is \"%s\", expected \"%s\"", #got, g_ ? g_ : "(null)", e_);              \
  } while (0)

#define CHECK_CONTAINS(got, part)                                                              \
  do {                                                                                         \
    const char *g_ = (got);                                                                    \
    ++g_checks;                                                                                \
    if (g_ == NULL || strstr(g_, (part)) == NULL)                                              \
      COMPAT_FAIL("%s is \"%s\", which does not contain \"%s\"", #got, g_ ? g_ : "(null)", (part)); \
  } while (0)

#define CHECK_INT(got, expected)                                                               \
  do {                                                                                         \
    long long g_ = (long long)(got);                                                           \
    long long e_ = (long long)(expected);                                                      \
    ++g_checks;                                                                                \
    if (g_ != e_) COMPAT_FAIL("%s is %lld, expected %lld", #got, g_, e_);                      \
  } while (0)

/* Reads a float32 tensor and compares it with n expected values. */
static void check_f32_at(const char *file, int line, const char *what, bp_tensor t, const float *expected,
                         int64_t n) {
  float got[64];
  int64_t numel = -1, i;
  int32_t dtype = 0;
  ++g_checks;
  if (n > 64 || bp_tensor_numel(t, &numel) != BP_OK || numel != n || bp_tensor_dtype(t, &dtype) != BP_OK ||
      dtype != BP_FLOAT32) {
    ++g_failures;
    fprintf(stderr, "FAILED %s:%d: %s: expected %lld float32 elements, the tensor has %lld of dtype %s (%s)\n", file,
            line, what, (long long)n, (long long)numel, bp_dtype_name(dtype), bp_last_error());
    return;
  }
  if (bp_to_host(t, got, (uint64_t)n * sizeof(float)) != BP_OK) {
    ++g_failures;
    fprintf(stderr, "FAILED %s:%d: %s: bp_to_host: %s\n", file, line, what, bp_last_error());
    return;
  }
  for (i = 0; i < n; ++i) {
    float tol = 1e-5f * (fabsf(expected[i]) > 1 ? fabsf(expected[i]) : 1);
    if (!(fabsf(got[i] - expected[i]) <= tol)) {
      ++g_failures;
      fprintf(stderr, "FAILED %s:%d: %s: element %lld is %.9g, expected %.9g\n", file, line, what, (long long)i,
              (double)got[i], (double)expected[i]);
      return;
    }
  }
}
#define CHECK_F32(what, t, ...)                                                      \
  do {                                                                               \
    static const float e_[] = {__VA_ARGS__};                                         \
    check_f32_at(__FILE__, __LINE__, what, t, e_, (int64_t)(sizeof e_ / sizeof e_[0])); \
  } while (0)

static int compat_finish(const char *program) {
  if (g_failures) {
    fprintf(stderr, "%s: %d of %d checks FAILED\n", program, g_failures, g_checks);
    return 1;
  }
  printf("%s: all %d checks passed\n", program, g_checks);
  return 0;
}

#endif /* COMPAT_CHECK_H */
