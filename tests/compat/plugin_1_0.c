/*
 * plugin_1_0.c — a backend built against the frozen ABI 1.0 headers
 * (tests/compat/abi-1.0), loaded by the current core in tests/compat.
 *
 * One device, "compat10:0", in host memory, with FILL, COPY, ADD and MUL for
 * float32 only, and nothing else: a 1.0 plugin as a third party would have
 * written it. Its table is a 1.0 table (struct_size = the 1.0 sizeof,
 * abi_minor = 0); whatever a newer core adds, it must still load and run it.
 *
 * Plain C99 and nothing but the frozen plugin.h/types.h: the build puts only
 * tests/compat/abi-1.0/include on the include path, and the #error below
 * stops the build if the current headers are found instead.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backplane/plugin.h>

#if BP_PLUGIN_ABI_MAJOR != 1 || BP_PLUGIN_ABI_MINOR != 0 || defined(BACKPLANE_VOCABULARY_H)
#error "plugin_1_0.c must be compiled against the frozen 1.0 headers only"
#endif

#define NAME "compat10"
#define MAGIC 0x434f4d5041543130ull /* "COMPAT10" */
#define MAX_BYTES ((uint64_t)1 << 40)

/* ---- errors ---------------------------------------------------------------- */

static __thread char g_message[512];

static const char *c_last_error(void) { return g_message; }

static bp_status fail(bp_status status, const char *format, ...) __attribute__((format(printf, 2, 3)));
static bp_status fail(bp_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_message, sizeof g_message, format, args);
  va_end(args);
  return status;
}

/* ---- the device (flags = 0: the core serialises every call) -------------- */

static int g_started = 0;
static uint64_t g_in_use = 0;

static bp_status check_device(const char *entry, int32_t device) {
  if (!g_started) return fail(BP_ERR_STATE, "%s: the " NAME " backend was used before init", entry);
  if (device != 0) return fail(BP_ERR_UNKNOWN_DEVICE, "%s: there is no device " NAME ":%d (only " NAME ":0)", entry, (int)device);
  return BP_OK;
}

static bp_status c_init(const char *const *keys, const char *const *values, int32_t count) {
  (void)values;
  if (g_started) return fail(BP_ERR_STATE, "init: the " NAME " backend is already started");
  if (count != 0) return fail(BP_ERR_CONFIG, "init: the " NAME " backend takes no options (got '%s')", keys && keys[0] ? keys[0] : "?");
  g_started = 1;
  return BP_OK;
}

