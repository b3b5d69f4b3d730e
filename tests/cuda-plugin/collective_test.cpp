// The collective and group entries (NCCL) called directly. Without a CUDA
// device only the table and the errors are checked, and every other test
// says "skipped: no CUDA device (<reason>)". With one device: every dtype,
// collective and reduction with one participant, in place and not, also in
// a group of one rank; with two or more, across two devices in both orders
// (support/collective_checks.hpp has the host's values). NCCL has no int16:
// those collectives must be declined (BP_ERR_UNSUPPORTED, nothing written)
// so that the core stages them through host memory.
#include <cstring>

#include "collective_checks.hpp"
#include "collective_ordering.hpp"
#include "cuda_test.hpp"

using namespace cuda_test;

namespace {

// What group_id writes: NCCL's unique id (NCCL_UNIQUE_ID_BYTES).
constexpr uint32_t kIdBytes = 128;

// True when the plugin was built with NCCL; otherwise the test is skipped
// with that reason.
bool has_collectives(const PluginHandle &plugin) {
  if (plugin.api().collective) return true;
  skip("the cuda plugin was built without NCCL (its collective and group entries are NULL)");
  return false;
}

bool ready(const PluginHandle &plugin) { return has_device(plugin) && has_collectives(plugin); }

// A second device for the tests that take two, or -1.
int32_t second_device(const PluginHandle &plugin) { return devices(plugin).count >= 2 ? 1 : -1; }

// The case declined before anything is written: every output keeps its bytes.
void check_declined(const PluginHandle &plugin, const CollectiveCase &c) {
  INFO(c.name(*bpcheck::Plugin::borrow(plugin.api())));
  const size_t in_elements = static_cast<size_t>(numel(c.in_shape()));
  const size_t out_elements = static_cast<size_t>(numel(c.out_shape()));
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> in, out;
  for (int32_t d : c.devices) {
    buffers.push_back(plugin.upload(d, std::vector<int16_t>(in_elements, 7)));
    in.push_back(dense_view(buffers.back(), static_cast<bp_dtype>(c.dtype), c.in_shape()));
    buffers.push_back(plugin.upload(d, std::vector<int16_t>(out_elements, -3)));
    out.push_back(dense_view(buffers.back(), static_cast<bp_dtype>(c.dtype), c.out_shape()));
  }
  bp_collective_args args = collective_args(c.collective, c.reduce_op, c.devices, in, c.in_place ? in : out, c.root);
  args.group = c.group;
  check_error(plugin.api(), plugin.api().collective(&args), BP_ERR_UNSUPPORTED, {"int16"});
  for (size_t i = 0; i < c.devices.size(); ++i) {
    CHECK(plugin.download<int16_t>(buffers[2 * i], in_elements) == std::vector<int16_t>(in_elements, 7));
    CHECK(plugin.download<int16_t>(buffers[2 * i + 1], out_elements) == std::vector<int16_t>(out_elements, -3));
  }
  for (bp_buffer b : buffers) CHECK(plugin.api().free(b) == BP_OK);
}

// A case NCCL runs, compared with the host's values, or one it cannot (int16), declined.
void check_case(const PluginHandle &plugin, const CollectiveCase &c) {
  if (c.dtype == BP_INT16)
    check_declined(plugin, c);
  else
    check_collective_case(plugin, c);
}

}  // namespace

TEST_CASE("cuda: the collective and group entries are all set or all NULL", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  const bp_plugin_api &api = plugin.api();
  const bool any = api.collective || api.group_id || api.group_join || api.group_leave;
  const bool all = api.collective && api.group_id && api.group_join && api.group_leave;
  CHECK(any == all);
}

TEST_CASE("cuda: without a device the collective and group entries answer with errors", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!has_collectives(plugin) || devices(plugin).count > 0) return;
  const bp_plugin_api &api = plugin.api();
  // Views without elements need no buffer: only the device is missing.
  const std::vector<bp_plugin_tensor> empty = {dense_view(nullptr, BP_FLOAT32, {0})};
  const std::vector<int32_t> ids = {0};
  bp_collective_args args = collective_args(BP_COLLECTIVE_ALL_REDUCE, BP_REDUCE_SUM, ids, empty, empty);
  check_error(api, api.collective(&args), BP_ERR_UNKNOWN_DEVICE, {"cuda:0"});
  char id[kIdBytes];
  uint32_t size = 0;
  check_error(api, api.group_id(0, id, sizeof id, &size), BP_ERR_UNKNOWN_DEVICE, {"cuda:0"});
  std::memset(id, 0, sizeof id);
  uint64_t group = 0;
  check_error(api, api.group_join(0, id, sizeof id, 0, 1, &group), BP_ERR_UNKNOWN_DEVICE, {"cuda:0"});
  check_error(api, api.group_leave(1), BP_ERR_INVALID_ARGUMENT, {"group 1"});
}

