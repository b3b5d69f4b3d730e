/*
 * backplane/testing.h — hooks for test programs and fuzzers only.
 *
 * Not part of the stable ABI: what is declared here may change or go in any
 * release, and a program for users must not call it. It exists so that a
 * test can run the runtime under several configurations in one process
 * through the library itself, instead of compiling the core's sources into
 * the test.
 */
#ifndef BACKPLANE_TESTING_H
#define BACKPLANE_TESTING_H

#include "backplane/backplane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stops the running runtime so that the next bp_init (or the first call of
 * any other function) starts a new one from its configuration, as if the
 * process had just begun; OK when none is running. Refused with
 * BP_ERR_STATE while any tensor is live (bp_live_tensor_count() > 0).
 *
 * What the new runtime does not start afresh, because ABI 1.x gives plugins
 * no shutdown: a plugin file stays loaded, and a backend started before keeps
 * its state; the new runtime lists its devices again without calling its init
 * a second time, and fails to start that backend (BP_ERR_CONFIG, at bp_init
 * when the options are in its configuration) when it gives that backend
 * other [backend.<name>] options. Device ids are given out again from 0, in
 * the new runtime's order; a device name (bp_device_name) stays valid. The
 * strings of plugin reports and configuration entries obtained before are
 * freed. The routing trace is cleared.
 *
 * No other thread may be inside a call of the library while it runs. Memory
 * does not grow with the number of restarts. (since 1.1, test-only) */
BP_API bp_status bp_testing_restart(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_TESTING_H */
