// fused_disk.hpp — built fused kernels kept on disk across processes
// (option kernel_cache), as the driver's program binaries. Best effort:
// whatever goes wrong (no directory, a file cut short or from another
// build, a binary the driver refuses) makes the caller build from source.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bp_ocl {

// Where kernel_cache = "auto" (its default) keeps the files:
// $XDG_CACHE_HOME/backplane/opencl, else ~/.cache/backplane/opencl; "" when
// neither variable says where home is.
std::string default_kernel_cache_dir();

// One program's entry: its file in `dir`, named by a hash of `identity`
// (the source, the device, its driver and the build options), and the
// identity itself, which the file repeats so that a hash collision is a
// miss, not a wrong kernel.
struct DiskEntry {
  std::string path;
  std::string identity;
};
DiskEntry disk_entry(const std::string &dir, const std::string &identity);

// The binary stored for the entry, if its file is there and intact.
std::optional<std::vector<unsigned char>> load_binary(const DiskEntry &entry);

// Stores `binary` for the entry: the directory is made if missing, the file
// written under a temporary name and renamed, so readers never see half a
// file. Failures are ignored (the cache is an optimisation).
void store_binary(const DiskEntry &entry, const std::vector<unsigned char> &binary) noexcept;

}  // namespace bp_ocl
