/*
 * error.c — the message behind last_error().
 *
 * The ABI asks for "the message of the last failed call on the calling
 * thread": two threads failing at once must not overwrite each other's
 * text. So the buffer is thread-local. C99 has no _Thread_local (that is
 * C11); `__thread` is the GCC/Clang spelling of the same storage class and is
 * supported by every compiler this project builds with. A plugin author on
 * another compiler would use its own equivalent (or C11 _Thread_local).
 *
 * Successful calls leave the message alone: it describes the last *failure*.
 */
#include <stdarg.h>
#include <stdio.h>

#include "reference.h"

/* Long enough for any message this plugin writes; vsnprintf truncates safely. */
#define REF_MESSAGE_CAPACITY 512

static __thread char g_message[REF_MESSAGE_CAPACITY] = "no call has failed on this thread";

bp_status ref_fail(bp_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_message, sizeof g_message, format, args);
  va_end(args);
  return status;
}

const char *ref_last_error(void) { return g_message; }
