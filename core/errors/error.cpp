#include "errors/error.hpp"

namespace bp::core {

ErrorState &thread_error() {
  thread_local ErrorState state;
  return state;
}

bp_status record_error(bp_status status, std::string message, std::string op, int32_t input,
                       std::vector<bp_device> devices) {
  ErrorState &e = thread_error();
  e.status = status;
  e.message = std::move(message);
  e.op = std::move(op);
  e.input = input;
  e.devices = std::move(devices);
  return status;
}

}  // namespace bp::core
