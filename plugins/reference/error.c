/*
 * error.c — the message behind last_error().
 *
 * The ABI asks for "the message of the last failed call on the calling
 * thread": two threads failing at once must not overwrite each other's
 * text, so the buffer is thread-local. The plugin SDK (backplane/plugin_sdk.h)
 * writes that storage once for every plugin: BP_SDK_DEFINE_ERRORS(ref)
 * defines a thread-local buffer and
 *
 *   bp_status ref_fail(bp_status status, const char *format, ...);
 *   const char *ref_last_error(void);
 *
 * declared in reference.h by BP_SDK_DECLARE_ERRORS(ref). The storage class
 * is C99's missing _Thread_local spelled `__thread` (GCC, Clang), which
 * -std=c99 accepts. Both functions are hidden (the plugin is built with
 * hidden visibility) and stay private to this .so.
 *
 * Successful calls leave the message alone: it describes the last *failure*.
 */
#include "reference.h"

BP_SDK_DEFINE_ERRORS(ref)