static bp_status c_device_count(int32_t *count, const char **why_none) {
  if (count == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_count: count is NULL");
  *count = 1;
  if (why_none) *why_none = NULL;
  return BP_OK;
}

/* True when `field` lies inside the struct_size the caller announced. */
#define HAS(type, p, field) (offsetof(type, field) + sizeof((p)->field) <= (p)->struct_size)

static bp_status c_device_info(int32_t device, bp_plugin_device_info *info) {
  bp_status s = check_device("device_info", device);
  if (s != BP_OK) return s;
  if (info == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_info: info is NULL");
  if (HAS(bp_plugin_device_info, info, kind)) info->kind = BP_DEVICE_CPU;
  if (HAS(bp_plugin_device_info, info, model)) snprintf(info->model, sizeof info->model, "%s", "compat 1.0 (host memory)");
  if (HAS(bp_plugin_device_info, info, memory_total)) info->memory_total = 0;
  if (HAS(bp_plugin_device_info, info, memory_free)) info->memory_free = 0;
  if (HAS(bp_plugin_device_info, info, memory_in_use)) info->memory_in_use = g_in_use;
  return BP_OK;
}

/* ---- memory ---------------------------------------------------------------- */

struct bp_buffer_s {
  uint64_t magic;
  uint64_t size;
  unsigned char *data; /* never NULL, even for 0 bytes */
};

static bp_status check_buffer(const char *entry, bp_buffer b) {
  if (b == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "%s: the buffer is NULL", entry);
  if (b->magic != MAGIC) return fail(BP_ERR_INVALID_ARGUMENT, "%s: not a live buffer of " NAME, entry);
  return BP_OK;
}

static bp_status check_range(const char *entry, bp_buffer b, uint64_t offset, uint64_t bytes) {
  if (offset > b->size || bytes > b->size - offset)
    return fail(BP_ERR_INVALID_ARGUMENT, "%s: %llu bytes at offset %llu do not fit in a buffer of %llu bytes", entry,
                (unsigned long long)bytes, (unsigned long long)offset, (unsigned long long)b->size);
  return BP_OK;
}

static bp_status c_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  bp_buffer b;
  bp_status s = check_device("alloc", device);
  if (s != BP_OK) return s;
  if (out == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "alloc: out is NULL");
  if (bytes > MAX_BYTES)
    return fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 cannot hold %llu bytes", (unsigned long long)bytes);
  b = (bp_buffer)malloc(sizeof *b);
  if (b) b->data = (unsigned char *)malloc(bytes ? (size_t)bytes : 1);
  if (b == NULL || b->data == NULL) {
    free(b);
    return fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 is out of memory for %llu bytes", (unsigned long long)bytes);
  }
  b->magic = MAGIC;
  b->size = bytes;
  g_in_use += bytes;
  *out = b;
  return BP_OK;
}

static bp_status c_free(bp_buffer b) {
  bp_status s = check_buffer("free", b);
  if (s != BP_OK) return s;
  g_in_use -= b->size;
  b->magic = 0;
  free(b->data);
  free(b);
  return BP_OK;
}

static bp_status c_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  bp_status s = check_buffer("write", dst);
  if (s == BP_OK) s = check_range("write", dst, offset, bytes);
  if (s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  if (src == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  memcpy(dst->data + offset, src, (size_t)bytes);
  return BP_OK;
}

static bp_status c_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  bp_status s = check_buffer("read", src);
  if (s == BP_OK) s = check_range("read", src, offset, bytes);
  if (s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  if (dst == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
  memcpy(dst, src->data + offset, (size_t)bytes);
  return BP_OK;
}

static bp_status c_synchronize(int32_t device) { return check_device("synchronize", device); }

/* copy, host_address and device_properties are left NULL (optional in 1.0):
 * the core must stage through read/write instead. */

/* ---- capabilities ---------------------------------------------------------- */

static int implements(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (dtype != BP_FLOAT32 || out_dtype != BP_FLOAT32) return 0;
  return op == BP_OP_FILL || op == BP_OP_COPY || op == BP_OP_ADD || op == BP_OP_MUL;
}

static bp_status c_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  bp_status s = check_device("supports", device);
  if (s != BP_OK) return s;
  if (answer == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  *answer = implements(op, dtype, out_dtype);
  return BP_OK;
}

/* ---- execute --------------------------------------------------------------- */

static bp_status check_view(const bp_plugin_tensor *t, const char *role, int is_output, int64_t *numel) {
  int64_t n = 1, last = 0;
  int32_t d;
  if (t == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s is NULL", role);
  if (t->dtype != BP_FLOAT32) return fail(BP_ERR_UNSUPPORTED, "execute: %s is not float32 (dtype %d)", role, (int)t->dtype);
  if (t->rank < 0 || t->rank > BP_MAX_RANK) return fail(BP_ERR_SHAPE, "execute: %s has rank %d", role, (int)t->rank);
  for (d = 0; d < t->rank; ++d) {
    const int64_t limit = (int64_t)1 << 40;
    if (t->shape[d] < 0 || t->shape[d] > limit || t->strides[d] < 0 || t->strides[d] > limit)
      return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has extent %lld and stride %lld on axis %d", role,
                  (long long)t->shape[d], (long long)t->strides[d], (int)d);
    if (is_output && t->strides[d] == 0 && t->shape[d] > 1)
      return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has stride 0 on axis %d", role, (int)d);
    n *= t->shape[d];
    if (t->shape[d] > 0) last += (t->shape[d] - 1) * t->strides[d];
  }
  *numel = n;
  if (n == 0) return BP_OK;
  if (check_buffer("execute", t->buffer) != BP_OK) return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has no live buffer", role);
  if (t->offset % sizeof(float) != 0)
    return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has offset %llu, not a multiple of 4", role, (unsigned long long)t->offset);
  if (check_range("execute", t->buffer, t->offset, (uint64_t)(last + 1) * sizeof(float)) != BP_OK)
    return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s reaches past the end of its buffer", role);
  return BP_OK;
}

static float *at(const bp_plugin_tensor *t, int64_t i) {
  int64_t offset = 0;
  int32_t d;
  for (d = t->rank - 1; d >= 0; --d) {
    offset += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return (float *)(t->buffer->data + t->offset) + offset;
}

static bp_status c_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                           int32_t n_inputs, const bp_plugin_tensor *output) {
  int32_t mode = BP_SCALAR_NONE, expected, i;
  double scalar = 0;
  int64_t n = 0, k;
  bp_status s = check_device("execute", device);
  if (s != BP_OK) return s;
  if (op != BP_OP_FILL && op != BP_OP_COPY && op != BP_OP_ADD && op != BP_OP_MUL)
    return fail(BP_ERR_UNSUPPORTED, "execute: the " NAME " backend does not implement op %d", (int)op);
  if (attrs == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: attrs is NULL");
  if (HAS(bp_op_attrs, attrs, scalar_mode)) mode = attrs->scalar_mode;
  if (HAS(bp_op_attrs, attrs, scalar)) scalar = attrs->scalar;
  if (op == BP_OP_FILL) expected = 0;
  else if (op == BP_OP_COPY) expected = 1;
  else if (mode == BP_SCALAR_NONE) expected = 2;
  else if (mode == BP_SCALAR_RHS || mode == BP_SCALAR_LHS) expected = 1;
  else return fail(BP_ERR_INVALID_ARGUMENT, "execute: scalar_mode %d is not a bp_scalar_mode", (int)mode);
  if (n_inputs != expected)
    return fail(BP_ERR_INVALID_ARGUMENT, "execute: op %d takes %d inputs here, not %d", (int)op, (int)expected, (int)n_inputs);
  if (n_inputs > 0 && inputs == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: inputs is NULL");
  s = check_view(output, "the output", 1, &n);
  if (s != BP_OK) return s;
  for (i = 0; i < n_inputs; ++i) {
    int64_t m = 0;
    int32_t d;
    s = check_view(&inputs[i], "an input", 0, &m);
    if (s != BP_OK) return s;
    if (inputs[i].rank != output->rank) return fail(BP_ERR_SHAPE, "execute: input %d has another rank than the output", (int)i);
    for (d = 0; d < output->rank; ++d)
      if (inputs[i].shape[d] != output->shape[d])
        return fail(BP_ERR_SHAPE, "execute: input %d has another shape than the output", (int)i);
  }
  /* Element k of every input is read before element k of the output is
   * written, so an in-place call (output == input) is right. */
  for (k = 0; k < n; ++k) {
    float value;
    if (op == BP_OP_FILL) {
      value = (float)scalar;
    } else if (op == BP_OP_COPY) {
      value = *at(&inputs[0], k);
    } else {
      float a, b;
      if (mode == BP_SCALAR_NONE) a = *at(&inputs[0], k), b = *at(&inputs[1], k);
      else if (mode == BP_SCALAR_RHS) a = *at(&inputs[0], k), b = (float)scalar;
      else a = (float)scalar, b = *at(&inputs[0], k);
      value = op == BP_OP_ADD ? a + b : a * b;
    }
    *at(output, k) = value;
  }
  return BP_OK;
}

/* ---- the 1.0 table --------------------------------------------------------- */

static const bp_plugin_api g_api = {
    sizeof(bp_plugin_api), /* the 1.0 size: BP_PLUGIN_API_SIZE_1_0 */
    BP_PLUGIN_ABI_MAJOR,
    BP_PLUGIN_ABI_MINOR, /* 0 */
    0,                   /* not thread safe: the core serialises */
    NAME,
    "1.0.0",
    NAME,
    c_last_error,
    c_init,
    c_device_count,
    c_device_info,
    NULL, /* device_properties (optional) */
    c_alloc,
    c_free,
    c_write,
    c_read,
    NULL, /* copy (optional): the core stages through host memory */
    c_supports,
    c_execute,
    c_synchronize,
    NULL, /* host_address (optional) */
};

/* 1.0's plugin.h declares no export macro: the visibility attribute directly. */
__attribute__((visibility("default"))) const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                                              uint32_t host_abi_minor) {
  (void)host_abi_minor; /* any newer minor: the host reads nothing past our struct_size */
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &g_api : NULL;
}
