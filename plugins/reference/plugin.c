/*
 * plugin.c — the function table, the one exported symbol, and the backend's
 * life cycle (init, synchronize).
 *
 * This is the file a plugin author reads first: everything the core can call
 * is listed in g_api below, and bp_plugin_get_api is the only symbol the .so
 * exports. backplane_add_plugin() compiles every file with hidden visibility
 * and links with a version script (cmake/plugin.map) that hides the rest;
 * BP_PLUGIN_EXPORT (plugin.h) marks the entry point public.
 */
#include <stddef.h>

#include "reference.h"

#ifndef BP_REFERENCE_VERSION
#define BP_REFERENCE_VERSION "0.0.0" /* CMake passes the project version */
#endif

/* Set by init. Read and written with __atomic builtins because the plugin
 * declares BP_PLUGIN_THREAD_SAFE: C99 has no <stdatomic.h>, and these GCC/Clang
 * builtins are the portable-enough way to get an atomic int in C99 code. */
static int g_initialized = 0;

bp_status ref_check_initialized(const char *entry) {
  if (!__atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE))
    return ref_fail(BP_ERR_STATE, "%s: the " REF_NAME " backend was used before init", entry);
  return BP_OK;
}

bp_status ref_init(const char *const *option_keys, const char *const *option_values,
                   int32_t option_count) {
  int32_t i;
  if (option_count < 0)
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "init: option_count is %d, must be >= 0",
                    (int)option_count);
  if (option_count > 0 && (option_keys == NULL || option_values == NULL))
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "init: %d options announced but option_keys or option_values is NULL",
                    (int)option_count);
  for (i = 0; i < option_count; ++i)
    if (option_keys[i] == NULL || option_values[i] == NULL)
      return ref_fail(BP_ERR_INVALID_ARGUMENT, "init: option %d has a NULL key or value",
                      (int)i);
  /* The reference backend has nothing to tune. An option is therefore a typo
   * or a misplaced key in [backend.reference]; saying so beats ignoring it. */
  if (option_count > 0)
    return ref_fail(BP_ERR_CONFIG,
                    "init: the " REF_NAME " backend takes no options, but got '%s' = '%s'",
                    option_keys[0], option_values[0]);
  /* Nothing to start: host memory needs no driver, so a second init (which
   * plugin.h says must not fail for that reason) has nothing to redo. */
  __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
  return BP_OK;
}

bp_status ref_synchronize(int32_t device) {
  /* Every call finishes its work before returning, so there is never
   * anything to wait for; only the argument needs checking. */
  return ref_check_device("synchronize", device);
}

/* The table the core reads. Every entry is filled, optional ones included:
 * a reference should exercise the whole ABI. */
static const bp_plugin_api g_api = {
    sizeof(bp_plugin_api), /* struct_size: the whole table, every field present */
    BP_PLUGIN_ABI_MAJOR,   /* abi_major */
    BP_PLUGIN_ABI_MINOR,   /* abi_minor */
    /* Thread safe because nothing is shared between calls except the init
     * flag and the memory counter, both atomic, and the error message, which
     * is per thread. Buffers are independent blocks of host memory; the core
     * never lets two calls write one buffer at once (that would be a race in
     * the user's program, not in the plugin). */
    BP_PLUGIN_THREAD_SAFE, /* flags */
    REF_NAME,              /* name */
    BP_REFERENCE_VERSION,  /* version */
    REF_NAME,              /* device_prefix: devices are reference:<index> */
    ref_last_error,
    ref_init,
    ref_device_count,
    ref_device_info,
    ref_device_properties,
    ref_alloc,
    ref_free,
    ref_write,
    ref_read,
    ref_copy,
    ref_supports,
    ref_execute,
    ref_synchronize,
    ref_host_address,
    /* The oracle runs no collective itself: the core's host-staged
     * collectives, which the kit compares other backends against, are it. */
    NULL, /* collective */
    NULL, /* group_id */
    NULL, /* group_join */
    NULL, /* group_leave */
    ref_execute_fused,
    ref_wrap_host,
};

/* Declared in plugin.h (with C linkage, should this file ever be C++);
 * BP_PLUGIN_EXPORT makes it the one public symbol of the .so. */
BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                        uint32_t host_abi_minor) {
  /* A different major means some field changed meaning: refuse, and let the
   * core report it. Any minor is fine: an older host reads only the fields it
   * knows (it stops at its own struct size), a newer one stops at ours. */
  (void)host_abi_minor;
  if (host_abi_major != BP_PLUGIN_ABI_MAJOR) return NULL;
  return &g_api;
}
