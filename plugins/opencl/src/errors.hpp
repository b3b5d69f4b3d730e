// errors.hpp — how a failure travels inside the plugin: as an Error carrying
// a bp_status, thrown where it is found and turned into a status plus a
// thread-local message at the ABI boundary (plugin_api.cpp). Nothing C++
// ever crosses the ABI.
#pragma once

#include <CL/cl.h>

#include <exception>
#include <string>

#include "backplane/types.h"

namespace bp_ocl {

class Error : public std::exception {
 public:
  Error(bp_status status, std::string message) : status_(status), message_(std::move(message)) {}
  bp_status status() const { return status_; }
  const char *what() const noexcept override { return message_.c_str(); }

 private:
  bp_status status_;
  std::string message_;
};

[[noreturn]] void fail(bp_status status, const std::string &message);

// "CL_OUT_OF_RESOURCES" for -5; "unknown OpenCL error" for codes no header names.
const char *cl_error_name(cl_int code);

// Throws when `code` is not CL_SUCCESS: "<call> failed on <where>: <NAME> (<code>)".
// Allocation failures become BP_ERR_OUT_OF_MEMORY, everything else BP_ERR_BACKEND.
void check_cl(cl_int code, const char *call, const std::string &where);

// The calling thread's last failure message (the table's last_error).
void set_last_error(const std::string &message) noexcept;
const char *last_error();

}  // namespace bp_ocl
