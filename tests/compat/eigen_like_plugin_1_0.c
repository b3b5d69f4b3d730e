/*
 * eigen_like_plugin_1_0.c — a third-party backend of the 1.0 world, built
 * against the frozen 1.0 headers, that behaves where 1.0 left results open
 * as an Eigen backend does: COPY from a float to int32/int64 of NaN, +-inf
 * or a value out of range gives the x86 "integer indefinite" (the minimum,
 * as cvttss2si does), and MAXIMUM/MINIMUM of +0 and -0 give the other zero
 * than the reference's. Everything else is the reference plugin's (a copy
 * of it at REFERENCE_PATH), wrapped: only the 1.0 operators and dtypes are
 * declared.
 *
 * REPORTED_MINOR is the ABI minor its table reports: 0 (it passes every
 * level of `bp check`, which holds it to the rules of 1.0), or 1 (the same
 * behaviour claiming 1.1, which made float-to-integer saturation a rule: it
 * fails L2).
 */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/plugin.h"
#include "host_view_walk.h"

static bp_plugin_api g_api;
static const bp_plugin_api *g_real;
static _Thread_local const char *g_own_error;

/* The operators of ABI 1.0 (types.h of 1.0). */
static int op_of_1_0(int32_t op) {
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_DIV: case BP_OP_POW: case BP_OP_MAXIMUM:
    case BP_OP_MINIMUM: case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE:
    case BP_OP_WHERE: case BP_OP_NEG: case BP_OP_ABS: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT:
    case BP_OP_TANH: case BP_OP_SIGMOID: case BP_OP_RELU: case BP_OP_SUM: case BP_OP_MEAN: case BP_OP_MAX:
    case BP_OP_MIN: case BP_OP_ARGMAX: case BP_OP_NORM: case BP_OP_MATMUL: case BP_OP_COPY: case BP_OP_FILL:
    case BP_OP_ARANGE: case BP_OP_RANDOM_UNIFORM: case BP_OP_RANDOM_NORMAL:
      return 1;
    default:
      return 0;
  }
}

static int dtype_of_1_0(int32_t dtype) { return dtype >= BP_FLOAT32 && dtype <= BP_BOOL; }

static int64_t numel(const bp_plugin_tensor *t) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < t->rank; ++d) n *= t->shape[d];
  return n;
}

/* Address of element idx of a view (the reference's buffers are host memory). */
static unsigned char *element(const bp_plugin_tensor *t, const int64_t *idx) {
  void *base = NULL;
  g_real->host_address(t->buffer, &base);
  return bp_test_element_at(base, t, idx, t->dtype == BP_FLOAT32 || t->dtype == BP_INT32 ? 4 : 8);
}

static double load(const bp_plugin_tensor *t, const int64_t *idx) {
  return bp_test_load_float(element(t, idx), t->dtype);
}

/* Whether a float truncates into the integer dtype's range (NaN never does). */
static int fits(double x, int32_t dtype) {
  const double limit = dtype == BP_INT32 ? 2147483648.0 : 9223372036854775808.0;
  return x == x && trunc(x) >= -limit && trunc(x) < limit;
}

/* Views this wrapper may read before the reference has checked them: live
 * buffers, ranks in range. (The kit's malformed calls go to creation
 * operators, which it never reads.) */
static int well_formed(const bp_plugin_tensor *in, int32_t n_in, const bp_plugin_tensor *out) {
  void *base;
  int32_t i;
  if (!out || (n_in > 0 && !in) || n_in < 0 || n_in > 3) return 0;
  if (out->rank < 0 || out->rank > BP_MAX_RANK || g_real->host_address(out->buffer, &base) != BP_OK) return 0;
  for (i = 0; i < n_in; ++i) {
    int32_t d;
    if (in[i].rank != out->rank || g_real->host_address(in[i].buffer, &base) != BP_OK) return 0;
    for (d = 0; d < out->rank; ++d)
      if (in[i].shape[d] != out->shape[d]) return 0;
  }
  return 1;
}

/* The elements (C order) this plugin writes differently from the reference:
 * marked before the call, since an output may be its own input. NULL when
 * there are none or for any other operator. */
