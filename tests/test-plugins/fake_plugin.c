/*
 * A deliberately small plugin compiled many times with different macros:
 * once as a well-formed backend that implements only FILL for float32 (to
 * test BP_ERR_UNSUPPORTED; it passes `bp check` at every level for what it
 * declares), and once per way a plugin can be broken (to test that the
 * loader rejects each with its reason and keeps going, and that `bp check`
 * names each fault).
 *
 *   FAKE_NAME, FAKE_PREFIX   backend name and device prefix
 *   FAKE_ABI_MAJOR           abi_major reported (default: the real one)
 *   FAKE_STRUCT_SIZE         struct_size reported (default: the real one)
 *   FAKE_VERSION             the version string (default "0.0.1"; may be NULL)
 *   FAKE_NULL_EXECUTE        leave the required `execute` entry NULL
 *   FAKE_FAIL_INIT           init fails with a message
 *   FAKE_REFUSE_HOST         bp_plugin_get_api returns NULL
 *   FAKE_NO_ENTRY            export no entry symbol at all
 *   FAKE_ABORT_ON_LOAD       abort() while the library is being loaded
 *   FAKE_HANG_ON_LOAD        never return from loading (its pid written to
 *                            $BP_FAKE_PID_FILE first, when set)
 *   FAKE_CRASH_IN_EXECUTE    a well-formed FILL writes through a NULL struct pointer (SIGSEGV)
 *   FAKE_WRITE_PAST_END      FILL writes one element past the end of its output
 *   FAKE_LIES                supports() also says yes to ADD and MUL float32,
 *                            but ADD computes a - b and MUL is refused
 *   FAKE_IGNORES_STRIDES     FILL writes its elements densely from the offset,
 *                            whatever the output's strides say
 *   FAKE_HANGS               a well-formed FILL never returns
 *   FAKE_UNTERMINATED_ERROR  last_error returns 100 bytes before an unreadable page, no NUL
 *   FAKE_HUGE_ERROR          last_error returns a 64 MiB string
 *   FAKE_UNTERMINATED_FIELD  the table's string field of this name (name,
 *                            version, device_prefix) is like that last_error
 *   FAKE_EXECUTE_STATUS      execute returns this status, whatever it is asked
 *   FAKE_INFO_OVERRUN        device_info writes this many bytes past the
 *                            struct_size it was given (as a plugin built
 *                            against a longer struct and ignoring struct_size)...
 *   FAKE_INFO_OVERRUN_AFTER  ...from its call number this on (default 0: every call)
 *   FAKE_PROPERTIES_OVERRUN  has device_properties, which writes one property
 *                            more than the capacity it is given
 *   FAKE_CORRUPTS_HEAP       a well-formed FILL also overwrites the allocator's
 *                            header of its output's storage
 *
 * Every entry checks its arguments (NULL pointers, device index, buffer
 * bounds, views) and answers a bad call with an error and a message.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/plugin.h"

#if defined(FAKE_HANGS) || defined(FAKE_INIT_HANGS) || defined(FAKE_INIT_EXITS) || defined(FAKE_HANG_ON_LOAD)
#include <unistd.h>
#endif
#ifdef FAKE_THREAD_CRASHES
#include <pthread.h>
#include <time.h>
#endif
#if defined(FAKE_UNTERMINATED_ERROR) || defined(FAKE_UNTERMINATED_FIELD)
#include <sys/mman.h>
#include <unistd.h>
#endif

#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR BP_PLUGIN_ABI_MAJOR
#endif
#ifndef FAKE_VERSION
#define FAKE_VERSION "0.0.1"
#endif
#ifndef FAKE_STRUCT_SIZE
#define FAKE_STRUCT_SIZE sizeof(bp_plugin_api)
#endif
#ifndef FAKE_DEVICE_COUNT
#define FAKE_DEVICE_COUNT 1
#endif
#ifndef FAKE_INFO_OVERRUN_AFTER
#define FAKE_INFO_OVERRUN_AFTER 0
#endif
#ifndef FAKE_NAME_POINTER
#define FAKE_NAME_POINTER FAKE_NAME
#endif

#define FAKE_MAGIC 0x46414b4542554631ull /* "FAKEBUF1" */

/* A buffer: a header, the bytes, and 16 bytes of slack so that the
 * write-past-end variant damages nothing but what `bp check` watches. */
