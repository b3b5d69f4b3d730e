// Staging: the host memory the transport reads and writes for a tensor
// (its own when MPI can use it in place, else a copy), and MEAN, which the
// transport runs as SUM for most dtypes while the core divides.
#pragma once

#include <cstdint>

#include "comm/group_state.hpp"
#include "tensors/view.hpp"

namespace bp::core::dist {

char *host_pointer(const View &v);
// Used in place by MPI: host memory, dense.
bool zero_copy(const View &v);
uint64_t bytes_of(const View &v);

// MEAN is SUM divided by the group's size, on the host.
void finish_mean(int32_t reduce_op, int32_t dtype, void *data, uint64_t n, int32_t size);
// The reduction the transport runs: MEAN as SUM (the core divides), except
// where the transport divides itself.
int32_t for_transport(int32_t reduce_op, int32_t dtype);

void count_staged(const View &v);
// Host memory holding v's elements for MPI: v's own when MPI can use it in
// place (zero_copy), else a staging buffer, filled from v when `fill`.
void *host_memory(const View &v, Scratch &scratch, bool fill);

}  // namespace bp::core::dist
