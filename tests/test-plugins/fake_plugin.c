/*
 * A deliberately small plugin compiled many times with different macros:
 * once as a well-formed backend that implements only FILL for float32 (to
 * test BP_ERR_UNSUPPORTED), and once per way a plugin can be broken (to test
 * that the loader rejects each with its reason and keeps going).
 *
 *   FAKE_NAME, FAKE_PREFIX   backend name and device prefix
 *   FAKE_ABI_MAJOR           abi_major reported (default: the real one)
 *   FAKE_STRUCT_SIZE         struct_size reported (default: the real one)
 *   FAKE_NULL_EXECUTE        leave the required `execute` entry NULL
 *   FAKE_FAIL_INIT           init fails with a message
 *   FAKE_REFUSE_HOST         bp_plugin_get_api returns NULL
 *   FAKE_NO_ENTRY            export no entry symbol at all
 *   FAKE_ABORT_ON_LOAD       abort() while the library is being loaded
 */
#include <stdlib.h>
#include <string.h>

#include "backplane/plugin.h"

#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR BP_PLUGIN_ABI_MAJOR
#endif
#ifndef FAKE_STRUCT_SIZE
#define FAKE_STRUCT_SIZE sizeof(bp_plugin_api)
#endif

static const char *g_error = "";

#ifdef FAKE_ABORT_ON_LOAD
/* Runs inside dlopen: the host survives only if it probes in a child process. */
__attribute__((constructor)) static void abort_on_load(void) { abort(); }
#endif

static const char *fake_last_error(void) { return g_error; }

static bp_status fail(bp_status s, const char *msg) {
  g_error = msg;
  return s;
}

static bp_status fake_init(const char *const *k, const char *const *v, int32_t n) {
  (void)k;
  (void)v;
  (void)n;
#ifdef FAKE_FAIL_INIT
  return fail(BP_ERR_BACKEND, "the fake device refused to start");
#else
  return BP_OK;
#endif
}

static bp_status fake_device_count(int32_t *count, const char **why) {
  *count = 1;
  *why = NULL;
  return BP_OK;
}

static bp_status fake_device_info(int32_t device, bp_plugin_device_info *info) {
  if (device != 0) return fail(BP_ERR_INVALID_ARGUMENT, "no such device");
  info->kind = BP_DEVICE_ACCELERATOR;
  strcpy(info->model, "fake accelerator");
  return BP_OK;
}

static bp_status fake_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  void *p;
  if (device != 0) return fail(BP_ERR_INVALID_ARGUMENT, "no such device");
  if (bytes > ((uint64_t)1 << 40)) return fail(BP_ERR_OUT_OF_MEMORY, "fake:0 cannot hold that");
  p = malloc(bytes ? (size_t)bytes : 1);
  if (!p) return fail(BP_ERR_OUT_OF_MEMORY, "fake:0 is out of memory");
  *out = (bp_buffer)p;
  return BP_OK;
}

static bp_status fake_free(bp_buffer b) {
  free(b);
  return BP_OK;
}

static bp_status fake_write(bp_buffer dst, uint64_t off, const void *src, uint64_t n) {
  memcpy((char *)dst + off, src, (size_t)n);
  return BP_OK;
}

static bp_status fake_read(bp_buffer src, uint64_t off, void *dst, uint64_t n) {
  memcpy(dst, (const char *)src + off, (size_t)n);
  return BP_OK;
}

static bp_status fake_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype,
                               int32_t *answer) {
  (void)device;
  *answer = op == BP_OP_FILL && dtype == BP_FLOAT32 && out_dtype == BP_FLOAT32;
  return BP_OK;
}

/* FILL float32 on dense outputs only: all the fake backend claims. */
static bp_status fake_execute(int32_t device, int32_t op, const bp_op_attrs *attrs,
                              const bp_plugin_tensor *in, int32_t n_in,
                              const bp_plugin_tensor *out) {
  int64_t n = 1, i;
  int32_t d;
  float *p;
  (void)device;
  (void)in;
  if (op != BP_OP_FILL || n_in != 0 || out->dtype != BP_FLOAT32)
    return fail(BP_ERR_UNSUPPORTED, "the fake backend only fills float32 tensors");
  for (d = 0; d < out->rank; ++d) n *= out->shape[d];
  p = (float *)((char *)out->buffer + out->offset);
  for (i = 0; i < n; ++i) p[i] = (float)attrs->scalar;
  return BP_OK;
}

static bp_status fake_synchronize(int32_t device) {
  (void)device;
  return BP_OK;
}

static bp_status fake_host_address(bp_buffer b, void **address) {
  *address = b;
  return BP_OK;
}

static const bp_plugin_api g_api = {
    FAKE_STRUCT_SIZE, FAKE_ABI_MAJOR, BP_PLUGIN_ABI_MINOR, 0, FAKE_NAME, "0.0.1", FAKE_PREFIX,
    fake_last_error, fake_init, fake_device_count, fake_device_info, NULL, fake_alloc,
    fake_free, fake_write, fake_read, NULL, fake_supports,
#ifdef FAKE_NULL_EXECUTE
    NULL,
#else
    fake_execute,
#endif
    fake_synchronize, fake_host_address};

#ifndef FAKE_NO_ENTRY
__attribute__((visibility("default"))) const bp_plugin_api *bp_plugin_get_api(uint32_t major,
                                                                              uint32_t minor) {
  (void)major;
  (void)minor;
#ifdef FAKE_REFUSE_HOST
  return NULL;
#else
  return &g_api;
#endif
}
#else
/* Referenced so the table is not an unused-variable warning in this variant. */
__attribute__((visibility("default"))) const void *not_the_entry_symbol(void) { return &g_api; }
#endif