struct bp_buffer_s {
  unsigned long long magic;
  uint64_t size;
  unsigned char *data;
};

static __thread char g_error[256];
static uint64_t g_in_use = 0; /* bytes in live buffers (calls are serialised: no flag) */

#ifdef FAKE_ABORT_ON_LOAD
/* Runs inside dlopen: the host survives only if it probes in a child process. */
__attribute__((constructor)) static void abort_on_load(void) { abort(); }
#endif

#ifdef FAKE_HANG_ON_LOAD
/* Runs inside dlopen and never returns; the pid file tells a test which
 * process is stuck in it. */
__attribute__((constructor)) static void hang_on_load(void) {
  const char *path = getenv("BP_FAKE_PID_FILE");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (f) {
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
  }
  for (;;) pause();
}
#endif

#if defined(FAKE_UNTERMINATED_ERROR) || defined(FAKE_UNTERMINATED_FIELD)
/* 100 bytes before an unreadable page, and no NUL anywhere: whatever reads
 * it to its end faults on the PROT_NONE page, every time. */
static const char *unterminated_text(void) {
  static char *text = NULL;
  if (!text) {
    long page = sysconf(_SC_PAGESIZE);
    char *p = (char *)mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(p, 'x', (size_t)page);
    mprotect(p + page, (size_t)page, PROT_NONE);
    text = p + page - 100;
  }
  return text;
}
#endif

#if defined(FAKE_UNTERMINATED_ERROR)
static const char *fake_last_error(void) { return unterminated_text(); }
#elif defined(FAKE_HUGE_ERROR)
/* A 64 MiB message. */
static const char *fake_last_error(void) {
  static char *text = NULL;
  if (!text) {
    text = (char *)malloc((size_t)64 << 20);
    memset(text, 'y', ((size_t)64 << 20) - 1);
    text[((size_t)64 << 20) - 1] = '\0';
  }
  return text;
}
#else
static const char *fake_last_error(void) { return g_error; }
#endif

static bp_status fail(bp_status s, const char *msg) {
  snprintf(g_error, sizeof g_error, "%s", msg);
  return s;
}

static bp_status fail_device(const char *entry, int32_t device) {
  snprintf(g_error, sizeof g_error, "%s: there is no device " FAKE_PREFIX ":%d (the only one is " FAKE_PREFIX ":0)",
           entry, (int)device);
  return BP_ERR_UNKNOWN_DEVICE;
}

