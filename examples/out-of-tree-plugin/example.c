/*
 * example.c — a small but honest Backplane backend, built out of tree.
 *
 * One device, "example:0", whose memory is ordinary host memory. It
 * implements four operators for float32 — FILL, COPY, ADD, MUL — and COPY
 * from float32 into every integer dtype too, and says exactly that in
 * supports(); the core answers every other request with BP_ERR_UNSUPPORTED
 * before it ever reaches execute().
 *
 * It follows the rules of backplane/plugin.h with the help of the plugin
 * SDK, backplane/plugin_sdk.h (header-only; target backplane::plugin_sdk,
 * which backplane_add_plugin links):
 * - every entry checks its arguments and returns a status; the message of
 *   the last failure is kept per thread for last_error()
 *   (BP_SDK_DEFINE_ERRORS gives example_fail and example_last_error);
 * - structs the core passes (bp_op_attrs, bp_plugin_device_info) are read
 *   and written only up to their struct_size (BP_SDK_FITS);
 * - execute()'s arguments are validated completely by bp_sdk_check_execute:
 *   input count, views inside live buffers, shapes and dtypes;
 * - tensors are strided views (offset in bytes, strides in elements, stride 0
 *   on broadcast axes); the output may be the very same view as an input;
 * - a scalar operand (attrs.scalar_mode) takes the tensor's dtype;
 * - the views are walked in their coalesced space (bp_sdk_coalesce: the
 *   fewest axes their strides allow), and a float converts to an integer
 *   dtype as plugin.h's COPY says (bp_sdk_saturate_to), through the C type
 *   the SDK gives each dtype of the vocabulary (BP_SDK_CTYPE_<id>).
 *
 * Everything is synchronous, so synchronize() has nothing to wait for, and
 * the plugin is thread safe: the only shared state is atomic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backplane/plugin_sdk.h> /* includes backplane/plugin.h */

#ifndef EXAMPLE_VERSION
#define EXAMPLE_VERSION "0.1.0"
#endif

#define NAME "example"
#define EXAMPLE_MAGIC 0x4558414d504c4531ull /* "EXAMPLE1": marks live buffers */
#define MAX_BYTES ((uint64_t)1 << 40)      /* refuse anything larger: out of memory */

/* ---- errors -------------------------------------------------------------- */

/* bp_status example_fail(status, format, ...): keeps a printf-style message
 * for last_error() on this thread and returns `status`.
 * const char *example_last_error(void): the table's last_error. */
BP_SDK_DEFINE_ERRORS(example)

/* ---- the device ---------------------------------------------------------- */

static int g_started = 0;
static uint64_t g_in_use = 0; /* bytes in live buffers; __atomic */

static bp_status check_device(const char *entry, int32_t device) {
  if (!__atomic_load_n(&g_started, __ATOMIC_ACQUIRE))
    return example_fail(BP_ERR_STATE, "%s: the " NAME " backend was used before init", entry);
  if (device != 0) return example_fail(BP_ERR_UNKNOWN_DEVICE, "%s: there is no device " NAME ":%d (only " NAME ":0)", entry, (int)device);
  return BP_OK;
}

static bp_status example_init(const char *const *keys, const char *const *values, int32_t count) {
  (void)values;
  if (count < 0 || (count > 0 && (keys == NULL || keys[0] == NULL)))
    return example_fail(BP_ERR_INVALID_ARGUMENT, "init: %d options, but no key", (int)count);
  if (count > 0) /* [backend.example] in the config: a typo, since there is nothing to set */
    return example_fail(BP_ERR_CONFIG, "init: unknown option '%s' (the " NAME " backend takes none)", keys[0]);
  __atomic_store_n(&g_started, 1, __ATOMIC_RELEASE); /* a second init has nothing to redo */
  return BP_OK;
}

static bp_status example_device_count(int32_t *count, const char **why_none) {
  if (count == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "device_count: count is NULL");
  *count = 1;
  if (why_none) *why_none = NULL;
  return BP_OK;
}

