#include "comm/process_group.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "autograd/functions.hpp"
#include "capi/sized_struct.hpp"
#include "comm/agreement.hpp"
#include "comm/backend_groups.hpp"
#include "comm/group_state.hpp"
#include "comm/staging.hpp"
#include "comm/transport_loader.hpp"
#include "devices/registry.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "tensors/handle_table.hpp"
#include "trace/trace.hpp"

namespace bp::core::dist {

namespace {

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

enum class Path { kZeroCopy, kStaged, kGroup };

void record_trace(const State &s, const Call &c, Path path) {
  if (!trace::on()) return;
  const View &v = *c.view;
  std::string line = collective_name(c.collective);
  if (c.collective == BP_COLLECTIVE_ALL_REDUCE || c.collective == BP_COLLECTIVE_REDUCE_SCATTER)
    line += " " + reduce_name(c.reduce_op);
  line += std::string(" ") + dtype_name(v.dtype) + " " + shape_string(v.rank, v.shape);
  if (c.collective == BP_COLLECTIVE_BROADCAST) line += " from rank " + std::to_string(c.root);
  line += ": " + rank_of_size(s) + " on " + v.device().name + ", ";
  switch (path) {
    case Path::kZeroCopy: line += "through MPI from host memory (zero-copy)"; break;
    case Path::kStaged: line += "through MPI, staged through host memory"; break;
    case Path::kGroup:
      line += "through the " + v.device().backend->name() + " backend's group (its collective entry, bootstrapped over MPI)";
      break;
  }
  trace::record(std::move(line));
}

// ---- the collectives' data ------------------------------------------------------

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
  dispatch::from_host_into(v, data, bytes_of(v));
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
  if (!root) dispatch::from_host_into(v, data, bytes_of(v));
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
    const bool done =
        v.contiguous() ? run_in_group(c, g, v, out) : run_in_group(c, g, dispatch::contiguous_copy(v), out);
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
  if (!out.storage->host()) dispatch::from_host_into(out, output, out_bytes);
  if (staged) count_staged(v);
  path = staged ? Path::kStaged : Path::kZeroCopy;
  return out;
}

// One collective on this rank, one at a time: the group must be active,
// every rank's record agreed (start), then `data` moves the data. `output`
// is the result's handle for the collectives that make one, else nullptr.
template <class Data>
void run_collective(int32_t collective, int32_t reduce_op, int32_t root, bp_tensor tensor,
                    const bp_tensor *output, Data &&data) {
  State &s = state();
  Call c{collective, reduce_op, root, fn_of(collective)};
  std::lock_guard<std::mutex> lock(s.mutex);
  require_active(s, c.fn);
  Scratch scratch;
  const bool has_output = collective == BP_COLLECTIVE_ALL_GATHER || collective == BP_COLLECTIVE_REDUCE_SCATTER;
  const Record *all = start(s, c, scratch, tensor, has_output, output);
  data(s, c, scratch, all);
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
  run_collective(BP_COLLECTIVE_ALL_REDUCE, reduce_op, 0, tensor, nullptr,
                 [](State &s, Call &c, Scratch &scratch, const Record *all) {
                   const Path path = all_reduce_data(s, c, scratch, all);
                   autograd::wrote(*c.view);
                   record_trace(s, c, path);
                 });
}

void broadcast(bp_tensor tensor, int32_t root) {
  run_collective(BP_COLLECTIVE_BROADCAST, 0, root, tensor, nullptr,
                 [&](State &s, Call &c, Scratch &scratch, const Record *all) {
                   const Path path = broadcast_data(s, c, scratch, all);
                   if (s.rank.load() != root) autograd::wrote(*c.view);
                   record_trace(s, c, path);
                 });
}

void all_gather(bp_tensor input, bp_tensor *output) {
  run_collective(BP_COLLECTIVE_ALL_GATHER, 0, 0, input, output,
                 [&](State &s, Call &c, Scratch &scratch, const Record *all) {
                   const View &v = *c.view;
                   int64_t shape[BP_MAX_RANK] = {s.size.load()};
                   for (int32_t d = 0; d < v.rank; ++d) shape[d + 1] = v.shape[d];
                   Path path;
                   View out = gathering_data(s, c, scratch, all, v.rank + 1, shape, path);
                   *output = handles().insert(std::move(out));
                   record_trace(s, c, path);
                 });
}

void reduce_scatter(bp_tensor input, int32_t reduce_op, bp_tensor *output) {
  run_collective(BP_COLLECTIVE_REDUCE_SCATTER, reduce_op, 0, input, output,
                 [&](State &s, Call &c, Scratch &scratch, const Record *all) {
                   const View &v = *c.view;
                   Path path;
                   View out = gathering_data(s, c, scratch, all, v.rank - 1, v.shape + 1, path);
                   *output = handles().insert(std::move(out));
                   record_trace(s, c, path);
                 });
}

void barrier() {
  // Gathering every rank's record is itself the barrier: it completes only
  // once every rank has contributed, and a rank that called another
  // collective is named instead of matched with it.
  run_collective(kBarrier, 0, 0, 0, nullptr, [](State &s, Call &, Scratch &, const Record *) {
    if (trace::on()) trace::record("barrier: " + rank_of_size(s) + ", through MPI");
  });
}

}  // namespace bp::core::dist
