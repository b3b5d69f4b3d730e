// Collectives across processes (the bp_dist_* functions of collectives.h):
// the process group, joined through the MPI transport module
// (transport.h), and the routing of each collective: through MPI from host
// memory, staged through host memory, or through a backend's own group
// (the plugin's group entries, NCCL for CUDA) bootstrapped over MPI.
//
// Every function throws Error with a message that starts with the C
// function's name; the C API (capi_dist.cpp) turns it into a status. One
// collective runs at a time, whatever the number of calling threads.
#pragma once

#include <cstdint>

#include "backplane/backplane.h"

namespace bp::core::dist {

void init(const bp_dist_options *options);
void finalize();

struct Topology {
  int32_t rank, size, local_rank, local_size;
};
// BP_ERR_STATE before init; `fn` names the caller in that message.
Topology topology(const char *fn);

void all_reduce(bp_tensor tensor, int32_t reduce_op);
void broadcast(bp_tensor tensor, int32_t root);
// *output is written only on success.
void all_gather(bp_tensor input, bp_tensor *output);
void reduce_scatter(bp_tensor input, int32_t reduce_op, bp_tensor *output);
void barrier();

}  // namespace bp::core::dist