static bp_status example_device_info(int32_t device, bp_plugin_device_info *info) {
  bp_status s = check_device("device_info", device);
  if (s != BP_OK) return s;
  if (info == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "device_info: info is NULL");
  /* Only the fields inside the core's struct_size: an older core's is shorter. */
  if (BP_SDK_FITS(info, kind)) info->kind = BP_DEVICE_CPU;
  if (BP_SDK_FITS(info, model)) snprintf(info->model, sizeof info->model, "%s", "example (host memory)");
  if (BP_SDK_FITS(info, memory_total)) info->memory_total = 0; /* unknown */
  if (BP_SDK_FITS(info, memory_free)) info->memory_free = 0;   /* unknown */
  if (BP_SDK_FITS(info, memory_in_use))
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
  if (b == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "%s: the buffer is NULL", entry);
  if (b->magic != EXAMPLE_MAGIC) return example_fail(BP_ERR_INVALID_ARGUMENT, "%s: not a live buffer of " NAME, entry);
  return BP_OK;
}

/* [offset, offset + bytes) inside the buffer, written so that nothing overflows. */
static bp_status check_range(const char *entry, bp_buffer b, uint64_t offset, uint64_t bytes) {
  if (offset > b->size || bytes > b->size - offset)
    return example_fail(BP_ERR_INVALID_ARGUMENT, "%s: %" PRIu64 " bytes at offset %" PRIu64 " do not fit in a buffer of %" PRIu64 " bytes",
                entry, bytes, offset, b->size);
  return BP_OK;
}

static bp_status example_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  bp_buffer b;
  bp_status s = check_device("alloc", device);
  if (s != BP_OK) return s;
  if (out == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "alloc: out is NULL");
  if (bytes > MAX_BYTES)
    return example_fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 cannot hold %" PRIu64 " bytes (at most %" PRIu64 ")", bytes, MAX_BYTES);
  b = (bp_buffer)malloc(sizeof *b);
  if (b) b->data = (unsigned char *)malloc(bytes ? (size_t)bytes : 1);
  if (b == NULL || b->data == NULL) {
    free(b);
    return example_fail(BP_ERR_OUT_OF_MEMORY, "alloc: " NAME ":0 is out of memory for %" PRIu64 " bytes", bytes);
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
  if (src == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  memcpy(dst->data + offset, src, (size_t)bytes);
  return BP_OK;
}

static bp_status example_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  bp_status s = check_buffer("read", src);
  if (s == BP_OK) s = check_range("read", src, offset, bytes);
  if (s != BP_OK) return s;
  if (bytes == 0) return BP_OK;
  if (dst == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
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
  if (address == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "host_address: address is NULL");
  *address = b->data;
  return BP_OK;
}

static bp_status example_synchronize(int32_t device) { return check_device("synchronize", device); }

/* ---- capabilities -------------------------------------------------------- */

static int is_integer(int32_t dtype) {
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  return kind == BP_DTYPE_KIND_SIGNED_INT || kind == BP_DTYPE_KIND_UNSIGNED_INT;
}

static int implements(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (dtype != BP_FLOAT32) return 0;
  if (op == BP_OP_COPY) return out_dtype == BP_FLOAT32 || is_integer(out_dtype);
  if (out_dtype != BP_FLOAT32) return 0;
  return op == BP_OP_FILL || op == BP_OP_ADD || op == BP_OP_MUL;
}

static bp_status example_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  bp_status s = check_device("supports", device);
  if (s != BP_OK) return s;
  if (answer == NULL) return example_fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  *answer = implements(op, dtype, out_dtype); /* unknown numbers: simply no */
  return BP_OK;
}

/* ---- execute ------------------------------------------------------------- */

/* Tells bp_sdk_check_execute which buffers are ours, and their sizes. */
static int32_t buffer_bytes(void *context, bp_buffer b, uint64_t *bytes) {
  (void)context;
  if (b == NULL || b->magic != EXAMPLE_MAGIC) return 0;
  *bytes = b->size;
  return 1;
}

/* x stored into an element of `dtype`: float32 as it is, an integer dtype
 * (the only others implements() admits) as COPY converts, truncated and
 * saturated, NaN to 0. The switch runs over every dtype of the vocabulary,
 * each with its C type from the SDK (BP_SDK_CTYPE_<id>): a dtype a newer
 * vocabulary adds is covered when this plugin is rebuilt. */
