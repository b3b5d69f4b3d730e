// The collective entry across the two PoCL devices: every dtype, collective
// and reduction, in place and not, against the host's values
// (support/collective_checks.hpp); its ordering with other work; and the
// malformed calls.
#include "collective_checks.hpp"
#include "collective_ordering.hpp"
#include "opencl_test.hpp"

using namespace ocl_test;

TEST_CASE("opencl: the table has collective and no group entries", "[collective]") {
  const bp_plugin_api &api = ocl().api();
  CHECK(api.collective != nullptr);
  // Across processes the core's own transport stages OpenCL tensors.
  CHECK(api.group_id == nullptr);
  CHECK(api.group_join == nullptr);
  CHECK(api.group_leave == nullptr);
}

TEST_CASE("opencl: collectives with one participant, on each device", "[collective]") {
  for (const CollectiveCase &c : collective_cases({{0}, {1}})) check_collective_case(ocl(), c);
}

TEST_CASE("opencl: collectives across opencl:0 and opencl:1", "[collective]") {
  for (const CollectiveCase &c : collective_cases({{0, 1}})) check_collective_case(ocl(), c);
}

TEST_CASE("opencl: collectives across opencl:1 and opencl:0, participant order not device order",
          "[collective]") {
  for (const CollectiveCase &c : collective_cases({{1, 0}})) check_collective_case(ocl(), c);
}

TEST_CASE("opencl: a collective runs after earlier work and before later work on each device",
          "[collective]") {
  check_collective_between_work(ocl(), {0, 1}, 1 << 16);
}

TEST_CASE("opencl: malformed collectives are refused and write nothing", "[collective]") {
  check_collective_errors(ocl(), 0, 1);
  INFO("a device it does not have");
  check_collective_refused(ocl(), {0}, BP_ERR_UNKNOWN_DEVICE, {"opencl:7"},
                           [](bp_collective_args &, std::vector<int32_t> &ids, auto &, auto &) { ids[0] = 7; });
  INFO("a group: the opencl backend makes none");
  check_collective_refused(ocl(), {0}, BP_ERR_INVALID_ARGUMENT, {"group 5"},
                           [](bp_collective_args &a, auto &, auto &, auto &) { a.group = 5; });
}
