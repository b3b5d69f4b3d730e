// Backend groups: a plugin's own collective entry across processes (NCCL
// for CUDA), its group bootstrapped over the transport and cached per
// device until a later bootstrap replaces it.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "comm/agreement.hpp"
#include "comm/group_state.hpp"

namespace bp::core {
struct Device;
}

namespace bp::core::dist {

// The plugin entries a backend group needs.
struct BackendEntries {
  bp_status (*collective)(const bp_collective_args *) = nullptr;
  bp_status (*group_id)(int32_t, void *, uint32_t, uint32_t *) = nullptr;
  bp_status (*group_join)(int32_t, const void *, uint32_t, int32_t, int32_t, uint64_t *) = nullptr;
  bp_status (*group_leave)(uint64_t) = nullptr;
  bool complete() const { return collective && group_id && group_join && group_leave; }
};

BackendEntries entries_of(const Backend &b);

// The current group of the device's backend, or nullptr.
BackendGroup *cached_group(State &s, const Device &d);

// Whether every rank's tensor is on a group-capable device of one backend.
bool group_path(const State &s, const Record *all);

// The group of this rank's device, joined by every rank at once when any
// rank lacks it (all ranks see the same records, so all bootstrap together).
BackendGroup &backend_group(State &s, const Call &c, Scratch &scratch, const Record *all);

// The plugin's collective on dense views; false when it answered
// BP_ERR_UNSUPPORTED before writing anything (MPI then does it).
bool run_in_group(const Call &c, const BackendGroup &g, const View &in, const View &out);

// In place through a backend group; a dense copy stands in for a strided
// view, and is written back into it when `write_back`.
bool in_place_in_group(const Call &c, const BackendGroup &g, const View &v, bool write_back);

}  // namespace bp::core::dist
