// errors.cpp — OpenCL status names and the thread-local last error.
#include "errors.hpp"

namespace bp_ocl {

void fail(bp_status status, const std::string &message) { throw Error(status, message); }

const char *cl_error_name(cl_int code) {
  switch (code) {
#define BP_CL_NAME(name) \
  case name:             \
    return #name;
    BP_CL_NAME(CL_SUCCESS)
    BP_CL_NAME(CL_DEVICE_NOT_FOUND)
    BP_CL_NAME(CL_DEVICE_NOT_AVAILABLE)
    BP_CL_NAME(CL_COMPILER_NOT_AVAILABLE)
    BP_CL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    BP_CL_NAME(CL_OUT_OF_RESOURCES)
    BP_CL_NAME(CL_OUT_OF_HOST_MEMORY)
    BP_CL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    BP_CL_NAME(CL_MEM_COPY_OVERLAP)
    BP_CL_NAME(CL_IMAGE_FORMAT_MISMATCH)
    BP_CL_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    BP_CL_NAME(CL_BUILD_PROGRAM_FAILURE)
    BP_CL_NAME(CL_MAP_FAILURE)
    BP_CL_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    BP_CL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    BP_CL_NAME(CL_COMPILE_PROGRAM_FAILURE)
    BP_CL_NAME(CL_LINKER_NOT_AVAILABLE)
    BP_CL_NAME(CL_LINK_PROGRAM_FAILURE)
    BP_CL_NAME(CL_DEVICE_PARTITION_FAILED)
    BP_CL_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    BP_CL_NAME(CL_INVALID_VALUE)
    BP_CL_NAME(CL_INVALID_DEVICE_TYPE)
    BP_CL_NAME(CL_INVALID_PLATFORM)
    BP_CL_NAME(CL_INVALID_DEVICE)
    BP_CL_NAME(CL_INVALID_CONTEXT)
    BP_CL_NAME(CL_INVALID_QUEUE_PROPERTIES)
    BP_CL_NAME(CL_INVALID_COMMAND_QUEUE)
    BP_CL_NAME(CL_INVALID_HOST_PTR)
    BP_CL_NAME(CL_INVALID_MEM_OBJECT)
    BP_CL_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    BP_CL_NAME(CL_INVALID_IMAGE_SIZE)
    BP_CL_NAME(CL_INVALID_SAMPLER)
    BP_CL_NAME(CL_INVALID_BINARY)
    BP_CL_NAME(CL_INVALID_BUILD_OPTIONS)
    BP_CL_NAME(CL_INVALID_PROGRAM)
    BP_CL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    BP_CL_NAME(CL_INVALID_KERNEL_NAME)
    BP_CL_NAME(CL_INVALID_KERNEL_DEFINITION)
    BP_CL_NAME(CL_INVALID_KERNEL)
    BP_CL_NAME(CL_INVALID_ARG_INDEX)
    BP_CL_NAME(CL_INVALID_ARG_VALUE)
    BP_CL_NAME(CL_INVALID_ARG_SIZE)
    BP_CL_NAME(CL_INVALID_KERNEL_ARGS)
    BP_CL_NAME(CL_INVALID_WORK_DIMENSION)
    BP_CL_NAME(CL_INVALID_WORK_GROUP_SIZE)
    BP_CL_NAME(CL_INVALID_WORK_ITEM_SIZE)
    BP_CL_NAME(CL_INVALID_GLOBAL_OFFSET)
    BP_CL_NAME(CL_INVALID_EVENT_WAIT_LIST)
    BP_CL_NAME(CL_INVALID_EVENT)
    BP_CL_NAME(CL_INVALID_OPERATION)
    BP_CL_NAME(CL_INVALID_GL_OBJECT)
    BP_CL_NAME(CL_INVALID_BUFFER_SIZE)
    BP_CL_NAME(CL_INVALID_MIP_LEVEL)
    BP_CL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    BP_CL_NAME(CL_INVALID_PROPERTY)
    BP_CL_NAME(CL_INVALID_IMAGE_DESCRIPTOR)
    BP_CL_NAME(CL_INVALID_COMPILER_OPTIONS)
    BP_CL_NAME(CL_INVALID_LINKER_OPTIONS)
    BP_CL_NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef BP_CL_NAME
    // From cl_ext.h (cl_khr_icd): the ICD loader found no platform at all.
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

void check_cl(cl_int code, const char *call, const std::string &where) {
  if (code == CL_SUCCESS) return;
  const bool memory = code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_HOST_MEMORY;
  fail(memory ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND,
       std::string(call) + " failed on " + where + ": " + cl_error_name(code) + " (" +
           std::to_string(code) + ")");
}

namespace {
thread_local std::string t_last_error = "no call has failed on this thread";
}

void set_last_error(const std::string &message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {  // no memory even for the message: say at least that
    t_last_error.clear();
  }
}
const char *last_error() { return t_last_error.c_str(); }

}  // namespace bp_ocl
