#include "comm/process_group.hpp"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/functions.hpp"
#include "capi/sized_struct.hpp"
#include "comm/in_process.hpp"
#include "devices/registry.hpp"
#include "dispatch/operators.hpp"
#include "comm/transport_loader.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "tensors/handle_table.hpp"
#include "trace/trace.hpp"

namespace bp::core::dist {

namespace {

constexpr double kDefaultTimeout = 300;
// The record's collective for bp_dist_barrier, beside the BP_COLLECTIVE_*.
constexpr int32_t kBarrier = 0;
// Room for a backend's group bootstrap id (NCCL's is 128 bytes).
constexpr uint32_t kGroupIdCapacity = 4096;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// A status from the transport or another rank's record; one this build
// does not know (a mismatched build) is reported as BP_ERR_INTERNAL.
bp_status as_status(int32_t s) { return bp_vocab_status_name(s) ? bp_status(s) : BP_ERR_INTERNAL; }

template <size_t N>
void put(char (&dst)[N], const std::string &s) {
  const size_t n = s.size() < N - 1 ? s.size() : N - 1;
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

// What each rank says about its call before any data moves, gathered by
// every rank: a mismatch is then found by all of them alike, and named.
// Plain bytes on the wire (the ranks of one launch run one build).
struct Record {
  int32_t status;  // BP_OK, or this rank's own refusal (a bad handle, a gradient rule)
  int32_t collective;
  int32_t reduce_op;
  int32_t root;
  int32_t dtype;
  int32_t ndim;
  int32_t group_capable;  // the tensor's backend has the collective and group entries
  int32_t reserved;
  int64_t group_epoch;  // the bootstrap its cached backend group came from, or -1
  int64_t shape[BP_MAX_RANK];
  char device[48];
  char backend[48];
  char message[320];  // with status: why this rank refused
};

// Host memory a transport call reads or writes. A call that timed out is
// still pending in MPI, which may write into its buffers whenever the late
// peer arrives: the group then keeps the memory (and the tensors' storages
// used in place) for the life of the process instead of freeing it.
class Scratch {
 public:
  void *buffer(uint64_t bytes) {
    buffers_.emplace_back(new unsigned char[bytes ? bytes : 1]);
    return buffers_.back().get();
  }
  template <class T>
  T *objects(size_t n) {
    T *p = static_cast<T *>(buffer(n * sizeof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }
  void keep(const StorageRef &s) { storages_.push_back(s); }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
  std::vector<StorageRef> storages_;
};

// A backend group this process joined: for one of its devices, from one
// bootstrap. Every bootstrap is collective, so epochs agree across ranks.
struct BackendGroup {
  Backend *backend;
  int32_t device;
  uint64_t group;
  int64_t epoch;
  bool current;  // false once a later bootstrap replaced it for this device
};

struct State {
  std::mutex mutex;  // one collective at a time; init and finalize too
  const bp_transport *t = nullptr;
  bool active = false;
  bool broken = false;     // a collective timed out: MPI waits on a missing peer
  bool abandoned = false;  // a broken group was left: MPI cannot serve another
  double timeout = kDefaultTimeout;
  // Read without the mutex, so that bp_dist_rank answers while a collective waits.
  std::atomic<bool> ready{false};
  std::atomic<int32_t> rank{0}, size{1}, local_rank{0}, local_size{1};
  std::vector<BackendGroup> groups;
  int64_t bootstraps = 0;
  std::vector<Scratch> kept;
};

// Never destroyed: MPI outlives static destructors, and kept memory must stay.
State &state() {
  static State *s = new State();
  return *s;
}

const char *collective_name(int32_t collective) {
  if (collective == kBarrier) return "barrier";
  const char *name = bp_vocab_collective_name(collective);
  return name ? name : "?";
}

std::string fn_of(int32_t collective) { return std::string("bp_dist_") + collective_name(collective); }

std::string reduce_name(int32_t reduce_op) {
  const char *name = bp_vocab_reduce_op_name(reduce_op);
  return name ? name : "reduction " + std::to_string(reduce_op);
}

std::string record_shape(const Record &r) { return shape_string(r.ndim, r.shape); }

// One call of a collective on this rank.
struct Call {
  int32_t collective;
  int32_t reduce_op;
  int32_t root;
  std::string fn;
  const View *view = nullptr;  // the tensor, once its handle is known good
};

double timeout_from(const bp_dist_options *options) {
  if (options) {
    check_struct_size(options->struct_size, BP_DIST_OPTIONS_SIZE_1_2, "bp_dist_init");
    if (options->reserved != 0)
      fail(BP_ERR_INVALID_ARGUMENT,
           "bp_dist_init: options.reserved is " + std::to_string(options->reserved) + "; it must be 0");
    const double t = options->timeout_seconds;
    if (!(t >= 0) || !std::isfinite(t))
      fail(BP_ERR_INVALID_ARGUMENT, "bp_dist_init: options.timeout_seconds is " + seconds(t) +
                                        "; give seconds > 0, or 0 for the default");
    if (t > 0) return t;
  }
  const char *env = std::getenv("BACKPLANE_DIST_TIMEOUT");
  if (env && *env) {
    char *end = nullptr;
    errno = 0;
    const double t = std::strtod(env, &end);
    if (end == env || *end != '\0' || errno != 0 || !(t > 0) || !std::isfinite(t))
      fail(BP_ERR_CONFIG, std::string("bp_dist_init: BACKPLANE_DIST_TIMEOUT=") + env +
                              " is not a number of seconds > 0 (unset it for the default, " +
                              seconds(kDefaultTimeout) + " s)");
    return t;
  }
  return kDefaultTimeout;
}

void require_active(State &s, const std::string &fn) {
  if (!s.active) fail(BP_ERR_STATE, fn + ": the process group is not initialised (call bp_dist_init first)");
  if (s.broken)
    fail(BP_ERR_PEER, fn + ": the process group is broken: an earlier collective timed out waiting for a peer; "
                           "call bp_dist_finalize and exit");
}

std::string where(const State &s) {
  return "rank " + std::to_string(s.rank.load()) + " of " + std::to_string(s.size.load());
}

// Turns a transport status into an Error; a timeout breaks the group and
// keeps the call's memory (Scratch).
void check_transport(State &s, const std::string &fn, Scratch &scratch, int32_t status, const std::string &phase) {
  if (status == BP_OK) return;
  const std::string detail = s.t->last_error();
  if (status != BP_ERR_PEER) fail(as_status(status), fn + ": " + phase + ": " + detail);
  s.broken = true;
  s.kept.push_back(std::move(scratch));
  fail(BP_ERR_PEER, fn + ": " + where(s) + " waited " + seconds(s.timeout) + " s " + phase +
                        " and not every rank arrived (" + detail +
                        "); the process group is now broken: later collectives fail at once; call "
                        "bp_dist_finalize and exit (MPI is left as it is: finalising it would wait for the "
                        "missing rank)");
}

// ---- what this rank was asked ----------------------------------------------

struct BackendEntries {
  bp_status (*collective)(const bp_collective_args *) = nullptr;
  bp_status (*group_id)(int32_t, void *, uint32_t, uint32_t *) = nullptr;
  bp_status (*group_join)(int32_t, const void *, uint32_t, int32_t, int32_t, uint64_t *) = nullptr;
  bp_status (*group_leave)(uint64_t) = nullptr;
  bool complete() const { return collective && group_id && group_join && group_leave; }
};

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

// Fills this rank's record; throws this rank's own refusal.
void describe(State &s, Call &c, bp_tensor handle, bool has_output, const bp_tensor *output, Record &mine) {
  const View *v = handles().get(handle);
  if (!v)
    fail(BP_ERR_INVALID_HANDLE, c.fn + ": the tensor is " +
                                    (handle == 0 ? std::string("a null tensor handle")
                                                 : std::string("not a live tensor (released or never issued)")));
  if (has_output && !output) fail(BP_ERR_INVALID_ARGUMENT, c.fn + ": output is NULL");
  mine.dtype = v->dtype;
  mine.ndim = v->rank;
  for (int32_t d = 0; d < v->rank; ++d) mine.shape[d] = v->shape[d];
  const Device &device = v->device();
  put(mine.device, device.name);
  put(mine.backend, device.backend->name());
  // A plugin older than the dtype never sees it (plugin.h): MPI carries it.
  mine.group_capable =
      entries_of(*device.backend).complete() && collectives::unknown_to(*device.backend, v->dtype).empty();
  const BackendGroup *g = mine.group_capable ? cached_group(s, device) : nullptr;
  mine.group_epoch = g ? g->epoch : -1;
  const bool in_place = c.collective == BP_COLLECTIVE_ALL_REDUCE || c.collective == BP_COLLECTIVE_BROADCAST;
  if (in_place) autograd::before_write(c.fn.c_str(), *v, {});
  c.view = v;
}

// The message of another rank's refusal, without its function prefix.
std::string refusal(const Call &c, const Record &r) {
  std::string m(r.message, strnlen(r.message, sizeof r.message));
  const std::string own = c.fn + ": ";
  if (m.compare(0, own.size(), own) == 0) m.erase(0, own.size());
  return m;
}

// Every rank runs this on the same records, so every rank reaches the same
// verdict: the first difference from rank 0, in a fixed order of checks.
void agree(State &s, const Call &c, const Record *all, const std::optional<Error> &own) {
  const int32_t n = s.size.load();
  auto error = [&](bp_status status, const std::string &what) {
    Error e(status, c.fn + ": " + what + "; nothing was done");
    e.op = collective_name(c.collective);
    if (c.view) e.devices = {c.view->device().id};
    throw e;
  };
  if (own) throw *own;
  for (int32_t j = 0; j < n; ++j)
    if (all[j].status != BP_OK)
      error(as_status(all[j].status), "rank " + std::to_string(j) + " refused the call (" + status_name(all[j].status) +
                               ": " + refusal(c, all[j]) + ")");
  const Record &first = all[0];
  for (int32_t j = 1; j < n; ++j) {
    const Record &r = all[j];
    const std::string rank = "rank " + std::to_string(j);
    if (r.collective != first.collective)
      error(BP_ERR_INVALID_ARGUMENT, rank + " called " + fn_of(r.collective) + " where rank 0 called " +
                                         fn_of(first.collective) + " (every rank must call the same collective)");
    if (r.reduce_op != first.reduce_op)
      error(BP_ERR_INVALID_ARGUMENT, rank + " asked for " + reduce_name(r.reduce_op) + " where rank 0 asked for " +
                                         reduce_name(first.reduce_op));
    if (r.root != first.root)
      error(BP_ERR_INVALID_ARGUMENT, rank + " named root " + std::to_string(r.root) + " where rank 0 named " +
                                         std::to_string(first.root));
    if (r.dtype != first.dtype)
      error(BP_ERR_DTYPE, rank + "'s tensor is " + dtype_name(r.dtype) + " (on " + r.device + ") where rank 0's is " +
                              dtype_name(first.dtype) + " (every rank must pass the same dtype)");
    bool same_shape = r.ndim == first.ndim;
    for (int32_t d = 0; same_shape && d < r.ndim; ++d) same_shape = r.shape[d] == first.shape[d];
    if (!same_shape)
      error(BP_ERR_SHAPE, rank + "'s tensor has shape " + record_shape(r) + " (on " + r.device +
                              ") where rank 0's has " + record_shape(first) + " (every rank must pass the same shape)");
  }
  if (c.collective == BP_COLLECTIVE_ALL_REDUCE || c.collective == BP_COLLECTIVE_REDUCE_SCATTER) {
    const int32_t dtypes = bp_vocab_reduce_op_dtypes(c.reduce_op);
    if (!dtypes)
      error(BP_ERR_INVALID_ARGUMENT, "unknown reduction " + std::to_string(c.reduce_op) +
                                         " (BP_REDUCE_SUM, _MEAN, _MAX or _MIN)");
    if (!bp_vocab_dtype_in_set(first.dtype, dtypes))
      error(BP_ERR_DTYPE, reduce_name(c.reduce_op) + " of " + dtype_name(first.dtype) +
                              " is not defined (on bool, max and min are or and and)");
  }
  if (c.collective == BP_COLLECTIVE_BROADCAST && (c.root < 0 || c.root >= n))
    error(BP_ERR_INVALID_ARGUMENT, "root " + std::to_string(c.root) + " is not a rank of the group (0.." +
                                       std::to_string(n - 1) + ")");
  if (c.collective == BP_COLLECTIVE_ALL_GATHER && first.ndim >= BP_MAX_RANK)
    error(BP_ERR_SHAPE, "the result would have rank " + std::to_string(first.ndim + 1) + ", above BP_MAX_RANK (" +
                            std::to_string(BP_MAX_RANK) + ")");
  if (c.collective == BP_COLLECTIVE_REDUCE_SCATTER && (first.ndim < 1 || first.shape[0] != n))
    error(BP_ERR_SHAPE, "the tensor has shape " + record_shape(first) + "; reduce_scatter over " +
                            std::to_string(n) + " ranks needs a first axis of " + std::to_string(n) +
                            " (one row per rank)");
}

// Gathers every rank's record (bounded, like every wait) and agrees on it.
void exchange(State &s, const Call &c, Scratch &scratch, Record &mine, Record *all, std::optional<Error> &own) {
  const int32_t status = s.t->all_gather(&mine, all, sizeof(Record), BP_TRANSPORT_BYTES, s.timeout);
  check_transport(s, c.fn, scratch, status, "for every rank to join the call");
  agree(s, c, all, own);
}

// Runs a collective's first phase: this rank's record, everyone's, the
// verdict. Returns the records (all agreed).
Record *start(State &s, Call &c, Scratch &scratch, bp_tensor handle, bool has_output, const bp_tensor *output) {
  const int32_t n = s.size.load();
  // mine, then everyone's
  Record *records = scratch.objects<Record>(size_t(n) + 1);
  Record &mine = records[0];
  mine.collective = c.collective;
  mine.reduce_op = c.reduce_op;
  mine.root = c.root;
  mine.group_epoch = -1;
  std::optional<Error> own;
  if (c.collective != kBarrier) {
    try {
      describe(s, c, handle, has_output, output, mine);
    } catch (const Error &e) {
      own = e;
      mine.status = e.status();
      put(mine.message, e.what());
    }
  }
  exchange(s, c, scratch, mine, records + 1, own);
  return records + 1;
}

// ---- data paths --------------------------------------------------------------

enum class Path { kZeroCopy, kStaged, kGroup };

char *host_pointer(const View &v) { return static_cast<char *>(v.storage->host()) + v.offset; }

// Used in place by MPI: host memory, dense.
bool zero_copy(const View &v) { return v.storage->host() && v.contiguous(); }

uint64_t bytes_of(const View &v) { return uint64_t(v.numel()) * uint64_t(dtype_size(v.dtype)); }

template <class T>
void divide(void *data, uint64_t n, int32_t by) {
  T *p = static_cast<T *>(data);
  if constexpr (std::is_integral_v<T>)  // truncated toward zero, as C divides; in int64, since `by` may not fit T
    for (uint64_t i = 0; i < n; ++i) p[i] = T(int64_t(p[i]) / by);
  else
    for (uint64_t i = 0; i < n; ++i) p[i] = T(p[i] / T(by));
}

// float16 and bfloat16 go to the transport as MEAN: it sums them in float32
// and divides before its one rounding (transport.h).
bool transport_means(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

// MEAN is SUM divided by the group's size, on the host.
void finish_mean(int32_t reduce_op, int32_t dtype, void *data, uint64_t n, int32_t size) {
  if (reduce_op != BP_REDUCE_MEAN || transport_means(dtype)) return;
  switch (dtype) {
    case BP_FLOAT32: divide<float>(data, n, size); break;
    case BP_FLOAT64: divide<double>(data, n, size); break;
    case BP_INT32: divide<int32_t>(data, n, size); break;
    case BP_INT64: divide<int64_t>(data, n, size); break;
    case BP_INT8: divide<int8_t>(data, n, size); break;
    case BP_UINT8: divide<uint8_t>(data, n, size); break;
    case BP_INT16: divide<int16_t>(data, n, size); break;
    default: fail(BP_ERR_INTERNAL, "finish_mean: dtype " + std::string(dtype_name(dtype)));
  }
}

// The reduction the transport runs: MEAN as SUM (the core divides), except
// where the transport divides itself.
int32_t for_transport(int32_t reduce_op, int32_t dtype) {
  return reduce_op == BP_REDUCE_MEAN && !transport_means(dtype) ? BP_REDUCE_SUM : reduce_op;
}

void count_staged(const View &v) { v.device().backend->counters.staged_copies.fetch_add(1, std::memory_order_relaxed); }

// Host memory holding v's elements for MPI: v's own when MPI can use it in
// place (zero_copy), else a staging buffer, filled from v when `fill`.
void *host_memory(const View &v, Scratch &scratch, bool fill) {
  if (zero_copy(v)) {
    wait(v);
    scratch.keep(v.storage);
    return host_pointer(v);
  }
  void *data = scratch.buffer(bytes_of(v));
  if (fill) to_host(v, data, bytes_of(v));
  return data;
}

// ---- backend groups (the plugin's collective entry across processes) ---------

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

// The group of this rank's device, joined by every rank at once when any
// rank lacks it (all ranks see the same records, so all bootstrap together).
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

// The plugin's collective on dense views; false when it answered
// BP_ERR_UNSUPPORTED before writing anything (MPI then does it).
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

bool group_path(const State &s, const Record *all) {
  for (int32_t j = 0; j < s.size.load(); ++j)
    if (!all[j].group_capable || std::strcmp(all[j].backend, all[0].backend) != 0) return false;
  return true;
}

// ---- trace --------------------------------------------------------------------

void record_trace(const State &s, const Call &c, Path path) {
  if (!trace::on()) return;
  const View &v = *c.view;
  std::string line = collective_name(c.collective);
  if (c.collective == BP_COLLECTIVE_ALL_REDUCE || c.collective == BP_COLLECTIVE_REDUCE_SCATTER)
    line += " " + reduce_name(c.reduce_op);
  line += std::string(" ") + dtype_name(v.dtype) + " " + shape_string(v.rank, v.shape);
  if (c.collective == BP_COLLECTIVE_BROADCAST) line += " from rank " + std::to_string(c.root);
  line += ": " + where(s) + " on " + v.device().name + ", ";
  switch (path) {
    case Path::kZeroCopy: line += "through MPI from host memory (zero-copy)"; break;
    case Path::kStaged: line += "through MPI, staged through host memory"; break;
    case Path::kGroup:
      line += "through the " + v.device().backend->name() + " backend's group (its collective entry, bootstrapped over MPI)";
      break;
  }
  trace::record(std::move(line));
}

// ---- the collectives ----------------------------------------------------------

// In place through a backend group; a dense copy stands in for a strided
// view, and is written back into it when `write_back`.
bool in_place_in_group(const Call &c, const BackendGroup &g, const View &v, bool write_back) {
  if (v.contiguous()) return run_in_group(c, g, v, v);
  View dense = contiguous_copy(v);
  if (!run_in_group(c, g, dense, dense)) return false;
  if (write_back) assign(v, dense);
  return true;
}

Path all_reduce_data(State &s, const Call &c, Scratch &scratch, const Record *all) {
  const View &v = *c.view;
  if (group_path(s, all) && in_place_in_group(c, backend_group(s, c, scratch, all), v, true)) return Path::kGroup;
  const bool in_place = zero_copy(v);
  void *data = host_memory(v, scratch, true);
  const uint64_t n = uint64_t(v.numel());
  const int32_t op = for_transport(c.reduce_op, v.dtype);
  check_transport(s, c.fn, scratch, s.t->all_reduce(data, n, v.dtype, op, s.timeout), "for the other ranks' data");
  finish_mean(c.reduce_op, v.dtype, data, n, s.size.load());
  if (in_place) return Path::kZeroCopy;
  from_host_into(v, data, bytes_of(v));
  count_staged(v);
  return Path::kStaged;
}

Path broadcast_data(State &s, const Call &c, Scratch &scratch, const Record *all) {
  const View &v = *c.view;
  const bool root = s.rank.load() == c.root;
  if (group_path(s, all) && in_place_in_group(c, backend_group(s, c, scratch, all), v, !root)) return Path::kGroup;
  const bool in_place = zero_copy(v);
  void *data = host_memory(v, scratch, root);
  check_transport(s, c.fn, scratch, s.t->broadcast(data, uint64_t(v.numel()), v.dtype, c.root, s.timeout),
                  "for the root's data");
  if (in_place) return Path::kZeroCopy;
  if (!root) from_host_into(v, data, bytes_of(v));
  count_staged(v);
  return Path::kStaged;
}

// all_gather and reduce_scatter: a new tensor of `shape` on the input's device.
View gathering_data(State &s, const Call &c, Scratch &scratch, const Record *all, int32_t out_rank,
                    const int64_t *out_shape, Path &path) {
  const View &v = *c.view;
  Device &device = v.device();
  View out = allocate_view(device, v.dtype, out_rank, out_shape);
  if (group_path(s, all)) {
    const BackendGroup &g = backend_group(s, c, scratch, all);
    const bool done = v.contiguous() ? run_in_group(c, g, v, out) : run_in_group(c, g, contiguous_copy(v), out);
    if (done) {
      path = Path::kGroup;
      return out;
    }
  }
  bool staged = !zero_copy(v);
  const void *input = host_memory(v, scratch, true);
  const uint64_t out_bytes = bytes_of(out);
  void *output;
  if (out.storage->host()) {
    scratch.keep(out.storage);
    output = host_pointer(out);
  } else {
    staged = true;
    output = scratch.buffer(out_bytes);
  }
  const int32_t status =
      c.collective == BP_COLLECTIVE_ALL_GATHER
          ? s.t->all_gather(input, output, uint64_t(v.numel()), v.dtype, s.timeout)
          : s.t->reduce_scatter(input, output, uint64_t(out.numel()), v.dtype, for_transport(c.reduce_op, v.dtype),
                                s.timeout);
  check_transport(s, c.fn, scratch, status, "for the other ranks' data");
  if (c.collective == BP_COLLECTIVE_REDUCE_SCATTER)
    finish_mean(c.reduce_op, v.dtype, output, uint64_t(out.numel()), s.size.load());
  if (!out.storage->host()) from_host_into(out, output, out_bytes);
  if (staged) count_staged(v);
  path = staged ? Path::kStaged : Path::kZeroCopy;
  return out;
}

}  // namespace

void init(const bp_dist_options *options) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.active) fail(BP_ERR_STATE, "bp_dist_init: already initialised (bp_dist_finalize first to start again)");
  if (s.abandoned)
    fail(BP_ERR_STATE, "bp_dist_init: an earlier process group broke (a collective timed out) and MPI still "
                       "waits on it; this process cannot join another");
  const double timeout = timeout_from(options);
  const bp_transport *t;
  try {
    t = &transport();
  } catch (const Error &e) {
    fail(e.status(), std::string("bp_dist_init: ") + e.what());
  }
  int32_t initialised_here = 0;
  const int32_t status = t->init(&initialised_here);
  if (status != BP_OK) fail(as_status(status), std::string("bp_dist_init: ") + t->last_error());
  int32_t rank = 0, size = 1, local_rank = 0, local_size = 1;
  const int32_t topo = t->topology(&rank, &size, &local_rank, &local_size);
  if (topo != BP_OK) {
    const std::string why = t->last_error();
    t->finalize(0);
    fail(as_status(topo), "bp_dist_init: " + why);
  }
  s.t = t;
  s.timeout = timeout;
  s.broken = false;
  s.rank = rank;
  s.size = size;
  s.local_rank = local_rank;
  s.local_size = local_size;
  s.active = true;
  s.ready.store(true, std::memory_order_release);
}

void finalize() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.active) fail(BP_ERR_STATE, "bp_dist_finalize: the process group is not initialised");
  s.ready.store(false, std::memory_order_release);
  s.active = false;
  std::optional<Error> first;
  // A broken group's backend groups may wait on the missing rank too.
  if (!s.broken) {
    for (const BackendGroup &g : s.groups) {
      const auto leave = g.backend->optional(&bp_plugin_api::group_leave);
      auto call = g.backend->call_lock();
      const bp_status status = leave(g.group);
      if (status != BP_OK && !first) {
        const Backend::Failure f = g.backend->failure(status);
        first = Error(f.status, "bp_dist_finalize: leaving the " + g.backend->name() + " backend's group failed (" +
                                    f.code + "): " + f.message);
      }
    }
  }
  s.groups.clear();
  const int32_t status = s.t->finalize(s.broken ? 1 : 0);
  if (s.broken) s.abandoned = true;
  if (status != BP_OK) fail(as_status(status), std::string("bp_dist_finalize: ") + s.t->last_error());
  if (first) throw *first;
}

Topology topology(const char *fn) {
  State &s = state();
  if (!s.ready.load(std::memory_order_acquire))
    fail(BP_ERR_STATE, std::string(fn) + ": the process group is not initialised (call bp_dist_init first)");
  return {s.rank.load(), s.size.load(), s.local_rank.load(), s.local_size.load()};
}

void all_reduce(bp_tensor tensor, int32_t reduce_op) {
  State &s = state();
  Call c{BP_COLLECTIVE_ALL_REDUCE, reduce_op, 0, fn_of(BP_COLLECTIVE_ALL_REDUCE)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  const Record *all = start(s, c, scratch, tensor, false, nullptr);
  const Path path = all_reduce_data(s, c, scratch, all);
  autograd::wrote(*c.view);
  record_trace(s, c, path);
}

void broadcast(bp_tensor tensor, int32_t root) {
  State &s = state();
  Call c{BP_COLLECTIVE_BROADCAST, 0, root, fn_of(BP_COLLECTIVE_BROADCAST)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  const Record *all = start(s, c, scratch, tensor, false, nullptr);
  const Path path = broadcast_data(s, c, scratch, all);
  if (s.rank.load() != root) autograd::wrote(*c.view);
  record_trace(s, c, path);
}

void all_gather(bp_tensor input, bp_tensor *output) {
  State &s = state();
  Call c{BP_COLLECTIVE_ALL_GATHER, 0, 0, fn_of(BP_COLLECTIVE_ALL_GATHER)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  const Record *all = start(s, c, scratch, input, true, output);
  const View &v = *c.view;
  int64_t shape[BP_MAX_RANK] = {s.size.load()};
  for (int32_t d = 0; d < v.rank; ++d) shape[d + 1] = v.shape[d];
  Path path;
  View out = gathering_data(s, c, scratch, all, v.rank + 1, shape, path);
  *output = handles().insert(std::move(out));
  record_trace(s, c, path);
}

void reduce_scatter(bp_tensor input, int32_t reduce_op, bp_tensor *output) {
  State &s = state();
  Call c{BP_COLLECTIVE_REDUCE_SCATTER, reduce_op, 0, fn_of(BP_COLLECTIVE_REDUCE_SCATTER)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  const Record *all = start(s, c, scratch, input, true, output);
  const View &v = *c.view;
  Path path;
  View out = gathering_data(s, c, scratch, all, v.rank - 1, v.shape + 1, path);
  *output = handles().insert(std::move(out));
  record_trace(s, c, path);
}

void barrier() {
  State &s = state();
  Call c{kBarrier, 0, 0, fn_of(kBarrier)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  // Gathering every rank's record is itself the barrier: it completes only
  // once every rank has contributed, and a rank that called another
  // collective is named instead of matched with it.
  start(s, c, scratch, 0, false, nullptr);
  if (trace::on()) trace::record("barrier: " + where(s) + ", through MPI");
}

}  // namespace bp::core::dist
