// errors.hpp — how a failure travels inside the plugin: as the SDK's Error
// carrying a bp_status, thrown where it is found and turned into a status
// plus the thread's last-error message by the SDK's guard at the ABI
// boundary (plugin_api.cpp). Nothing C++ ever crosses the ABI.
#pragma once

#include <CL/cl.h>

#include <string>

#include "backplane/plugin_sdk.hpp"

namespace bp_ocl {

using bp_plugin::Error;
using bp_plugin::fail;  // fail(status, printf-style message): throws Error

// "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL error" for codes no header names.
const char *cl_error_name(cl_int code);

// Throws when `code` is not CL_SUCCESS: "<call> failed on <where>: <NAME> (<code>)".
// Allocation failures become BP_ERR_OUT_OF_MEMORY, everything else BP_ERR_BACKEND.
void check_cl(cl_int code, const char *call, const std::string &where);

}  // namespace bp_ocl
