#include "comm/agreement.hpp"

#include <optional>
#include <string>

#include "autograd/functions.hpp"
#include "comm/backend_groups.hpp"
#include "comm/in_process.hpp"
#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "tensors/handle_table.hpp"

namespace bp::core::dist {

namespace {

std::string record_shape(const Record &r) { return shape_string(r.ndim, r.shape); }

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

}  // namespace

const Record *start(State &s, Call &c, Scratch &scratch, bp_tensor handle, bool has_output, const bp_tensor *output) {
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

}  // namespace bp::core::dist
