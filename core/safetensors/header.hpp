// Reading and checking a safetensors file's header: everything backplane.h
// lists as BP_ERR_FORMAT is found here, before any tensor is loaded.
#pragma once

#include "safetensors/format.hpp"
#include "safetensors/source.hpp"

namespace bp::core::safetensors {

// The checked contents of src's header. Throws BP_ERR_FORMAT naming the
// source, the byte offset and what is wrong (BP_ERR_IO when it cannot be
// read); reads the 8-byte length and the header only.
Contents read_header(const Source &src);

}  // namespace bp::core::safetensors
