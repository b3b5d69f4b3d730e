#!/bin/sh
# lsan_retry.sh COMMAND [ARGS...]
#
# Runs an mpirun scenario of the sanitizer build once more when, and only
# when, LeakSanitizer itself broke down at a rank's exit ("LeakSanitizer has
# encountered a fatal error": its stop-the-world tracer crashed, which it
# can do while Open MPI's and PoCL's threads are still winding down) and no
# leak or other sanitizer report was printed. A real leak is reported on
# every run, so it still fails; so does any failed check.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] && exit 0
case "$out" in
  *"LeakSanitizer has encountered a fatal error"*)
    case "$out" in
      *"ERROR: LeakSanitizer: detected"* | *"ERROR: AddressSanitizer"* | *"runtime error:"*) exit "$rc" ;;
    esac
    echo "lsan_retry.sh: LeakSanitizer's tracer failed (no leak reported); running the scenario again"
    exec "$@" ;;
esac
exit "$rc"
