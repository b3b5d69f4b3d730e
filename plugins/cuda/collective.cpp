#include "collective.hpp"

#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "device.hpp"
#include "device_registry.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "kernels.hpp"

namespace bp_cuda {

namespace {

// Throws for a failed NCCL call: "cuda: <call> failed on <where>: <NCCL's
// string for the code>: <NCCL's last message>". A remote rank that failed
// or went away is BP_ERR_PEER, anything else BP_ERR_BACKEND.
[[noreturn]] void fail_nccl(ncclResult_t result, const char *call, const std::string &where) {
  const char *detail = ncclGetLastError(nullptr);  // the comm argument is unused by NCCL
  const std::string more = detail && *detail ? std::string(": ") + detail : std::string();
  fail(result == ncclRemoteError ? BP_ERR_PEER : BP_ERR_BACKEND, "cuda: %s failed on %s: %s%s", call, where.c_str(),
       ncclGetErrorString(result), more.c_str());
}

void check_nccl(ncclResult_t result, const char *call, const std::string &where) {
  if (result != ncclSuccess) fail_nccl(result, call, where);
}

// Bool elements are bytes holding 0 or 1, so NCCL's uint8 MAX and MIN are
// plugin.h's or and and. NCCL has no int16: such a collective is declined
// before anything is enqueued, and the core stages it through host memory.
ncclDataType_t nccl_type(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return ncclFloat32;
    case BP_FLOAT64: return ncclFloat64;
    case BP_INT32: return ncclInt32;
    case BP_INT64: return ncclInt64;
    case BP_BOOL: return ncclUint8;
    case BP_FLOAT16: return ncclFloat16;
    case BP_BFLOAT16: return ncclBfloat16;
    case BP_INT8: return ncclInt8;
    case BP_UINT8: return ncclUint8;
    default: fail(BP_ERR_UNSUPPORTED, "cuda: collectives of %s are not implemented", dtype_name(dtype));
  }
}

// MEAN of integers is an NCCL sum and a division of ours (integer_mean).
ncclRedOp_t nccl_op(int32_t reduce_op, int32_t dtype) {
  switch (reduce_op) {
    case BP_REDUCE_SUM: return ncclSum;
    case BP_REDUCE_MEAN: return is_float_dtype(dtype) ? ncclAvg : ncclSum;
    case BP_REDUCE_MAX: return ncclMax;
    case BP_REDUCE_MIN: return ncclMin;
    default: fail(BP_ERR_UNSUPPORTED, "cuda: the reduction %d is not implemented", reduce_op);
  }
}

bool integer_mean(const bp_collective_args &a, int32_t dtype) {
  return (a.collective == BP_COLLECTIVE_ALL_REDUCE || a.collective == BP_COLLECTIVE_REDUCE_SCATTER) &&
         a.reduce_op == BP_REDUCE_MEAN && !is_float_dtype(dtype);
}

// What every rank asks NCCL, settled before the first call: once one rank's
// part is enqueued, the others' must follow or its kernel waits for them
// forever.
struct Call {
  int32_t collective;
  ncclDataType_t type;
  ncclRedOp_t op;  // ALL_REDUCE and REDUCE_SCATTER
  int root;        // BROADCAST
  size_t count;    // elements of S
};

Call nccl_call(const bp_collective_args &a, const bp_plugin::CollectiveInfo &info, const char *name) {
  Call c{a.collective, nccl_type(info.dtype), ncclSum, a.root, static_cast<size_t>(info.numel)};
  switch (a.collective) {
    case BP_COLLECTIVE_ALL_REDUCE:
    case BP_COLLECTIVE_REDUCE_SCATTER: c.op = nccl_op(a.reduce_op, info.dtype); return c;
    case BP_COLLECTIVE_BROADCAST:
    case BP_COLLECTIVE_ALL_GATHER: return c;
    default: fail(BP_ERR_UNSUPPORTED, "cuda: %s: the collective is not implemented", name);
  }
}

// One participant of this process: its device, stream and memory.
struct Participant {
  Device *device;
  const char *send;
  char *receive;
  cudaStream_t stream = nullptr;
};

// The device address of a validated view whose buffer must be on `device`.
char *address(const bp_plugin_tensor &view, const Device &device, const char *name, const char *role, int32_t i) {
  const bp_buffer_s &buffer = *view.buffer;
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, "cuda: %s: %s %d is on %s, but participant %d is %s", name, role, i,
         buffer.device->name(), i, device.name());
  return buffer.data() + view.offset;
}