static bp_status check_buffer(const char *entry, bp_buffer b) {
  if (b == NULL || b->magic != FAKE_MAGIC) {
    snprintf(g_error, sizeof g_error, "%s: not a live buffer of " FAKE_NAME, entry);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return BP_OK;
}

static bp_status check_range(const char *entry, bp_buffer b, uint64_t offset, uint64_t bytes) {
  if (offset > b->size || bytes > b->size - offset) {
    snprintf(g_error, sizeof g_error, "%s: %llu bytes at offset %llu do not fit in a buffer of %llu bytes", entry,
             (unsigned long long)bytes, (unsigned long long)offset, (unsigned long long)b->size);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return BP_OK;
}

#ifdef FAKE_THREAD_CRASHES
/* Started by init: faults 200 ms later, long after init has returned. */
static void *crash_later(void *unused) {
  struct timespec t = {0, 200 * 1000 * 1000};
  (void)unused;
  nanosleep(&t, NULL);
  *(volatile int *)16 = 1;
  return NULL;
}
#endif

static bp_status fake_init(const char *const *k, const char *const *v, int32_t n) {
  (void)k;
  (void)v;
  (void)n;
#if defined(FAKE_THREAD_CRASHES)
  {
    static int started = 0;
    pthread_t thread;
    if (!started && pthread_create(&thread, NULL, crash_later, NULL) == 0) {
      started = 1;
      pthread_detach(thread);
    }
  }
  return BP_OK;
#elif defined(FAKE_INIT_ABORTS)
  abort();
#elif defined(FAKE_INIT_EXITS)
  _exit(0);
#elif defined(FAKE_INIT_HANGS)
  for (;;) pause();
#elif defined(FAKE_INIT_LOG)
  {
    /* One line per init, so a test can count the processes that ran it. */
    const char *log = getenv("BP_FAKE_INIT_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
      fputs("init\n", f);
      fclose(f);
    }
  }
  return BP_OK;
#elif defined(FAKE_FAIL_INIT)
  return fail(BP_ERR_BACKEND, "the fake device refused to start");
#else
  return BP_OK;
#endif
}

static bp_status fake_device_count(int32_t *count, const char **why) {
  if (count == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_count: count is NULL");
  *count = FAKE_DEVICE_COUNT;
  if (why) *why = NULL;
  return BP_OK;
}

#define INFO_HAS(info, field) (offsetof(bp_plugin_device_info, field) + sizeof((info)->field) <= (info)->struct_size)

static bp_status fake_device_info(int32_t device, bp_plugin_device_info *info) {
#ifdef FAKE_ENUM_CRASHES
  *(volatile int *)info = 0;
  *(volatile int *)16 = 1;
#endif
  if (device < 0 || device >= FAKE_DEVICE_COUNT) return fail_device("device_info", device);
  if (info == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "device_info: info is NULL");
  if (INFO_HAS(info, kind)) info->kind = BP_DEVICE_ACCELERATOR;
  if (INFO_HAS(info, model)) snprintf(info->model, sizeof info->model, "%s", "fake accelerator");
  if (INFO_HAS(info, memory_in_use)) info->memory_in_use = g_in_use;
#ifdef FAKE_INFO_OVERRUN
  {
    static int calls = 0; /* calls are serialised: no atomic */
    if (calls++ >= FAKE_INFO_OVERRUN_AFTER)
      memset((char *)info + info->struct_size, 0x5a, FAKE_INFO_OVERRUN); /* the bug this variant exists for */
  }
#endif
  return BP_OK;
}

#ifdef FAKE_PROPERTIES_OVERRUN
static bp_status fake_device_properties(int32_t device, bp_property *props, int32_t capacity, int32_t *count) {
  int32_t i;
  if (device != 0) return fail_device("device_properties", device);
  if (count == NULL || capacity < 0) return fail(BP_ERR_INVALID_ARGUMENT, "device_properties: bad arguments");
  for (i = 0; i <= capacity; ++i) { /* <=: the bug this variant exists for */
    snprintf(props[i].key, sizeof props[i].key, "key%d", (int)i);
    snprintf(props[i].value, sizeof props[i].value, "value%d", (int)i);
  }
  *count = capacity;
  return BP_OK;
}
#define FAKE_DEVICE_PROPERTIES fake_device_properties
#else
#define FAKE_DEVICE_PROPERTIES NULL
#endif

static bp_status fake_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  bp_buffer b;
  if (device != 0) return fail_device("alloc", device);
  if (out == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "alloc: out is NULL");
#ifdef FAKE_ALLOC_STATUS
  return fail((bp_status)(FAKE_ALLOC_STATUS), "alloc: a status from nowhere");
#endif
  if (bytes > ((uint64_t)1 << 40)) {
    snprintf(g_error, sizeof g_error, FAKE_PREFIX ":0 cannot hold %llu bytes", (unsigned long long)bytes);
    return BP_ERR_OUT_OF_MEMORY;
  }
  b = (bp_buffer)malloc(sizeof *b);
  if (b) b->data = (unsigned char *)malloc((size_t)bytes + 16);
  if (!b || !b->data) {
    free(b);
    return fail(BP_ERR_OUT_OF_MEMORY, FAKE_PREFIX ":0 is out of memory");
  }
  b->magic = FAKE_MAGIC;
  b->size = bytes;
  g_in_use += bytes;
  *out = b;
  return BP_OK;
}

static bp_status fake_free(bp_buffer b) {
  bp_status s = check_buffer("free", b);
  if (s != BP_OK) return s;
  g_in_use -= b->size;
  b->magic = 0;
  free(b->data);
  free(b);
  return BP_OK;
}

static bp_status fake_write(bp_buffer dst, uint64_t off, const void *src, uint64_t n) {
  bp_status s = check_buffer("write", dst);
  if (s == BP_OK) s = check_range("write", dst, off, n);
  if (s != BP_OK) return s;
  if (n == 0) return BP_OK;
  if (src == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  memcpy(dst->data + off, src, (size_t)n);
  return BP_OK;
}

static bp_status fake_read(bp_buffer src, uint64_t off, void *dst, uint64_t n) {
  bp_status s = check_buffer("read", src);
  if (s == BP_OK) s = check_range("read", src, off, n);
  if (s != BP_OK) return s;
  if (n == 0) return BP_OK;
  if (dst == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
  memcpy(dst, src->data + off, (size_t)n);
  return BP_OK;
}

static int declares(int32_t op, int32_t dtype, int32_t out_dtype) {
  if (dtype != BP_FLOAT32 || out_dtype != BP_FLOAT32) return 0;
#ifdef FAKE_LIES
  if (op == BP_OP_ADD || op == BP_OP_MUL) return 1;
#endif
  return op == BP_OP_FILL;
}

static bp_status fake_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  if (device != 0) return fail_device("supports", device);
  if (answer == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  *answer = declares(op, dtype, out_dtype);
  return BP_OK;
}

/* A float32 view that lies inside its buffer: BP_OK, or an error naming `role`. */
static bp_status check_view(const bp_plugin_tensor *t, const char *role, int is_output, int64_t *numel) {
  int64_t n = 1, last = 0;
  int32_t d;
  if (t == NULL) {
    snprintf(g_error, sizeof g_error, "execute: %s is NULL", role);
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (t->dtype != BP_FLOAT32) {
    snprintf(g_error, sizeof g_error, "execute: %s has dtype %d; " FAKE_NAME " only does float32", role, (int)t->dtype);
    return BP_ERR_UNSUPPORTED;
  }
  if (t->rank < 0 || t->rank > BP_MAX_RANK) {
    snprintf(g_error, sizeof g_error, "execute: %s has rank %d", role, (int)t->rank);
    return BP_ERR_SHAPE;
  }
  for (d = 0; d < t->rank; ++d) {
    if (t->shape[d] < 0 || t->shape[d] > ((int64_t)1 << 40) || t->strides[d] < 0 || t->strides[d] > ((int64_t)1 << 40)) {
      snprintf(g_error, sizeof g_error, "execute: %s has extent %lld and stride %lld on axis %d", role,
               (long long)t->shape[d], (long long)t->strides[d], (int)d);
      return BP_ERR_INVALID_ARGUMENT;
    }
    if (is_output && t->strides[d] == 0 && t->shape[d] > 1) {
      snprintf(g_error, sizeof g_error, "execute: %s overlaps itself (stride 0 on axis %d)", role, (int)d);
      return BP_ERR_INVALID_ARGUMENT;
    }
    n *= t->shape[d];
    if (t->shape[d] > 0) last += (t->shape[d] - 1) * t->strides[d];
  }
  *numel = n;
  if (n == 0) return BP_OK;
  if (check_buffer("execute", t->buffer) != BP_OK || t->offset % sizeof(float) != 0 ||
      check_range("execute", t->buffer, t->offset, (uint64_t)(last + 1) * sizeof(float)) != BP_OK) {
    snprintf(g_error, sizeof g_error, "execute: %s does not lie inside a live buffer of " FAKE_NAME, role);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return BP_OK;
}

/* The address of the element at C-order position i of a checked view. */
static float *element(const bp_plugin_tensor *t, int64_t i) {
  int64_t at = 0;
  int32_t d;
  for (d = t->rank - 1; d >= 0; --d) {
    at += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return (float *)(t->buffer->data + t->offset) + at;
}

#define ATTRS_HAS(a, field) (offsetof(bp_op_attrs, field) + sizeof((a)->field) <= (a)->struct_size)

static bp_status fake_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                              int32_t n_in, const bp_plugin_tensor *out) {
  int64_t n = 0, i, m = 0;
  int32_t expected = 0, d, mode = BP_SCALAR_NONE;
  double scalar = 0;
  bp_status s;
  if (device != 0) return fail_device("execute", device);
#ifdef FAKE_EXECUTE_STATUS
  return fail((bp_status)(FAKE_EXECUTE_STATUS), "execute: a status from nowhere");
#endif
  if (op != BP_OP_FILL && op != BP_OP_ADD && op != BP_OP_MUL)
    return fail(BP_ERR_UNSUPPORTED, "the fake backend only fills float32 tensors");
  if (attrs == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: attrs is NULL");
  if (ATTRS_HAS(attrs, scalar_mode)) mode = attrs->scalar_mode;
  if (ATTRS_HAS(attrs, scalar)) scalar = attrs->scalar;
  if (op != BP_OP_FILL) expected = mode == BP_SCALAR_NONE ? 2 : 1;
  if (n_in != expected) return fail(BP_ERR_INVALID_ARGUMENT, "execute: wrong number of inputs");
  if (n_in > 0 && in == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "execute: inputs is NULL");
  s = check_view(out, "the output", 1, &n);
  if (s != BP_OK) return s;
  for (d = 0; d < n_in; ++d) {
    s = check_view(&in[d], "an input", 0, &m);
    if (s != BP_OK) return s;
    if (in[d].rank != out->rank || m != n) return fail(BP_ERR_SHAPE, "execute: inputs must have the output's shape");
  }
  if (!declares(op, out->dtype, out->dtype)) return fail(BP_ERR_UNSUPPORTED, "the fake backend only fills float32 tensors");
#ifdef FAKE_LIES
  if (op == BP_OP_MUL) return fail(BP_ERR_UNSUPPORTED, FAKE_NAME ": mul is not implemented after all");
#endif
#ifdef FAKE_HANGS
  for (;;) pause(); /* the bug this variant exists for */
#endif
#ifdef FAKE_CRASH_IN_EXECUTE
  {
    /* The bug this variant exists for: a field of a NULL struct pointer
     * (address 16), which no sanitizer turns into a report before the
     * SIGSEGV. */
    volatile float *nowhere = (volatile float *)(uintptr_t)16;
    *nowhere = (float)scalar;
  }
#endif
#ifdef FAKE_CORRUPTS_HEAP
  /* The bug this variant exists for: the 16 bytes before the storage (its
   * malloc chunk header) become garbage; the allocator notices when the
   * block is freed, long after this call returned BP_OK. */
  memset(out->buffer->data - 16, 0x5a, 16);
#endif
  for (i = 0; i < n; ++i) {
    float value = (float)scalar;
    if (op == BP_OP_ADD) { /* FAKE_LIES only: declared add, computes a - b */
      float a = mode == BP_SCALAR_LHS ? (float)scalar : *element(&in[0], i);
      float b = mode == BP_SCALAR_NONE ? *element(&in[1], i) : mode == BP_SCALAR_RHS ? (float)scalar : *element(&in[0], i);
      value = a - b;
    }
#ifdef FAKE_IGNORES_STRIDES
    ((float *)(out->buffer->data + out->offset))[i] = value; /* as if every view were dense */
#else
    *element(out, i) = value;
#endif
  }
#ifdef FAKE_WRITE_PAST_END
  if (n > 0) element(out, n - 1)[1] = (float)scalar; /* one element too many */
#endif
  return BP_OK;
}

static bp_status fake_synchronize(int32_t device) {
  if (device != 0) return fail_device("synchronize", device);
  return BP_OK;
}

static bp_status fake_host_address(bp_buffer b, void **address) {
  bp_status s = check_buffer("host_address", b);
  if (s != BP_OK) return s;
  if (address == NULL) return fail(BP_ERR_INVALID_ARGUMENT, "host_address: address is NULL");
#ifdef FAKE_BAD_HOST_ADDRESS
  *address = (void *)0x1000;
#else
  *address = b->data;
#endif
  return BP_OK;
}

static const bp_plugin_api g_api = {
    FAKE_STRUCT_SIZE, FAKE_ABI_MAJOR, BP_PLUGIN_ABI_MINOR, 0, FAKE_NAME_POINTER, FAKE_VERSION, FAKE_PREFIX,
    fake_last_error, fake_init, fake_device_count, fake_device_info, FAKE_DEVICE_PROPERTIES, fake_alloc,
    fake_free, fake_write, fake_read, NULL, fake_supports,
#ifdef FAKE_NULL_EXECUTE
    NULL,
#else
    fake_execute,
#endif
    fake_synchronize, fake_host_address};

#ifndef FAKE_NO_ENTRY
/* Declared by plugin.h; BP_PLUGIN_EXPORT keeps it public under hidden visibility. */
BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t major, uint32_t minor) {
  (void)major;
  (void)minor;
#if defined(FAKE_REFUSE_HOST)
  return NULL;
#elif defined(FAKE_UNTERMINATED_FIELD)
  {
    static bp_plugin_api api;
    api = g_api;
    api.FAKE_UNTERMINATED_FIELD = unterminated_text();
    return &api;
  }
#else
  return &g_api;
#endif
}
#else
/* No definition of bp_plugin_get_api: plugin.h's declaration alone emits no
 * symbol. Referenced so the table is not an unused-variable warning in this
 * variant. */
__attribute__((visibility("default"))) const void *not_the_entry_symbol(void) { return &g_api; }
#endif
