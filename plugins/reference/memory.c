/*
 * memory.c — buffers: blocks of host memory that remember their size and
 * device, so every access can be checked before it happens.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* Bytes in live buffers. Updated with __atomic builtins because the plugin is
 * declared thread safe and C99 has no atomics of its own. */
static uint64_t g_bytes_in_use = 0;

uint64_t ref_memory_in_use(void) { return __atomic_load_n(&g_bytes_in_use, __ATOMIC_RELAXED); }

bp_status ref_check_buffer(const char *entry, const char *what, bp_buffer buffer) {
  if (buffer == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", entry, what);
  /* A best-effort sanity check, not a guarantee: it catches a buffer handed
   * to the wrong plugin or one already freed whose memory was not reused,
   * which are the likely bugs in a core under development. */
  if (buffer->magic != REF_BUFFER_MAGIC)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "%s: %s is not a live buffer of the " REF_NAME
                    " backend (freed, or made by another plugin?)", entry, what);
  return BP_OK;
}

/* How execute's argument check (bp_sdk_check_execute) learns about buffers:
 * the same magic test as ref_check_buffer, without a message (the SDK words
 * it: "input 1's buffer is not a live buffer of this plugin"). One device,
 * so a live buffer is always on the device the operator runs on; a plugin
 * with several would pass the device as `context` and compare. */
int32_t ref_buffer_bytes(void *context, bp_buffer buffer, uint64_t *bytes) {
  (void)context;
  if (buffer == NULL || buffer->magic != REF_BUFFER_MAGIC) return 0;
  *bytes = buffer->size;
  return 1;
}

/* BP_OK when [offset, offset + bytes) lies inside the buffer. Written as a
 * subtraction so that no sum can overflow. */
static bp_status check_range(const char *entry, const char *what, bp_buffer buffer,
                             uint64_t offset, uint64_t bytes) {
  if (offset > buffer->size || bytes > buffer->size - offset)
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "%s: %" PRIu64 " bytes at offset %" PRIu64 " do not fit in %s, which holds %"
                    PRIu64 " bytes", entry, bytes, offset, what, buffer->size);
  return BP_OK;
}

bp_status ref_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  uint64_t host_total;
  bp_buffer buffer;
  bp_status status = ref_check_device("alloc", device);
  if (status != BP_OK) return status;
  if (out == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "alloc: out is NULL");
  *out = NULL;

  /* Refuse what can never succeed before asking malloc: a size beyond
   * size_t cannot even be requested, and one beyond the machine's memory
   * would at best be granted lazily (overcommit) and end with the OOM killer
   * at first touch; under AddressSanitizer a huge malloc aborts the process.
   * An honest BP_ERR_OUT_OF_MEMORY now is better than any of those. */
  host_total = ref_host_memory_total();
  if ((uint64_t)(size_t)bytes != bytes || (host_total != 0 && bytes > host_total))
    return ref_fail(BP_ERR_OUT_OF_MEMORY,
                    "alloc: cannot allocate %" PRIu64 " bytes on " REF_NAME
                    ":%d: the host has %" PRIu64 " bytes of memory", bytes, (int)device,
                    host_total);

  buffer = (bp_buffer)malloc(sizeof *buffer);
  /* calloc: fresh buffers read as zeros, so a test that reads an element
   * nobody wrote sees the same value on every run. Size 0 still gets a real
   * (1-byte) block so that `data` is never NULL. */
  if (buffer != NULL) buffer->data = (unsigned char *)calloc(bytes > 0 ? (size_t)bytes : 1, 1);
  if (buffer == NULL || buffer->data == NULL) {
    free(buffer);
    return ref_fail(BP_ERR_OUT_OF_MEMORY,
                    "alloc: out of memory allocating %" PRIu64 " bytes on " REF_NAME ":%d", bytes,
                    (int)device);
  }
  buffer->magic = REF_BUFFER_MAGIC;
  buffer->device = device;
  buffer->size = bytes;
  buffer->borrowed = 0;
  buffer->release = NULL;
  buffer->release_context = NULL;
  __atomic_add_fetch(&g_bytes_in_use, bytes, __ATOMIC_RELAXED);
  *out = buffer;
  return BP_OK;
}