// Enqueues participant p's part of the call on comm (p's rank's).
void enqueue(const Call &c, const Participant &p, ncclComm_t comm) {
  const char *where = p.device->name();
  switch (c.collective) {
    case BP_COLLECTIVE_ALL_REDUCE:
      return check_nccl(ncclAllReduce(p.send, p.receive, c.count, c.type, c.op, comm, p.stream), "ncclAllReduce",
                        where);
    case BP_COLLECTIVE_BROADCAST:
      return check_nccl(ncclBroadcast(p.send, p.receive, c.count, c.type, c.root, comm, p.stream), "ncclBroadcast",
                        where);
    case BP_COLLECTIVE_ALL_GATHER:
      return check_nccl(ncclAllGather(p.send, p.receive, c.count, c.type, comm, p.stream), "ncclAllGather", where);
    default:  // REDUCE_SCATTER (nccl_call admits no other)
      return check_nccl(ncclReduceScatter(p.send, p.receive, c.count, c.type, c.op, comm, p.stream),
                        "ncclReduceScatter", where);
  }
}

// The sums of an integer MEAN divided by n, on the participant's stream
// after NCCL's kernel.
void finish_integer_mean(const Participant &p, const Device::Lock &lock, int32_t dtype, int64_t numel, int32_t n) {
  launch_divide(p.device->launch(lock), dtype, p.receive, numel, n);
}

// ---- group 0: among devices of this process ----------------------------------

// One communicator per device of a list, rank i on devices[i]. Made on first
// use of the list and kept for the life of the process (never destroyed,
// like the registry: NCCL may be gone when static destructors would run).
class Cliques {
 public:
  const std::vector<ncclComm_t> &get(const std::vector<int32_t> &devices, const std::string &where) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = comms_.find(devices);
    if (it != comms_.end()) return it->second;
    std::vector<ncclComm_t> comms(devices.size(), nullptr);
    check_nccl(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll",
               where);
    return comms_.emplace(devices, std::move(comms)).first->second;  // nodes of a map never move
  }

 private:
  std::mutex mutex_;
  std::map<std::vector<int32_t>, std::vector<ncclComm_t>> comms_;
};

Cliques &cliques() {
  static Cliques *const c = new Cliques;
  return *c;
}

std::string device_list(const std::vector<Device *> &devices) {
  std::string s;
  for (const Device *d : devices) s += (s.empty() ? "" : ", ") + std::string(d->name());
  return s;
}

void among_devices(const bp_collective_args &a, const bp_plugin::CollectiveInfo &info, const char *name) {
  const int32_t n = a.count;
  std::vector<Device *> devices;
  for (int32_t i = 0; i < n; ++i) devices.push_back(&device_at(a.devices[i], name));
  const Call call = nccl_call(a, info, name);
  if (info.numel == 0) return;
  std::vector<Participant> parts;
  for (int32_t i = 0; i < n; ++i)
    parts.push_back(Participant{devices[size_t(i)], address(a.inputs[i], *devices[size_t(i)], name, "input", i),
                                address(a.outputs[i], *devices[size_t(i)], name, "output", i)});
  const std::string where = device_list(devices);

  // Every participant's device locked for the whole enqueue, in index
  // order (std::lock elsewhere takes two without deadlock against that):
  // the communicators and streams are used by one thread at a time, and
  // one collective's kernels are queued on every device before another's.
  std::vector<Device *> by_index = devices;
  std::sort(by_index.begin(), by_index.end(),
            [](const Device *x, const Device *y) { return x->index() < y->index(); });
  std::vector<Device::Lock> locks;
  for (Device *d : by_index) locks.push_back(d->lock());
  auto lock_of = [&](const Device *d) -> const Device::Lock & {
    return locks[size_t(std::find(by_index.begin(), by_index.end(), d) - by_index.begin())];
  };
  for (Participant &p : parts) p.stream = p.device->stream(lock_of(p.device));

  const std::vector<int32_t> ids(a.devices, a.devices + n);
  const std::vector<ncclComm_t> &comms = cliques().get(ids, where);
  // One thread drives every rank: the calls must be one NCCL group, which
  // NCCL launches as a whole at ncclGroupEnd (or not at all when a call in
  // it failed).
  check_nccl(ncclGroupStart(), "ncclGroupStart", where);
  try {
    for (size_t i = 0; i < parts.size(); ++i) enqueue(call, parts[i], comms[i]);
  } catch (...) {
    (void)ncclGroupEnd();  // leaves NCCL's group state clean; the first failure is the one reported
    throw;
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd", where);
  if (integer_mean(a, info.dtype))
    for (const Participant &p : parts) finish_integer_mean(p, lock_of(p.device), info.dtype, info.numel, n);
}

// ---- groups: across processes ---------------------------------------------------

struct Group {
  ncclComm_t comm;
  int32_t device, rank, ranks;
};

// Groups this process has joined, by number. Never destroyed (see Cliques).
class Groups {
 public:
  uint64_t add(const Group &g) {
    std::lock_guard<std::mutex> guard(mutex_);
    const uint64_t number = next_++;
    groups_.emplace(number, g);
    return number;
  }
  // The group, or BP_ERR_INVALID_ARGUMENT naming `entry`.
  Group find(uint64_t number, const char *entry) {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = groups_.find(number);
    if (it == groups_.end())
      fail(BP_ERR_INVALID_ARGUMENT,
           "cuda: %s: there is no group %llu (group_join makes groups, group_leave ends them)", entry,
           static_cast<unsigned long long>(number));
    return it->second;
  }
  void remove(uint64_t number, const char *entry) {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!groups_.erase(number))
      fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: group %llu was left meanwhile", entry,
           static_cast<unsigned long long>(number));
  }

 private:
  std::mutex mutex_;
  std::map<uint64_t, Group> groups_;
  uint64_t next_ = 1;  // 0 is "no group": the devices of this process
};

