// fused_cache.hpp — the fused kernels of one device, built on first use of
// their plan and kept for the life of the process; with a kernel_cache
// directory also on disk, so that a later process loads instead of
// compiling.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "programs.hpp"

namespace bp_ocl {

// Not thread safe: the owning Device calls it with its lock held, as its
// ProgramCache.
class FusedCache {
 public:
  FusedCache() = default;
  ~FusedCache();
  FusedCache(const FusedCache &) = delete;
  FusedCache &operator=(const FusedCache &) = delete;

  // Where a program comes from and is built.
  struct Target {
    cl_context context;
    cl_device_id device;
    std::string build_options;
    std::string device_identity;  // device, driver and platform: what a binary is valid for
    std::string disk_dir;         // "" keeps programs in memory only
    std::string where;            // the device, in errors
  };

  // The fused kernel for `key` (fused_key), from `source` (called only on a
  // miss in memory).
  const Kernel &kernel(const std::string &key, const std::function<std::string()> &source,
                       const Target &target);

  // Programs compiled from source, and loaded from the disk cache (read
  // without the lock by device_properties).
  uint64_t built() const { return built_.load(); }
  uint64_t loaded() const { return loaded_.load(); }

 private:
  struct Entry {
    cl_program program = nullptr;
    Kernel kernel;
  };
  cl_program from_disk(const std::string &identity, const Target &target);

  std::unordered_map<std::string, Entry> entries_;
  std::atomic<uint64_t> built_{0}, loaded_{0};
};

}  // namespace bp_ocl
