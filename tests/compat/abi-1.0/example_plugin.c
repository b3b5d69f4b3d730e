/*
 * example.c — a small but honest Backplane backend, built out of tree.
 *
 * One device, "example:0", whose memory is ordinary host memory. It
 * implements four operators for float32 only — FILL, COPY, ADD, MUL — and
 * says exactly that in supports(); the core answers every other request with
 * BP_ERR_UNSUPPORTED before it ever reaches execute().
 *
 * The rules it follows are those of backplane/plugin.h:
 * - every entry checks its arguments and returns a status; the message of
 *   the last failure is kept per thread for last_error();
 * - structs the core passes (bp_op_attrs, bp_plugin_device_info) are read
 *   and written only up to their struct_size;
 * - tensors are strided views (offset in bytes, strides in elements, stride 0
 *   on broadcast axes); the output may be the very same view as an input;
 * - a scalar operand (attrs.scalar_mode) takes the tensor's dtype.
 *
 * Everything is synchronous, so synchronize() has nothing to wait for, and
 * the plugin is thread safe: the only shared state is an atomic counter.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backplane/plugin.h>

#ifndef EXAMPLE_VERSION
#define EXAMPLE_VERSION "0.1.0"
#endif

#define NAME "example"
#define EXAMPLE_MAGIC 0x4558414d504c4531ull /* "EXAMPLE1": marks live buffers */
#define MAX_BYTES ((uint64_t)1 << 40)      /* refuse anything larger: out of memory */

/* ---- errors -------------------------------------------------------------- */

static __thread char g_message[512];

static const char *example_last_error(void) { return g_message; }

static bp_status fail(bp_status status, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Keeps the message for last_error() on this thread and returns `status`. */
static bp_status fail(bp_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_message, sizeof g_message, format, args);
  va_end(args);
  return status;
}

/* ---- the device ---------------------------------------------------------- */

static int g_started = 0;
static uint64_t g_in_use = 0; /* bytes in live buffers; __atomic */

static bp_status check_device(const char *entry, int32_t device) {
  if (!__atomic_load_n(&g_started, __ATOMIC_ACQUIRE))
    return fail(BP_ERR_STATE, "%s: the " NAME " backend was used before init", entry);
  if (device != 0) return fail(BP_ERR_UNKNOWN_DEVICE, "%s: there is no device " NAME ":%d (only " NAME ":0)", entry, (int)device);
  return BP_OK;
}

static bp_status example_init(const char *const *keys, const char *const *values, int32_t count) {
  (void)keys;
  (void)values;
  if (count != 0) return fail(BP_ERR_CONFIG, "init: the " NAME " backend takes no options");
  __atomic_store_n(&g_started, 1, __ATOMIC_RELEASE);
  return BP_OK;
}

