#include "errors.hpp"

#include <cstdarg>
#include <cstdio>

namespace cpu_backend {

namespace {
// A plain array, not std::string: no allocation when an error is recorded
// and no TLS destructor to run at thread exit.
thread_local char t_last_error[1024];
}  // namespace

void fail(bp_status status, const char *format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  throw Error(status, message);
}

const char *last_error_message() { return t_last_error; }

void set_last_error_message(const char *message) {
  std::snprintf(t_last_error, sizeof t_last_error, "%s", message);
}

}  // namespace cpu_backend
