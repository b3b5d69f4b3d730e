// The collective entry across the two PoCL devices: every dtype, collective
// and reduction, in place and not, against the host's values
// (support/collective_checks.hpp); its ordering with other work; and the
// malformed calls.
#include "collective_checks.hpp"
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
  const PluginHandle &p = ocl();
  const int64_t n = 1 << 16;
  const std::vector<int32_t> devices = {0, 1};
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> views;
  for (int32_t d : devices) {
    buffers.push_back(p.alloc(d, n * 4));
    views.push_back(dense_view(buffers.back(), BP_INT32, {n}));
  }
  // Queued, not waited for: FILL 3 on opencl:0, FILL 4 on opencl:1.
  bp_op_attrs fill = default_attrs();
  for (size_t i = 0; i < 2; ++i) {
    fill.scalar = 3.0 + double(i);
    p.check(p.api().execute(devices[i], BP_OP_FILL, &fill, nullptr, 0, &views[i]), "execute fill");
  }
  bp_collective_args args = collective_args(BP_COLLECTIVE_ALL_REDUCE, BP_REDUCE_SUM, devices, views, views);
  p.check(p.api().collective(&args), "collective");
  // Then x * 10 on each device, which must see the sum 7.
  bp_op_attrs times_ten = default_attrs();
  times_ten.scalar = 10;
  times_ten.scalar_mode = BP_SCALAR_RHS;
  for (size_t i = 0; i < 2; ++i)
    p.check(p.api().execute(devices[i], BP_OP_MUL, &times_ten, &views[i], 1, &views[i]), "execute mul");
  for (bp_buffer b : buffers) {
    const std::vector<int32_t> got = p.download<int32_t>(b, size_t(n));
    CHECK(std::all_of(got.begin(), got.end(), [](int32_t v) { return v == 70; }));
    p.check(p.api().free(b), "free");
  }
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
