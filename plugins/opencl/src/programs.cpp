// programs.cpp — building generated OpenCL C and looking kernels up by name.
#include "programs.hpp"

#include <vector>

#include "dtype.hpp"
#include "errors.hpp"

namespace bp_ocl {

ProgramCache::~ProgramCache() {
  for (auto &entry : programs_) {
    for (auto &k : entry.second.kernels) clReleaseKernel(k.second.handle);
    clReleaseProgram(entry.second.handle);
  }
}

const Kernel &ProgramCache::kernel(cl_context context, cl_device_id device,
                                   const SourceOptions &source, const std::string &build_options,
                                   Family family, int32_t dtype, const std::string &name,
                                   const std::string &where) {
  auto key = std::make_pair(family, dtype);
  auto it = programs_.find(key);
  if (it == programs_.end())
    it = programs_.emplace(key, build(context, device, source, build_options, family, dtype, where))
             .first;
  auto k = it->second.kernels.find(name);
  if (k == it->second.kernels.end())
    fail(BP_ERR_INTERNAL, "opencl plugin: no kernel '%s' in the %s program for %s", name.c_str(),
         family_name(family), dtype_name(dtype));
  return k->second;
}

namespace {

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
  const size_t keep = 2000;  // enough to see the first errors; messages stay readable
  return log.size() > keep ? log.substr(0, keep) + "..." : log;
}

}  // namespace

cl_program build_program(cl_context context, cl_device_id device, const std::string &text,
                         const std::string &build_options, const std::string &what,
                         const std::string &where) {
  const char *text_ptr = text.c_str();
  const size_t text_size = text.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &text_ptr, &text_size, &err);
  check_cl(err, "clCreateProgramWithSource", where);
  err = clBuildProgram(program, 1, &device, build_options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    // A generated kernel that does not compile is our bug, but the driver's
    // log is what tells anyone where.
    std::string log = build_log(program, device);
    clReleaseProgram(program);
    fail(BP_ERR_BACKEND, "clBuildProgram (%s) failed on %s: %s\n%s", what.c_str(), where.c_str(),
         cl_error_name(err), log.c_str());
  }
  return program;
}

std::map<std::string, Kernel> program_kernels(cl_program program, cl_device_id device,
                                              const std::string &where) {
  std::map<std::string, Kernel> result;
  std::vector<cl_kernel> kernels;
  try {
    cl_uint count = 0;
    check_cl(clCreateKernelsInProgram(program, 0, nullptr, &count), "clCreateKernelsInProgram", where);
    kernels.resize(count);
    check_cl(clCreateKernelsInProgram(program, count, kernels.data(), nullptr),
             "clCreateKernelsInProgram", where);
    for (cl_kernel handle : kernels) {
      Kernel k;
      k.handle = handle;
      size_t size = 0;
      check_cl(clGetKernelInfo(handle, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size),
               "clGetKernelInfo", where);
      std::string name(size, '\0');
      check_cl(clGetKernelInfo(handle, CL_KERNEL_FUNCTION_NAME, size, &name[0], nullptr),
               "clGetKernelInfo", where);
      k.name = name.c_str();  // drop the terminating NUL
      check_cl(clGetKernelWorkGroupInfo(handle, device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof k.max_work_group, &k.max_work_group, nullptr),
               "clGetKernelWorkGroupInfo", where);
      result.emplace(k.name, k);
    }
  } catch (...) {
    for (cl_kernel handle : kernels)
      if (handle) clReleaseKernel(handle);
    throw;
  }
  return result;
}

ProgramCache::Program ProgramCache::build(cl_context context, cl_device_id device,
                                          const SourceOptions &source,
                                          const std::string &build_options, Family family,
                                          int32_t dtype, const std::string &where) {
  Program program;
  program.handle =
      build_program(context, device, kernel_source(family, dtype, source), build_options,
                    std::string(family_name(family)) + " kernels for " + dtype_name(dtype), where);
  try {
    program.kernels = program_kernels(program.handle, device, where);
  } catch (...) {
    clReleaseProgram(program.handle);
    throw;
  }
  return program;
}

}  // namespace bp_ocl
