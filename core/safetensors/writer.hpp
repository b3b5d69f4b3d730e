// Writing named tensors as a safetensors file: a plan made and checked
// before any byte is written (names, metadata, layout, the header's text),
// then the bytes, each tensor read through its own device's backend.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensors/view.hpp"

namespace bp::core::safetensors {

struct Named {
  std::string name;
  View view;
};

struct Plan {
  std::vector<Named> tensors;  // in the order of their data
  std::string header;          // the JSON, padded with spaces to a multiple of 8 bytes
};

// Checks every name and metadata entry (BP_ERR_INVALID_ARGUMENT naming fn
// and the entry) and lays the data out: by element size, largest first,
// then by name, so every tensor is aligned to its element size.
Plan plan(const char *fn, std::vector<Named> tensors,
          const std::vector<std::pair<std::string, std::string>> &metadata);

// Hands the file's bytes to sink in order (sink throws to stop).
void write(const Plan &plan, const std::function<void(const void *, uint64_t)> &sink);

// Writes the file under a temporary name beside path and renames it over
// path when complete (BP_ERR_IO naming fn and the path on failure, which
// leaves path as it was and removes the temporary file).
void save_file(const char *fn, const std::string &path, const Plan &plan);

}  // namespace bp::core::safetensors
