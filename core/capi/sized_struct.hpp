// Structs the caller hands in carry the caller's struct_size: a caller built
// against an older minor version has a shorter struct. The core accepts any
// size from the first published one up, and writes only the fields that fit
// (docs/abi-rules.md).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "errors/error.hpp"

namespace bp::core {

// Throws BP_ERR_INVALID_ARGUMENT when size is below the struct's 1.0 size.
inline void check_struct_size(uint32_t size, size_t size_1_0, const char *fn) {
  if (size < size_1_0)
    fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": struct_size " + std::to_string(size) +
                                      " is smaller than the first published size (" +
                                      std::to_string(size_1_0) +
                                      "); set it to sizeof the struct");
}

// Copies `full` into `caller` up to the caller's struct_size (and never past
// the struct this core knows), leaving struct_size as the caller set it.
template <class S>
void write_sized(S &caller, const S &full) {
  static_assert(offsetof(S, struct_size) == 0, "struct_size comes first");
  const size_t size = caller.struct_size < sizeof(S) ? caller.struct_size : sizeof(S);
  const size_t skip = sizeof caller.struct_size;
  if (size > skip)
    std::memcpy(reinterpret_cast<char *>(&caller) + skip,
                reinterpret_cast<const char *>(&full) + skip, size - skip);
}

}  // namespace bp::core