TEST_CASE("cuda: collectives with one participant", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  for (const CollectiveCase &c : collective_cases({{0}})) check_case(plugin, c);
}

TEST_CASE("cuda: collectives across cuda:0 and cuda:1, in both orders", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  if (second_device(plugin) < 0) {
    skip("one CUDA device: no collective across two");
    return;
  }
  for (const CollectiveCase &c : collective_cases({{0, 1}, {1, 0}})) check_case(plugin, c);
}

TEST_CASE("cuda: a collective runs after earlier work and before later work on each device",
          "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  std::vector<int32_t> ids = {0};
  if (second_device(plugin) >= 0) ids.push_back(1);
  check_collective_between_work(plugin, ids, 1 << 22);
}

TEST_CASE("cuda: malformed collectives are refused and write nothing", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  check_collective_errors(plugin, 0, second_device(plugin));
  INFO("a device it does not have");
  check_collective_refused(plugin, {0}, BP_ERR_UNKNOWN_DEVICE, {"cuda:99"},
                           [](bp_collective_args &, std::vector<int32_t> &ids, auto &, auto &) { ids[0] = 99; });
  INFO("a group nobody joined");
  check_collective_refused(plugin, {0}, BP_ERR_INVALID_ARGUMENT, {"group 12345"},
                           [](bp_collective_args &a, auto &, auto &, auto &) { a.group = 12345; });
}

namespace {

// A group of one rank on cuda:0, joined with the id group_id gives.
uint64_t group_of_one(const PluginHandle &plugin) {
  const bp_plugin_api &api = plugin.api();
  char id[kIdBytes];
  uint32_t size = 0;
  plugin.check(api.group_id(0, id, sizeof id, &size), "group_id");
  CHECK(size == kIdBytes);
  uint64_t group = 0;
  plugin.check(api.group_join(0, id, size, 0, 1, &group), "group_join");
  CHECK(group != 0);
  return group;
}

}  // namespace

TEST_CASE("cuda: a group of one rank runs every collective, then is left", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  const uint64_t group = group_of_one(plugin);
  for (CollectiveCase c : collective_cases({{0}})) {
    c.group = group;
    check_case(plugin, c);
  }
  if (second_device(plugin) >= 0) {
    INFO("the group's collective on another device");
    check_collective_refused(plugin, {1}, BP_ERR_INVALID_ARGUMENT, {"cuda:0", "cuda:1"},
                             [&](bp_collective_args &a, auto &, auto &, auto &) { a.group = group; });
  }
  plugin.check(api.group_leave(group), "group_leave");
  check_error(api, api.group_leave(group), BP_ERR_INVALID_ARGUMENT, {"group"});
  INFO("a group that was left");
  check_collective_refused(plugin, {0}, BP_ERR_INVALID_ARGUMENT, {"group"},
                           [&](bp_collective_args &a, auto &, auto &, auto &) { a.group = group; });
}

TEST_CASE("cuda: malformed group calls are refused", "[cuda][collective]") {
  PluginHandle plugin(kPlugin);
  if (!ready(plugin)) return;
  const bp_plugin_api &api = plugin.api();
  char id[kIdBytes];
  uint32_t size = 0;
  check_error(api, api.group_id(0, id, 64, &size), BP_ERR_INVALID_ARGUMENT, {"capacity"});
  check_error(api, api.group_id(0, nullptr, sizeof id, &size), BP_ERR_INVALID_ARGUMENT, {"id"});
  check_error(api, api.group_id(0, id, sizeof id, nullptr), BP_ERR_INVALID_ARGUMENT, {"size"});
  check_error(api, api.group_id(99, id, sizeof id, &size), BP_ERR_UNKNOWN_DEVICE, {"cuda:99"});
  plugin.check(api.group_id(0, id, sizeof id, &size), "group_id");
  uint64_t group = 0;
  check_error(api, api.group_join(0, id, 64, 0, 1, &group), BP_ERR_INVALID_ARGUMENT, {"bytes"});
  check_error(api, api.group_join(0, id, size, 1, 1, &group), BP_ERR_INVALID_ARGUMENT, {"rank 1 of 1"});
  check_error(api, api.group_join(0, id, size, -1, 2, &group), BP_ERR_INVALID_ARGUMENT, {"rank -1 of 2"});
  check_error(api, api.group_join(0, nullptr, size, 0, 1, &group), BP_ERR_INVALID_ARGUMENT, {"id"});
  check_error(api, api.group_join(0, id, size, 0, 1, nullptr), BP_ERR_INVALID_ARGUMENT, {"group"});
  check_error(api, api.group_join(99, id, size, 0, 1, &group), BP_ERR_UNKNOWN_DEVICE, {"cuda:99"});
  CHECK(group == 0);  // written only on success
  check_error(api, api.group_leave(0), BP_ERR_INVALID_ARGUMENT, {"group 0"});
}
