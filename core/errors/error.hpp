// Errors inside the core are C++ exceptions of one type, bp::core::Error,
// carrying everything the C API exposes as structured fields. The C API
// boundary (capi/guard.hpp) catches them and stores them per thread.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "errors/echo.hpp"

namespace bp::core {

class Error : public std::runtime_error {
 public:
  Error(bp_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}

  bp_status status() const { return status_; }

  // Operator context, filled in by the dispatcher.
  std::string op;
  int32_t input = -1;
  std::vector<bp_device> devices;

 private:
  bp_status status_;
};

// "index 11 is outside 0..10" (or "there are none" for an empty range).
std::string index_range(const std::string &what, int64_t index, size_t count);

[[noreturn]] inline void fail(bp_status status, const std::string &message) {
  throw Error(status, message);
}

// The calling thread's last failure, as read by bp_last_error*.
struct ErrorState {
  bp_status status = BP_OK;
  std::string message;
  std::string op;
  int32_t input = -1;
  std::vector<bp_device> devices;
};

ErrorState &thread_error();

// Records an error for this thread and returns its status.
bp_status record_error(bp_status status, std::string message, std::string op = {},
                       int32_t input = -1, std::vector<bp_device> devices = {});

// Inside a catch block: records the exception in flight, never throwing.
bp_status record_current_exception() noexcept;

}  // namespace bp::core