Groups &groups() {
  static Groups *const g = new Groups;
  return *g;
}

std::string rank_text(const Group &g, uint64_t number) {
  return "cuda:" + std::to_string(g.device) + " (rank " + std::to_string(g.rank) + " of " +
         std::to_string(g.ranks) + " in group " + std::to_string(number) + ")";
}

void in_group(const bp_collective_args &a, const Group &g, const bp_plugin::CollectiveInfo &info,
              const char *name) {
  Device &device = device_at(a.devices[0], name);
  if (device.index() != g.device)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: group %llu runs on cuda:%d, not on %s", name,
         static_cast<unsigned long long>(a.group), g.device, device.name());
  const Call call = nccl_call(a, info, name);
  if (info.numel == 0) return;
  Participant p{&device, address(a.inputs[0], device, name, "input", 0),
                address(a.outputs[0], device, name, "output", 0)};
  Device::Lock lock = device.lock();
  // Left by another thread while this one waited for the device?
  const Group now = groups().find(a.group, name);
  p.stream = device.stream(lock);
  enqueue(call, p, now.comm);
  if (integer_mean(a, info.dtype)) finish_integer_mean(p, lock, info.dtype, info.numel, now.ranks);
}

}  // namespace

void run_collective(const bp_collective_args *args) {
  require_started();
  // A group's size decides the shapes the SDK accepts, so it is looked up first.
  const bool grouped = args && BP_SDK_FITS(args, group) && args->group != 0;
  const Group g = grouped ? groups().find(args->group, "collective") : Group{nullptr, 0, 0, 0};
  const bp_plugin::CollectiveInfo info = bp_plugin::check_collective(args, g.ranks, live_buffer_bytes, nullptr);
  const char *name = bp_vocab_collective_name(args->collective);
  if (grouped)
    in_group(*args, g, info, name);
  else
    among_devices(*args, info, name);
}

void group_id(int32_t device, void *id, uint32_t capacity, uint32_t *size) {
  Device &d = device_at(device, "group_id");
  if (!id || !size) fail(BP_ERR_INVALID_ARGUMENT, "cuda: group_id: %s is NULL", id ? "size" : "id");
  if (capacity < sizeof(ncclUniqueId))
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: group_id: capacity %u is smaller than NCCL's unique id (%zu bytes)",
         capacity, sizeof(ncclUniqueId));
  ncclUniqueId unique;
  check_nccl(ncclGetUniqueId(&unique), "ncclGetUniqueId", d.name());
  std::memcpy(id, &unique, sizeof unique);
  *size = sizeof unique;
}

uint64_t group_join(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks) {
  Device &d = device_at(device, "group_join");
  if (!id) fail(BP_ERR_INVALID_ARGUMENT, "cuda: group_join: id is NULL");
  if (size != sizeof(ncclUniqueId))
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: group_join: the id has %u bytes; group_id makes ids of %zu", size,
         sizeof(ncclUniqueId));
  if (nranks < 1 || rank < 0 || rank >= nranks)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: group_join: rank %d of %d (ranks are 0..nranks-1)", rank, nranks);
  ncclUniqueId unique;
  std::memcpy(&unique, id, sizeof unique);
  {
    Device::Lock lock = d.lock();
    d.activate(lock);  // the device's context and stream exist before NCCL binds to it
  }
  // Not under the device lock: this waits for every other rank, and work on
  // the device may go on meanwhile. NCCL binds to the current device.
  check_cuda(cudaSetDevice(d.index()), "cudaSetDevice", d.name());
  ncclComm_t comm = nullptr;
  const std::string where =
      std::string(d.name()) + " (rank " + std::to_string(rank) + " of " + std::to_string(nranks) + ")";
  check_nccl(ncclCommInitRank(&comm, nranks, unique, rank), "ncclCommInitRank", where);
  try {
    return groups().add(Group{comm, device, rank, nranks});
  } catch (...) {
    (void)ncclCommDestroy(comm);
    throw;
  }
}

void group_leave(uint64_t number) {
  require_started();
  const Group g = groups().find(number, "group_leave");
  Device &d = device_at(g.device, "group_leave");
  // Under the device lock: no collective of the group is being enqueued.
  Device::Lock lock = d.lock();
  groups().remove(number, "group_leave");
  d.activate(lock);
  check_nccl(ncclCommDestroy(g.comm), "ncclCommDestroy", rank_text(g, number));
}

}  // namespace bp_cuda
