/*
 * device.c — the one device this backend has: the host, seen as
 * "reference:0". Counting, describing and validating device indices.
 */
/* sysconf() is POSIX, not C99: ask the C library to declare it. */
#define _POSIX_C_SOURCE 200112L

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reference.h"

bp_status ref_check_device(const char *entry, int32_t device) {
  bp_status status = ref_check_initialized(entry);
  if (status != BP_OK) return status;
  if (device < 0 || device >= REF_DEVICE_COUNT)
    return ref_fail(BP_ERR_UNKNOWN_DEVICE,
                    "%s: there is no device " REF_NAME ":%d (the only one is " REF_NAME ":0)",
                    entry, (int)device);
  return BP_OK;
}

/* Pages times page size, where the system reports them; 0 ("unknown", as
 * device_info allows) elsewhere. */
static uint64_t host_pages_in_bytes(int which) {
  long pages = sysconf(which);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return (uint64_t)pages * (uint64_t)page_size;
}

uint64_t ref_host_memory_total(void) {
#ifdef _SC_PHYS_PAGES
  return host_pages_in_bytes(_SC_PHYS_PAGES);
#else
  return 0;
#endif
}

static uint64_t host_memory_free(void) {
#ifdef _SC_AVPHYS_PAGES
  return host_pages_in_bytes(_SC_AVPHYS_PAGES);
#else
  return 0;
#endif
}

bp_status ref_device_count(int32_t *count, const char **why_none) {
  bp_status status = ref_check_initialized("device_count");
  if (status != BP_OK) return status;
  if (count == NULL || why_none == NULL)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "device_count: count and why_none must not be NULL");
  *count = REF_DEVICE_COUNT;
  *why_none = NULL; /* there is always a host */
  return BP_OK;
}

bp_status ref_device_info(int32_t device, bp_plugin_device_info *info) {
  bp_status status = ref_check_device("device_info", device);
  if (status != BP_OK) return status;
  if (info == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "device_info: info is NULL");

  /* Each field is written only when it lies wholly inside the struct_size
   * the core announced (BP_SDK_FITS): an older core has a shorter struct,
   * and writing past it would corrupt the caller's memory. */
  if (BP_SDK_FITS(info, kind)) info->kind = BP_DEVICE_CPU;
  if (BP_SDK_FITS(info, model)) {
    /* snprintf always NUL-terminates, even if the name ever outgrows the field. */
    snprintf(info->model, sizeof info->model, "%s", "reference (naive C99)");
  }
  if (BP_SDK_FITS(info, memory_total)) info->memory_total = ref_host_memory_total();
  if (BP_SDK_FITS(info, memory_free)) info->memory_free = host_memory_free();
  if (BP_SDK_FITS(info, memory_in_use)) info->memory_in_use = ref_memory_in_use();
  return BP_OK;
}

/* Facts a user of `bp devices` may want to know about this backend. */
static const char *const g_properties[][2] = {
    {"implementation", "plain C99, one element at a time, no SIMD, no threads"},
    {"execution", "synchronous: every call finishes before it returns"},
    {"float_accumulation", "compensated float64 sums in reductions and matmul"},
    {"memory", "host heap (malloc); host_address available"},
};
#define REF_PROPERTY_COUNT ((int32_t)(sizeof g_properties / sizeof g_properties[0]))

bp_status ref_device_properties(int32_t device, bp_property *props, int32_t capacity,
                                int32_t *count) {
  int32_t i, n;
  bp_status status = ref_check_device("device_properties", device);
  if (status != BP_OK) return status;
  if (count == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "device_properties: count is NULL");
  if (capacity < 0)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "device_properties: capacity is %d, must be >= 0",
                    (int)capacity);
  if (capacity > 0 && props == NULL)
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "device_properties: props is NULL but capacity is %d", (int)capacity);

  n = capacity < REF_PROPERTY_COUNT ? capacity : REF_PROPERTY_COUNT;
  for (i = 0; i < n; ++i) {
    snprintf(props[i].key, sizeof props[i].key, "%s", g_properties[i][0]);
    snprintf(props[i].value, sizeof props[i].value, "%s", g_properties[i][1]);
  }
  *count = n; /* the number written, as plugin.h says */
  return BP_OK;
}