static bp_status example_device_count(int32_t *count, const char **why_none) {
  if (count == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_count: count is NULL");
  *count = 1;
  if (why_none) *why_none = NULL;
  return BP_OK;
}

/* True when `field` lies inside the struct_size the caller announced. */
#define HAS(type, p, field) (offsetof(type, field) + sizeof((p)->field) <= (p)->struct_size)

static bp_status example_device_info(int32_t device, bp_plugin_device_info *info) {
  bp_status s = check_device("device_info", device);
  if (s != BP_OK) return s;
  if (info == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_info: info is NULL");
  if (HAS(bp_plugin_device_info, info, kind)) info->kind = BP_DEVICE_CPU;
  if (HAS(bp_plugin_device_info, info, model)) snprintf(info->model, sizeof info->model, "%s", "example (host memory)");
  if (HAS(bp_plugin_device_info, info, memory_total)) info->memory_total = 0; /* unknown */
  if (HAS(bp_plugin_device_info, info, memory_free)) info->memory_free = 0;   /* unknown */
  if (HAS(bp_plugin_device_info, info, memory_in_use))
    info->memory_in_use = __atomic_load_n(&g_in_use, __ATOMIC_RELAXED);
  return BP_OK;
}

/* ---- memory -------------------------------------------------------------- */

struct bp_buffer_s {
  uint64_t magic;
  uint64_t size;
  unsigned char *data; /* never NULL, even for 0 bytes */
};

static bp_status check_buffer(const char *entry, bp_buffer b) {
  if (b == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "%s: the buffer is NULL", entry);
  if (b->magic != EXAMPLE_MAGIC) return fail(BP_ERR_INVALID_ARGUMENT, "%s: not a live buffer of " NAME, entry);
  return BP_OK;
}

/* [offset, offset + bytes) inside the buffer, written so that nothing overflows. */
static bp_status check_range(const char *entry, bp_buffer b, uint64_t offset, uint64_t bytes) {
  if (offset > b->size || bytes > b->size - offset)
    return fail(BP_ERR_INVALID_ARGUMENT, "%s: %" PRIu64 " bytes at offset %" PRIu64 " do not fit in a buffer of %" PRIu64 " bytes",
                entry, bytes, offset, b->size);
  return BP_OK;
}

static bp_status example_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  bp_buffer b;
  bp_status s = check_device("alloc", device);
  if (s != BP_OK) return s;
  if (out == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "alloc: out is NULL");
  if (bytes > MAX_BYTES)
    return fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 cannot hold %" PRIu64 " bytes (at most %" PRIu64 ")", bytes, MAX_BYTES);
  b = (bp_buffer)malloc(sizeof *b);
  if (b) b->data = (unsigned char *)malloc(bytes ? (size_t)bytes : 1);
  if (b == NULL || b->data == NULL) {
    free(b);
    return fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 is out of memory for %" PRIu64 " bytes", bytes);
  }
  b->magic = EXAMPLE_MAGIC;
  b->size = bytes;
  __atomic_add_fetch(&g_in_use, bytes, __ATOMIC_RELAXED);
  *out = b;
  return BP_OK;
}

static bp_status example_free(bp_buffer b) {
  bp_status s = check_buffer("free", b);
  if (s != BP_OK) return s;
  __atomic_sub_fetch(&g_in_use, b->size, __ATOMIC_RELAXED);
  b->magic = 0;
  free(b->data);
  free(b);
  return BP_OK;
}

static bp_status example_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  bp_status s = check_buffer("write", dst);
  if (s == BP_OK) s = check_range("write", dst, offset, bytes);
  if (s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  if (src == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  memcpy(dst->data + offset, src, (size_t)bytes);
  return BP_OK;
}

static bp_status example_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  bp_status s = check_buffer("read", src);
  if (s == BP_OK) s = check_range("read", src, offset, bytes);
  if (s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  if (dst == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
  memcpy(dst, src->data + offset, (size_t)bytes);
  return BP_OK;
}

static bp_status example_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  bp_status s = check_buffer("copy", src);
  if (s == BP_OK) s = check_buffer("copy", dst);
  if (s == BP_OK) s = check_range("copy (source)", src, src_offset, bytes);
  if (s == BP_OK) s = check_range("copy (destination)", dst, dst_offset, bytes);
  if (s != BP_OK) return s;
  if (bytes) memmove(dst->data + dst_offset, src->data + src_offset, (size_t)bytes);
  return BP_OK;
}

static bp_status example_host_address(bp_buffer b, void **address) {
  bp_status s = check_buffer("host_address", b);
  if (s != BP_OK) return s;
  if (address == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "host_address: address is NULL");
  *address = b->data;
  return BP_OK;
}

static bp_status example_synchronize(int32_t device) { return check_device("synchronize", device); }

/* ---- capabilities -------------------------------------------------------- */

static int implements(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (dtype != BP_FLOAT32 || out_dtype != BP_FLOAT32) return 0;
  return op == BP_OP_FILL || op == BP_OP_COPY || op == BP_OP_ADD || op == BP_OP_MUL;
}

static bp_status example_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  bp_status s = check_device("supports", device);
  if (s != BP_OK) return s;
  if (answer == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  *answer = implements(op, dtype, out_dtype); /* unknown numbers: simply no */
  return BP_OK;
}

/* ---- execute ------------------------------------------------------------- */

/* Checks a float32 view: rank, extents, strides, and that every element it
 * reaches lies inside its buffer. */
static bp_status check_view(const bp_plugin_tensor *t, const char *role, int is_output, int64_t *numel) {
  int64_t n = 1, last = 0;
  int32_t d;
  if (t == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s is NULL", role);
  if (t->dtype != BP_FLOAT32) return fail(BP_ERR_UNSUPPORTED, "execute: %s is not float32 (dtype %d)", role, (int)t->dtype);
  if (t->rank < 0 || t->rank > BP_MAX_RANK) return fail(BP_ERR_SHAPE, "execute: %s has rank %d", role, (int)t->rank);
  for (d = 0; d < t->rank; ++d) {
    const int64_t limit = (int64_t)1 << 40;
    if (t->shape[d] < 0 || t->shape[d] > limit || t->strides[d] < 0 || t->strides[d] > limit)
      return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has extent %" PRId64 " and stride %" PRId64 " on axis %d", role,
                  t->shape[d], t->strides[d], (int)d);
    if (is_output && t->strides[d] == 0 && t->shape[d] > 1)
      return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has stride 0 on axis %d: its elements would overlap", role, (int)d);
    n *= t->shape[d];
    if (t->shape[d] > 0) last += (t->shape[d] - 1) * t->strides[d];
  }
  *numel = n;
  if (n == 0) return BP_OK; /* nothing is addressed */
  if (check_buffer("execute", t->buffer) != BP_OK) return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has no live buffer", role);
  if (t->offset % sizeof(float) != 0)
    return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has offset %" PRIu64 ", not a multiple of 4", role, t->offset);
  if (check_range("execute", t->buffer, t->offset, (uint64_t)(last + 1) * sizeof(float)) != BP_OK)
    return fail(BP_ERR_INVALID_ARGUMENT, "execute: %s reaches past the end of its buffer", role);
  return BP_OK;
}

/* The element at C-order position i of a checked view. */
static float *at(const bp_plugin_tensor *t, int64_t i) {
  int64_t offset = 0;
  int32_t d;
  for (d = t->rank - 1; d >= 0; --d) {
    offset += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return (float *)(t->buffer->data + t->offset) + offset;
}

static bp_status example_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                                 int32_t n_inputs, const bp_plugin_tensor *output) {
  int32_t mode = BP_SCALAR_NONE, expected, i;
  double scalar = 0; /* fields past attrs->struct_size read as 0 */
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
  if (n_inputs != expected) return fail(BP_ERR_INVALID_ARGUMENT, "execute: op %d takes %d inputs here, not %d", (int)op, (int)expected, (int)n_inputs);
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

  /* Element by element in C order. Reading element k of every input before
   * writing element k of the output keeps an in-place call (output == input)
   * right. */
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

/* ---- the table and the one exported symbol -------------------------------- */

static const bp_plugin_api g_api = {
    sizeof(bp_plugin_api),
    BP_PLUGIN_ABI_MAJOR,
    BP_PLUGIN_ABI_MINOR,
    BP_PLUGIN_THREAD_SAFE,
    NAME,            /* backend name */
    EXAMPLE_VERSION, /* plugin version */
    NAME,            /* device prefix: example:0 */
    example_last_error,
    example_init,
    example_device_count,
    example_device_info,
    NULL, /* device_properties (optional) */
    example_alloc,
    example_free,
    example_write,
    example_read,
    example_copy,
    example_supports,
    example_execute,
    example_synchronize,
    example_host_address,
};

__attribute__((visibility("default"))) const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                                              uint32_t host_abi_minor) {
  (void)host_abi_minor; /* any minor: the host reads no field past our struct_size */
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &g_api : NULL;
}