bp_status ref_wrap_host(int32_t device, void *data, uint64_t bytes, void (*release)(void *context),
                        void *context, bp_buffer *out) {
  bp_buffer buffer;
  bp_status status = ref_check_device("wrap_host", device);
  if (status != BP_OK) return status;
  if (out == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "wrap_host: out is NULL");
  *out = NULL;
  if (data == NULL && bytes > 0)
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "wrap_host: data is NULL but bytes is %" PRIu64 " (NULL is only for 0 bytes)",
                    bytes);
  if ((uint64_t)(size_t)bytes != bytes)
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "wrap_host: %" PRIu64 " bytes do not fit in this host's address space", bytes);
  buffer = (bp_buffer)malloc(sizeof *buffer);
  if (buffer == NULL)
    return ref_fail(BP_ERR_OUT_OF_MEMORY,
                    "wrap_host: out of memory allocating a buffer record on " REF_NAME ":%d",
                    (int)device);
  buffer->magic = REF_BUFFER_MAGIC;
  buffer->device = device;
  buffer->size = bytes;
  buffer->data = (unsigned char *)data;
  buffer->borrowed = 1;
  buffer->release = release;
  buffer->release_context = context;
  /* Not added to g_bytes_in_use: the memory is the caller's, not the
   * device's, so it must not make the device look fuller than it is. */
  *out = buffer;
  return BP_OK;
}

bp_status ref_free(bp_buffer buffer) {
  /* No pending work can use the buffer: every call ran to completion, so a
   * borrowed buffer's owner gets its memory back right here. */
  bp_status status = ref_check_buffer("free", "buffer", buffer);
  if (status != BP_OK) return status;
  buffer->magic = 0; /* so that a second free of it is likely to be caught */
  if (buffer->borrowed) {
    if (buffer->release != NULL) buffer->release(buffer->release_context);
  } else {
    __atomic_sub_fetch(&g_bytes_in_use, buffer->size, __ATOMIC_RELAXED);
    free(buffer->data);
  }
  free(buffer);
  return BP_OK;
}

bp_status ref_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  bp_status status = ref_check_buffer("write", "dst", dst);
  if (status == BP_OK) status = check_range("write", "dst", dst, offset, bytes);
  if (status != BP_OK) return status;
  if (bytes == 0) return BP_OK; /* memcpy with a NULL pointer is undefined even for 0 bytes */
  if (src == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  memcpy(dst->data + offset, src, (size_t)bytes);
  return BP_OK;
}

bp_status ref_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  /* "After all earlier work": there is none still running. */
  bp_status status = ref_check_buffer("read", "src", src);
  if (status == BP_OK) status = check_range("read", "src", src, offset, bytes);
  if (status != BP_OK) return status;
  if (bytes == 0) return BP_OK;
  if (dst == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
  memcpy(dst, src->data + offset, (size_t)bytes);
  return BP_OK;
}

bp_status ref_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                   uint64_t bytes) {
  bp_status status = ref_check_buffer("copy", "src", src);
  if (status == BP_OK) status = ref_check_buffer("copy", "dst", dst);
  if (status == BP_OK) status = check_range("copy", "src", src, src_offset, bytes);
  if (status == BP_OK) status = check_range("copy", "dst", dst, dst_offset, bytes);
  if (status != BP_OK) return status;
  if (bytes == 0) return BP_OK;
  /* memmove, not memcpy: src and dst may be overlapping ranges of one buffer. */
  memmove(dst->data + dst_offset, src->data + src_offset, (size_t)bytes);
  return BP_OK;
}

bp_status ref_host_address(bp_buffer buffer, void **address) {
  bp_status status = ref_check_buffer("host_address", "buffer", buffer);
  if (status != BP_OK) return status;
  if (address == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "host_address: address is NULL");
  *address = buffer->data; /* a wrapped buffer's: the caller's `data` itself */
  return BP_OK;
}