static void store(unsigned char *p, int32_t dtype, float x) {
  if (dtype == BP_FLOAT32) {
    memcpy(p, &x, sizeof x);
    return;
  }
  switch (dtype) {
#define STORE_INTEGER_(id, number, name, size, kind)                                  \
  case number: {                                                                      \
    const BP_SDK_CTYPE_##id v = (BP_SDK_CTYPE_##id)bp_sdk_saturate_to(x, number); \
    memcpy(p, &v, sizeof v);                                                          \
    return;                                                                           \
  }
    BP_DTYPE_LIST(STORE_INTEGER_)
#undef STORE_INTEGER_
    default: return;
  }
}

static float load(const unsigned char *p) {
  float x;
  memcpy(&x, p, sizeof x);
  return x;
}

static bp_status example_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                                 int32_t n_inputs, const bp_plugin_tensor *output) {
  bp_sdk_execute_info info; /* filled by bp_sdk_check_execute */
  bp_sdk_check check;
  double scalar = 0; /* a field past attrs->struct_size reads as 0 */
  /* The operands' space, coalesced: operand 0 the output, then the inputs
   * that are tensors (a scalar operand has no view). */
  unsigned char *base[3];
  const int64_t *view_strides[3];
  int64_t shape[BP_MAX_RANK], strides[3][BP_MAX_RANK];
  int64_t *const walk_strides[3] = {strides[0], strides[1], strides[2]};
  int64_t index[BP_MAX_RANK] = {0}, offset[3] = {0, 0, 0}, k;
  int32_t n = 1, rank, d, j;
  bp_status s = check_device("execute", device);
  if (s != BP_OK) return s;
  /* Everything plugin.h fixes: op, attrs, input count, views, shapes, dtypes. */
  if (bp_sdk_check_execute(op, attrs, inputs, n_inputs, output, buffer_bytes, NULL, &info, &check) != BP_OK)
    return example_fail(check.status, "%s", check.message);
  /* What is left is ours to say: do we implement it? */
  if (!implements(op, info.dtype, output->dtype))
    return example_fail(BP_ERR_UNSUPPORTED, "execute: the " NAME " backend does not implement %s for %s -> %s",
                        bp_vocab_op_name(op), bp_vocab_dtype_name(info.dtype), bp_vocab_dtype_name(output->dtype));
  if (BP_SDK_FITS(attrs, scalar)) scalar = attrs->scalar;
  if (info.numel == 0) return BP_OK; /* an empty view may have no buffer */

  base[0] = output->buffer->data + output->offset;
  view_strides[0] = output->strides;
  for (j = 0; j < n_inputs; ++j, ++n) {
    base[n] = inputs[j].buffer->data + inputs[j].offset;
    view_strides[n] = inputs[j].strides;
  }
  rank = bp_sdk_coalesce(output->rank, output->shape, n, view_strides, shape, walk_strides);

  /* Element by element in C order. Reading element k of every input before
   * writing element k of the output keeps an in-place call (output == input)
   * right. */
  for (k = 0; k < info.numel; ++k) {
    const int64_t out_size = bp_vocab_dtype_size(output->dtype);
    float value;
    if (op == BP_OP_FILL) {
      value = (float)scalar;
    } else if (op == BP_OP_COPY) {
      value = load(base[1] + offset[1] * 4);
    } else {
      float a, b;
      if (info.scalar_mode == BP_SCALAR_NONE) a = load(base[1] + offset[1] * 4), b = load(base[2] + offset[2] * 4);
      else if (info.scalar_mode == BP_SCALAR_RHS) a = load(base[1] + offset[1] * 4), b = (float)scalar;
      else a = (float)scalar, b = load(base[1] + offset[1] * 4);
      value = op == BP_OP_ADD ? a + b : a * b;
    }
    store(base[0] + offset[0] * out_size, output->dtype, value);
    /* The next position: like an odometer, innermost axis first. */
    for (d = rank - 1; d >= 0; --d) {
      for (j = 0; j < n; ++j) offset[j] += strides[j][d];
      if (++index[d] < shape[d]) break;
      for (j = 0; j < n; ++j) offset[j] -= strides[j][d] * shape[d];
      index[d] = 0;
    }
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

/* Declared in plugin.h; BP_PLUGIN_EXPORT makes it public although
 * backplane_add_plugin builds with hidden visibility. */
BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor; /* any minor: the host reads no field past our struct_size */
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &g_api : NULL;
}
