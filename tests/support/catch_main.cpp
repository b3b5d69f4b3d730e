// The Catch2 runner shared by every test binary. It pins the environment the
// tests rely on before any plugin loads, because ctest cannot pass several
// variables through catch_discover_tests.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "skip.hpp"

int main(int argc, char *argv[]) {
  // One BLAS thread and one PoCL thread per device: `ctest -j2` on two cores.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  setenv("POCL_DEVICES", "pthread pthread", 0);
  setenv("POCL_MAX_PTHREAD_COUNT", "1", 0);
  // Tests never depend on the user's configuration: they use the test one,
  // which counts PoCL's CPU-kind devices as accelerators.
  setenv("BACKPLANE_CONFIG", BP_TEST_CONFIG, 0);
  Catch::Session session;
  if (int rc = session.applyCommandLine(argc, argv)) return rc;
  const int rc = session.run();
  return rc == 0 && bp_test::skipped_flag() ? bp_test::kSkipExitCode : rc;
}
