// programs.hpp — the kernels of one device, compiled on first use and kept
// for the life of the process (PoCL also keeps its own on-disk cache).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "kernel_source.hpp"

namespace bp_ocl {

struct Kernel {
  cl_kernel handle = nullptr;
  std::string name;
  size_t max_work_group = 1;  // CL_KERNEL_WORK_GROUP_SIZE on the device
};

// `text` built for `device` in `context`, or BP_ERR_BACKEND with the
// driver's log; `what` ("elementwise kernels for float32") and `where` (the
// device) name it in the message.
cl_program build_program(cl_context context, cl_device_id device, const std::string &text,
                         const std::string &build_options, const std::string &what,
                         const std::string &where);
// Every kernel of a built program, by name (the caller releases them).
std::map<std::string, Kernel> program_kernels(cl_program program, cl_device_id device,
                                              const std::string &where);

// Not thread safe: the owning Device calls it with its lock held (and so
// also serialises clSetKernelArg on the shared kernel objects).
class ProgramCache {
 public:
  ProgramCache() = default;
  ~ProgramCache();
  ProgramCache(const ProgramCache &) = delete;
  ProgramCache &operator=(const ProgramCache &) = delete;

  // Kernel `name` of the (family, dtype) program, built for `device` in
  // `context` on first use; `where` names the device in errors.
  const Kernel &kernel(cl_context context, cl_device_id device, const SourceOptions &source,
                       const std::string &build_options, Family family, int32_t dtype,
                       const std::string &name, const std::string &where);

 private:
  struct Program {
    cl_program handle = nullptr;
    std::map<std::string, Kernel> kernels;
  };
  Program build(cl_context context, cl_device_id device, const SourceOptions &source,
                const std::string &build_options, Family family, int32_t dtype,
                const std::string &where);

  std::map<std::pair<Family, int32_t>, Program> programs_;
};

}  // namespace bp_ocl
