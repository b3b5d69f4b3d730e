// Finds and opens libbackplane-mpi.so beside libbackplane.so, once.
#pragma once

#include "comm/transport.h"

namespace bp::core::dist {

// The transport's table, loaded on first success and kept for the life of
// the process (MPI cannot be unloaded). BP_ERR_UNSUPPORTED saying why when
// this build has no transport or the file cannot be used; the message does
// not name the caller.
const bp_transport &transport();

}  // namespace bp::core::dist
