// Structs the caller hands in carry the caller's struct_size: a caller built
// against an older minor version has a shorter struct. The core accepts any
// size from the first published one up, and writes only the fields that fit
// (docs/abi-rules.md).
#pragma once

#include <cstddef>
#include <cstring>
#include <initializer_list>
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

// Copies into `caller` the fields of the newest version whose size (one of
// `version_sizes`, the struct's *_SIZE_<major>_<minor>, oldest first) fits in
// the caller's struct_size: whole fields only, nothing past struct_size, and
// struct_size left as the caller set it.
template <class S>
void write_sized(S &caller, const S &full, std::initializer_list<size_t> version_sizes) {
  static_assert(offsetof(S, struct_size) == 0, "struct_size comes first");
  size_t size = 0;
  for (size_t v : version_sizes)
    if (v <= caller.struct_size) size = v;
  const size_t skip = sizeof caller.struct_size;
  if (size > skip)
    std::memcpy(reinterpret_cast<char *>(&caller) + skip,
                reinterpret_cast<const char *>(&full) + skip, size - skip);
}

}  // namespace bp::core
