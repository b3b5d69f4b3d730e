// fused_cache.cpp — fused kernels in memory and on disk.
#include "fused_cache.hpp"

#include <vector>

#include "errors.hpp"
#include "fused_disk.hpp"
#include "fused_source.hpp"

namespace bp_ocl {

namespace {

// The device binary of a built program (one device), or nothing.
std::vector<unsigned char> program_binary(cl_program program) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0)
    return {};
  std::vector<unsigned char> binary(size);
  unsigned char *data = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) != CL_SUCCESS) return {};
  return binary;
}

// The program's kernel (it has no other).
Kernel fused_kernel(cl_program program, cl_device_id device, const std::string &where) {
  std::map<std::string, Kernel> kernels = program_kernels(program, device, where);
  auto it = kernels.find(kFusedKernel);
  Kernel k = it == kernels.end() ? Kernel{} : it->second;
  for (auto &entry : kernels)
    if (entry.second.handle != k.handle) clReleaseKernel(entry.second.handle);
  if (!k.handle) fail(BP_ERR_INTERNAL, "opencl plugin: no kernel '%s' in a fused program", kFusedKernel);
  return k;
}

}  // namespace

FusedCache::~FusedCache() {
  for (auto &entry : entries_) {
    clReleaseKernel(entry.second.kernel.handle);
    clReleaseProgram(entry.second.program);
  }
}

cl_program FusedCache::from_disk(const std::string &identity, const Target &target) {
  const std::optional<std::vector<unsigned char>> binary = load_binary(disk_entry(target.disk_dir, identity));
  if (!binary) return nullptr;
  const unsigned char *data = binary->data();
  const size_t size = binary->size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(target.context, 1, &target.device, &size, &data, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    return nullptr;
  }
  if (clBuildProgram(program, 1, &target.device, target.build_options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

const Kernel &FusedCache::kernel(const std::string &key, const std::function<std::string()> &source,
                                 const Target &target) {
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second.kernel;

  const std::string text = source();
  const std::string identity = text + '\0' + target.device_identity + '\0' + target.build_options;
  Entry entry;
  if (!target.disk_dir.empty()) {
    entry.program = from_disk(identity, target);
    if (entry.program) {
      try {
        entry.kernel = fused_kernel(entry.program, target.device, target.where);
        loaded_.fetch_add(1);
      } catch (const bp_plugin::Error &) {
        // A binary that built but holds no usable kernel: compile instead.
        clReleaseProgram(entry.program);
        entry.program = nullptr;
      }
    }
  }
  if (!entry.program) {
    entry.program = build_program(target.context, target.device, text, target.build_options,
                                  "fused elementwise kernel", target.where);
    try {
      entry.kernel = fused_kernel(entry.program, target.device, target.where);
    } catch (...) {
      clReleaseProgram(entry.program);
      throw;
    }
    built_.fetch_add(1);
    if (!target.disk_dir.empty()) store_binary(disk_entry(target.disk_dir, identity), program_binary(entry.program));
  }
  return entries_.emplace(key, entry).first->second.kernel;
}

}  // namespace bp_ocl
