// A collective's first phase: each rank says what it was asked, every rank
// gathers every rank's word, and all reach the same verdict before any data
// moves, so that a mismatch is found by all of them alike, and named.
#pragma once

#include <cstdint>

#include "backplane/backplane.h"
#include "comm/group_state.hpp"

namespace bp::core::dist {

// What one rank says about its call. Plain bytes on the wire (the ranks of
// one launch run one build).
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

// This rank's record, everyone's, the verdict (an Error naming the first
// difference, thrown on every rank alike). Returns the size() records, all
// agreed, kept in scratch; c.view is the tensor once its handle was good.
const Record *start(State &s, Call &c, Scratch &scratch, bp_tensor handle, bool has_output, const bp_tensor *output);

}  // namespace bp::core::dist
