// wrap_host on the reference plugin: borrowed host memory (tests/support/wrap_host_cases.hpp).
#include "reference_test.hpp"
#include "wrap_host_cases.hpp"

using namespace ref_test;

TEST_CASE("reference wrap_host reads, writes and computes in the owner's memory and releases it once at free",
          "[memory][wrap_host]") {
  Reference ref;
  bp_test::check_wrapped_vector(ref);
}

TEST_CASE("reference wrap_host of 0 bytes at NULL, and with no release", "[memory][wrap_host]") {
  Reference ref;
  bp_test::check_wrapped_nothing(ref);
}

TEST_CASE("reference wrap_host that fails never calls release", "[memory][wrap_host]") {
  Reference ref;
  bp_test::check_wrap_failures(ref);
}
