// Errors inside the plugin are C++ exceptions carrying a bp_status; the ABI
// entry points (plugin_api.cpp) catch them and keep the message for
// last_error() of the calling thread.
#pragma once

#include <stdexcept>
#include <string>

#include "backplane/types.h"

namespace cpu_backend {

class Error : public std::runtime_error {
 public:
  Error(bp_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
  bp_status status() const { return status_; }

 private:
  bp_status status_;
};

// Throws Error(status, printf-style message).
[[noreturn]] void fail(bp_status status, const char *format, ...) __attribute__((format(printf, 2, 3)));

// The calling thread's last error message (what last_error() returns).
const char *last_error_message();
void set_last_error_message(const char *message);

}  // namespace cpu_backend
