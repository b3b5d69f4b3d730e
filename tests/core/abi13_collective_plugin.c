/*
 * A test plugin built as an ABI 1.3 plugin would be: its table ends at
 * execute_fused and says abi_minor 3, so the dtypes of 1.4 (float16 ...
 * int16) are numbers it never heard of. Two host-memory devices, no
 * operators, and a collective entry that sums float32 in process (anything
 * else of 1.3 it declines) and, as plugin.h tells a plugin given a dtype it
 * does not know, refuses that with BP_ERR_INVALID_ARGUMENT. The core must
 * therefore stage a collective of a 1.4 dtype itself instead of calling it
 * (tests/core/test_collectives_old_abi.cpp).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/plugin.h"

#define DEVICES 2

struct bp_buffer_s {
  int32_t device;
  uint64_t size;
  unsigned char *data;
};

static char g_error[256];
static uint64_t g_in_use[DEVICES];

static bp_status fail(bp_status s, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_error, sizeof g_error, format, args);
  va_end(args);
  return s;
}

static bp_status check_device(const char *entry, int32_t device) {
  if (device >= 0 && device < DEVICES) return BP_OK;
  return fail(BP_ERR_UNKNOWN_DEVICE, "%s: there is no device abi13:%d", entry, (int)device);
}

static const char *last_error(void) { return g_error; }

static bp_status init(const char *const *keys, const char *const *values, int32_t count) {
  (void)keys;
  (void)values;
  if (count > 0) return fail(BP_ERR_CONFIG, "init: abi13 takes no options");
  return BP_OK;
}

static bp_status device_count(int32_t *count, const char **why_none) {
  *count = DEVICES;
  *why_none = NULL;
  return BP_OK;
}

static bp_status device_info(int32_t device, bp_plugin_device_info *info) {
  bp_status s = check_device("device_info", device);
  if (s != BP_OK) return s;
  info->kind = BP_DEVICE_CPU;
  snprintf(info->model, sizeof info->model, "ABI 1.3 test device %d", (int)device);
  info->memory_total = 0;
  info->memory_free = 0;
  info->memory_in_use = g_in_use[device];
  return BP_OK;
}

static bp_status alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  bp_status s = check_device("alloc", device);
  bp_buffer b;
  if (s != BP_OK) return s;
  b = calloc(1, sizeof *b);
  if (b) b->data = malloc(bytes ? (size_t)bytes : 1);
  if (!b || !b->data) {
    free(b);
    return fail(BP_ERR_OUT_OF_MEMORY, "abi13:%d cannot hold %llu bytes", (int)device, (unsigned long long)bytes);
  }
  b->device = device;
  b->size = bytes;
  g_in_use[device] += bytes;
  *out = b;
  return BP_OK;
}

static bp_status release(bp_buffer b) {
  g_in_use[b->device] -= b->size;
  free(b->data);
  free(b);
  return BP_OK;
}

static bp_status write_buffer(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  if (offset > dst->size || bytes > dst->size - offset) return fail(BP_ERR_INVALID_ARGUMENT, "write: out of range");
  if (bytes) memcpy(dst->data + offset, src, (size_t)bytes);
  return BP_OK;
}

static bp_status read_buffer(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  if (offset > src->size || bytes > src->size - offset) return fail(BP_ERR_INVALID_ARGUMENT, "read: out of range");
  if (bytes) memcpy(dst, src->data + offset, (size_t)bytes);
  return BP_OK;
}

/* Careless about dtype numbers, as a plugin may be: NEG for any of them.
 * The core must still never hand it a dtype ABI 1.3 did not have. */
static bp_status supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  (void)dtype;
  (void)out_dtype;
  /* Yes to ERF as well, an operator number of 1.5 that this plugin cannot
   * know: the core must not ask. */
  *answer = op == BP_OP_NEG || op == BP_OP_ERF;
  return check_device("supports", device);
}

static bp_status execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                         int32_t n_inputs, const bp_plugin_tensor *output) {
  (void)attrs;
  (void)output;
  if (n_inputs > 0 && inputs[0].dtype >= BP_FLOAT16)
    return fail(BP_ERR_INTERNAL, "execute: abi13 was handed dtype %d, which ABI 1.3 does not have",
                (int)inputs[0].dtype);
  return fail(BP_ERR_UNSUPPORTED, "execute: abi13:%d has no operator %d", (int)device, (int)op);
}

static bp_status synchronize(int32_t device) { return check_device("synchronize", device); }

static bp_status host_address(bp_buffer buffer, void **address) {
  *address = buffer->data;
  return BP_OK;
}

static float *elements(const bp_plugin_tensor *t) {
  return (float *)(void *)(t->buffer->data + t->offset);
}

static bp_status collective(const bp_collective_args *a) {
  int32_t i, j;
  int64_t k, n = 1;
  const int32_t dtype = a->inputs[0].dtype;
  /* The dtypes of ABI 1.3: float32 .. bool. */
  if (dtype < BP_FLOAT32 || dtype > BP_BOOL)
    return fail(BP_ERR_INVALID_ARGUMENT, "collective: dtype %d is no dtype of ABI 1.3", (int)dtype);
  if (a->group != 0 || a->collective != BP_COLLECTIVE_ALL_REDUCE || a->reduce_op != BP_REDUCE_SUM ||
      dtype != BP_FLOAT32)
    return fail(BP_ERR_UNSUPPORTED, "collective: abi13 only sums float32 in process");
  for (i = 0; i < a->inputs[0].rank; ++i) n *= a->inputs[0].shape[i];
  for (k = 0; k < n; ++k) {
    float sum = 0;
    for (j = 0; j < a->count; ++j) sum += elements(&a->inputs[j])[k];
    for (j = 0; j < a->count; ++j) elements(&a->outputs[j])[k] = sum;
  }
  return BP_OK;
}

static const bp_plugin_api g_api = {
    .struct_size = BP_PLUGIN_API_SIZE_1_3,
    .abi_major = BP_PLUGIN_ABI_MAJOR,
    .abi_minor = 3,
    .flags = 0,
    .name = "abi13",
    .version = "1.3.0",
    .device_prefix = "abi13",
    .last_error = last_error,
    .init = init,
    .device_count = device_count,
    .device_info = device_info,
    .alloc = alloc,
    .free = release,
    .write = write_buffer,
    .read = read_buffer,
    .supports = supports,
    .execute = execute,
    .synchronize = synchronize,
    .host_address = host_address,
    .collective = collective,
};

BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &g_api : NULL;
}