static unsigned char *mark_open_elements(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                                         int32_t n_in, const bp_plugin_tensor *out) {
  const int copy = op == BP_OP_COPY && n_in == 1 && (in[0].dtype == BP_FLOAT32 || in[0].dtype == BP_FLOAT64) &&
                   (out->dtype == BP_INT32 || out->dtype == BP_INT64);
  const int scalar = attrs && attrs->struct_size >= offsetof(bp_op_attrs, scalar) + sizeof(double) &&
                     attrs->scalar_mode != BP_SCALAR_NONE;
  const int zeros = (op == BP_OP_MAXIMUM || op == BP_OP_MINIMUM) && n_in == (scalar ? 1 : 2) &&
                    (out->dtype == BP_FLOAT32 || out->dtype == BP_FLOAT64);
  const int64_t n = numel(out);
  int64_t idx[BP_MAX_RANK] = {0}, k = 0;
  unsigned char *marks;
  int any = 0;
  if ((!copy && !zeros) || n <= 0) return NULL;
  marks = (unsigned char *)calloc((size_t)n, 1);
  if (!marks) return NULL;
  do {
    if (copy) {
      marks[k] = !fits(load(&in[0], idx), out->dtype);
    } else {
      const double a = load(&in[0], idx), b = scalar ? attrs->scalar : load(&in[1], idx);
      marks[k] = a == 0 && b == 0 && signbit(a) != signbit(b);
    }
    any |= marks[k++];
  } while (bp_test_next_index(idx, out->shape, out->rank));
  if (!any) {
    free(marks);
    return NULL;
  }
  return marks;
}

/* Writes this plugin's answer into the marked elements of the output. */
static void write_open_elements(const unsigned char *marks, int32_t op, const bp_plugin_tensor *out) {
  int64_t idx[BP_MAX_RANK] = {0}, k = 0;
  do {
    if (marks[k++]) {
      unsigned char *p = element(out, idx);
      if (op == BP_OP_COPY && out->dtype == BP_INT32) {
        const int32_t indefinite = INT32_MIN;
        memcpy(p, &indefinite, 4);
      } else if (op == BP_OP_COPY) {
        const int64_t indefinite = INT64_MIN;
        memcpy(p, &indefinite, 8);
      } else {
        p[out->dtype == BP_FLOAT32 ? 3 : 7] ^= 0x80; /* the other zero (little-endian sign byte) */
      }
    }
  } while (bp_test_next_index(idx, out->shape, out->rank));
}

static const char *eigen_last_error(void) { return g_own_error ? g_own_error : g_real->last_error(); }

static bp_status eigen_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  g_own_error = NULL;
  if (answer && (!op_of_1_0(op) || !dtype_of_1_0(dtype) || !dtype_of_1_0(out_dtype))) {
    bp_status s = g_real->supports(device, op, dtype, out_dtype, answer); /* its argument checks */
    *answer = 0;
    return s;
  }
  return g_real->supports(device, op, dtype, out_dtype, answer);
}

static bp_status eigen_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                               int32_t n_in, const bp_plugin_tensor *out) {
  unsigned char *marks = NULL;
  bp_status s;
  int32_t i, declared = 0;
  g_own_error = NULL;
  if (!op_of_1_0(op)) {
    g_own_error = "eigenlike: not an operator of ABI 1.0";
    return BP_ERR_UNSUPPORTED;
  }
  for (i = 0; in && i < n_in; ++i)
    if (!dtype_of_1_0(in[i].dtype)) {
      g_own_error = "eigenlike: an input's dtype is not one of ABI 1.0";
      return BP_ERR_UNSUPPORTED;
    }
  if (out && !dtype_of_1_0(out->dtype)) {
    g_own_error = "eigenlike: the output's dtype is not one of ABI 1.0";
    return BP_ERR_UNSUPPORTED;
  }
  /* Only a combination the reference runs is read here: the kit's calls of
   * undeclared ones (maximum bool -> float32) are the reference's to refuse. */
  if (well_formed(in, n_in, out) && n_in > 0 &&
      g_real->supports(device, op, in[0].dtype, out->dtype, &declared) == BP_OK && declared) {
    g_real->synchronize(device); /* earlier work into the inputs, before they are read */
    marks = mark_open_elements(op, attrs, in, n_in, out);
  }
  s = g_real->execute(device, op, attrs, in, n_in, out); /* the reference checks every argument */
  if (s == BP_OK && marks) {
    g_real->synchronize(device);
    write_open_elements(marks, op, out);
  }
  free(marks);
  return s;
}

__attribute__((visibility("default"))) const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                                               uint32_t host_abi_minor) {
  void *lib;
  const bp_plugin_api *(*get)(uint32_t, uint32_t);
  (void)host_abi_minor;
  if (host_abi_major != BP_PLUGIN_ABI_MAJOR) return NULL;
  if (g_real) return &g_api;
  lib = dlopen(REFERENCE_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  *(void **)&get = dlsym(lib, "bp_plugin_get_api");
  if (!get || !(g_real = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR))) return NULL;
  memcpy(&g_api, g_real, sizeof g_api); /* the 1.0 prefix of the reference's table */
  g_api.struct_size = sizeof g_api;
  g_api.abi_minor = REPORTED_MINOR;
  g_api.name = PLUGIN_NAME;
  g_api.version = "0.3.0";
  g_api.device_prefix = PLUGIN_NAME;
  g_api.last_error = eigen_last_error;
  g_api.supports = eigen_supports;
  g_api.execute = eigen_execute;
  return &g_api;
}
