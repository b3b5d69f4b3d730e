// The files bp_safetensors_open made: each behind a handle that is never
// reused, so a closed or invented handle is BP_ERR_INVALID_HANDLE. A call
// holds its file by a shared pointer, so closing it on another thread
// meanwhile frees it after that call returns, never during it.
#pragma once

#include <cstdint>
#include <memory>

#include "safetensors/format.hpp"
#include "safetensors/source.hpp"
#include "tensors/view.hpp"

namespace bp::core {
struct Device;
}

namespace bp::core::safetensors {

struct OpenFile {
  std::unique_ptr<Source> source;
  Contents contents;
};

// The handle of a newly opened file.
uint64_t add(std::shared_ptr<const OpenFile> file);
// The file behind a handle (BP_ERR_INVALID_HANDLE naming fn otherwise).
std::shared_ptr<const OpenFile> find(const char *fn, uint64_t handle);
// Forgets a handle (BP_ERR_INVALID_HANDLE when it is none).
void remove(const char *fn, uint64_t handle);

// The entry called name (BP_ERR_INVALID_ARGUMENT naming fn otherwise).
const Entry &entry_named(const char *fn, const OpenFile &file, const std::string &name);
// An entry's bytes, read from the file into a new tensor on device through
// its backend.
View load(const OpenFile &file, const Entry &entry, Device &device);

}  // namespace bp::core::safetensors
