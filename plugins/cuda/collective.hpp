// Collectives through NCCL (built only when NCCL was found): the collective
// entry among devices of this process (group 0, one communicator clique per
// device list, made on first use and kept), and across processes in groups
// (group_id, group_join, group_leave: one communicator per group, this
// process's rank on one device). Every NCCL call goes to the stream of its
// device with that device locked, so a collective runs after earlier work
// there and later work sees its results.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_cuda {

// The ABI's collective (plugin.h, bp_collective_args).
void run_collective(const bp_collective_args *args);

// NCCL's unique id (128 bytes) into id; BP_ERR_INVALID_ARGUMENT when
// capacity is smaller.
void group_id(int32_t device, void *id, uint32_t capacity, uint32_t *size);
// This process's rank of a group of nranks on `device`; blocks until every
// rank has joined. Returns the group's number (never 0).
uint64_t group_join(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks);
void group_leave(uint64_t group);

}  // namespace bp_cuda
