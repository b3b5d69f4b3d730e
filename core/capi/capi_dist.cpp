// The bp_dist_* functions of collectives.h (comm/process_group.hpp
// does the work). Messages name the function the caller called, whatever
// layer below raised them.
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "comm/process_group.hpp"

using namespace bp::core;

namespace {

template <class Body>
bp_status dist_call(const char *fn, Body &&body) {
  // The names that lead the messages of the transfers and operators a
  // staged collective runs.
  return guarded([&] { as_function(fn, {"to_host", "from_host_into", "copy", "assign"}, body); });
}

bp_status topology_field(const char *fn, int32_t *out, int32_t dist::Topology::*field) {
  return dist_call(fn, [&] {
    int32_t &o = require(out, fn, "the output");
    o = dist::topology(fn).*field;
  });
}

}  // namespace

extern "C" {

bp_status bp_dist_init(const bp_dist_options *options) {
  return dist_call("bp_dist_init", [&] { dist::init(options); });
}

bp_status bp_dist_finalize(void) {
  return dist_call("bp_dist_finalize", [] { dist::finalize(); });
}

bp_status bp_dist_rank(int32_t *rank) { return topology_field("bp_dist_rank", rank, &dist::Topology::rank); }

bp_status bp_dist_size(int32_t *size) { return topology_field("bp_dist_size", size, &dist::Topology::size); }

bp_status bp_dist_local_rank(int32_t *local_rank) {
  return topology_field("bp_dist_local_rank", local_rank, &dist::Topology::local_rank);
}

bp_status bp_dist_local_size(int32_t *local_size) {
  return topology_field("bp_dist_local_size", local_size, &dist::Topology::local_size);
}

bp_status bp_dist_all_reduce(bp_tensor tensor, int32_t reduce_op) {
  return dist_call("bp_dist_all_reduce", [&] { dist::all_reduce(tensor, reduce_op); });
}

bp_status bp_dist_broadcast(bp_tensor tensor, int32_t root) {
  return dist_call("bp_dist_broadcast", [&] { dist::broadcast(tensor, root); });
}

bp_status bp_dist_all_gather(bp_tensor input, bp_tensor *output) {
  return dist_call("bp_dist_all_gather", [&] { dist::all_gather(input, output); });
}

bp_status bp_dist_reduce_scatter(bp_tensor input, int32_t reduce_op, bp_tensor *output) {
  return dist_call("bp_dist_reduce_scatter", [&] { dist::reduce_scatter(input, reduce_op, output); });
}

bp_status bp_dist_barrier(void) {
  return dist_call("bp_dist_barrier", [] { dist::barrier(); });
}

}  // extern "C"
