#include "errors/error.hpp"

#include <new>

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

bp_status record_current_exception() noexcept {
  bp_status status = BP_ERR_INTERNAL;
  try {
    try {
      throw;
    } catch (const Error &e) {
      status = e.status();
      return record_error(status, e.what(), e.op, e.input, e.devices);
    } catch (const std::bad_alloc &) {
      status = BP_ERR_OUT_OF_MEMORY;
      return record_error(status, "out of host memory");
    } catch (const std::exception &e) {
      return record_error(status, std::string("internal error: ") + e.what());
    } catch (...) {
      return record_error(status, "internal error: unknown exception");
    }
  } catch (...) {
    ErrorState &state = thread_error();
    state.status = status;
    state.message.clear();  // clear() never allocates
    state.op.clear();
    state.input = -1;
    state.devices.clear();
    return status;
  }
}

std::string index_range(const std::string &what, int64_t index, size_t count) {
  if (count == 0) return what + " " + std::to_string(index) + " is out of range: there are none";
  return what + " " + std::to_string(index) + " is outside 0.." + std::to_string(count - 1);
}

}  // namespace bp::core
