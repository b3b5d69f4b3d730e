#include "comm/backend_groups.hpp"

#include <cstring>
#include <string>

#include "devices/registry.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "loader/backend.hpp"

namespace bp::core::dist {

namespace {

// Room for a backend's group bootstrap id (NCCL's is 128 bytes).
constexpr uint32_t kGroupIdCapacity = 4096;

struct BootstrapId {
  int32_t status;
  uint32_t size;
  char message[320];
  unsigned char id[kGroupIdCapacity];
};

struct JoinResult {
  int32_t status;
  char message[320];
};

// A failed entry of the backend as this rank hands it to the others: the
// status Backend::failure maps it to, its code and words in message.
template <size_t N>
int32_t plugin_failure(const Backend &b, bp_status raw, char (&message)[N]) {
  const Backend::Failure f = b.failure(raw);
  put(message, f.code + ": " + f.message);
  return f.status;
}

}  // namespace

BackendEntries entries_of(const Backend &b) {
  BackendEntries e;
  e.collective = b.optional(&bp_plugin_api::collective);
  e.group_id = b.optional(&bp_plugin_api::group_id);
  e.group_join = b.optional(&bp_plugin_api::group_join);
  e.group_leave = b.optional(&bp_plugin_api::group_leave);
  return e;
}

BackendGroup *cached_group(State &s, const Device &d) {
  for (BackendGroup &g : s.groups)
    if (g.current && g.backend == d.backend && g.device == d.index) return &g;
  return nullptr;
}

bool group_path(const State &s, const Record *all) {
  for (int32_t j = 0; j < s.size.load(); ++j)
    if (!all[j].group_capable || std::strcmp(all[j].backend, all[0].backend) != 0) return false;
  return true;
}

BackendGroup &backend_group(State &s, const Call &c, Scratch &scratch, const Record *all) {
  const int32_t n = s.size.load(), me = s.rank.load();
  const Device &device = c.view->device();
  Backend &b = *device.backend;
  bool cached = all[0].group_epoch >= 0;
  for (int32_t j = 1; j < n && cached; ++j) cached = all[j].group_epoch == all[0].group_epoch;
  if (cached) return *cached_group(s, device);

  const BackendEntries e = entries_of(b);
  BootstrapId *boot = scratch.objects<BootstrapId>(1);
  if (me == 0) {
    auto lock = b.call_lock();
    const bp_status status = e.group_id(device.index, boot->id, kGroupIdCapacity, &boot->size);
    boot->status = status;
    if (status == BP_OK && boot->size > kGroupIdCapacity) {
      boot->status = BP_ERR_BACKEND;
      put(boot->message, "its id of " + std::to_string(boot->size) + " bytes exceeds the " +
                             std::to_string(kGroupIdCapacity) + " it was given");
    } else if (status != BP_OK) {
      boot->status = plugin_failure(b, status, boot->message);
    }
  }
  check_transport(s, c.fn, scratch, s.t->broadcast(boot, sizeof *boot, BP_TRANSPORT_BYTES, 0, s.timeout),
                  "for rank 0's group id of the " + b.name() + " backend");
  if (boot->status != BP_OK)
    fail(as_status(boot->status), c.fn + ": rank 0's " + b.name() + " backend could not start a group (group_id: " +
                           std::string(boot->message, strnlen(boot->message, sizeof boot->message)) + ")");

  JoinResult *joined = scratch.objects<JoinResult>(size_t(n) + 1);
  uint64_t group = 0;
  {
    // May block until every rank joined: the transport's bound does not
    // reach into the backend (NCCL's ncclCommInitRank).
    auto lock = b.call_lock();
    const bp_status status = e.group_join(device.index, boot->id, boot->size, me, n, &group);
    joined[0].status = status == BP_OK ? BP_OK : plugin_failure(b, status, joined[0].message);
  }
  check_transport(s, c.fn, scratch,
                  s.t->all_gather(&joined[0], joined + 1, sizeof(JoinResult), BP_TRANSPORT_BYTES, s.timeout),
                  "for every rank to join the backend's group");
  for (int32_t j = 0; j < n; ++j) {
    const JoinResult &r = joined[1 + j];
    if (r.status == BP_OK) continue;
    if (joined[0].status == BP_OK) {
      auto lock = b.call_lock();
      e.group_leave(group);
    }
    fail(as_status(r.status), c.fn + ": rank " + std::to_string(j) + " could not join the " + b.name() +
                       " backend's group (group_join: " + std::string(r.message, strnlen(r.message, sizeof r.message)) +
                       ")");
  }
  // Replaces this device's entry; the old group stays joined until finalize
  // (another rank may still hold its side of it).
  const int64_t epoch = s.bootstraps++;
  if (BackendGroup *old = cached_group(s, device)) old->current = false;
  s.groups.push_back({&b, device.index, group, epoch, true});
  return s.groups.back();
}

bool run_in_group(const Call &c, const BackendGroup &g, const View &in, const View &out) {
  Backend &b = *g.backend;
  bp_plugin_tensor input, output;
  in.to_plugin(input);
  out.to_plugin(output);
  bp_collective_args a{};
  a.struct_size = sizeof a;
  a.collective = c.collective;
  a.reduce_op = c.collective == BP_COLLECTIVE_ALL_REDUCE || c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? c.reduce_op : 0;
  a.root = c.collective == BP_COLLECTIVE_BROADCAST ? c.root : 0;
  a.count = 1;
  a.devices = &g.device;
  a.inputs = &input;
  a.outputs = &output;
  a.group = g.group;
  const auto collective = b.optional(&bp_plugin_api::collective);
  auto lock = b.call_lock();
  const bp_status status = collective(&a);
  if (status == BP_ERR_UNSUPPORTED) return false;
  b.check(status, "collective");
  return true;
}

bool in_place_in_group(const Call &c, const BackendGroup &g, const View &v, bool write_back) {
  if (v.contiguous()) return run_in_group(c, g, v, v);
  View dense = dispatch::contiguous_copy(v);
  if (!run_in_group(c, g, dense, dense)) return false;
  if (write_back) dispatch::assign(v, dense);
  return true;
}

}  // namespace bp::core::dist
