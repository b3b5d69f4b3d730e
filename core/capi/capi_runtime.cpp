// bp_init, configuration entries, errors and constant names.
#include "backplane/backplane.h"
#include "backplane/testing.h"
#include "capi/guard.hpp"
#include "errors/names.hpp"
#include "runtime/runtime.hpp"

using namespace bp::core;

extern "C" {

uint32_t bp_api_version(void) { return (BP_API_VERSION_MAJOR << 16) | BP_API_VERSION_MINOR; }

bp_status bp_init(const char *config_path) {
  return guarded([&] { Runtime::start_from_file(config_path); });
}

bp_status bp_init_from_string(const char *toml_text, const char *source_name) {
  return guarded([&] { Runtime::start_from_string(toml_text, source_name); });
}

bp_status bp_testing_restart(void) {
  return guarded([&] { Runtime::restart_for_testing(); });
}

int32_t bp_config_count(void) {
  int32_t n = 0;
  guarded([&] { n = int32_t(Runtime::get().config().entries.size()); });
  return n;
}

bp_status bp_config_entry(int32_t i, const char **key, const char **value, const char **origin) {
  return guarded([&] {
    const char *&k = require(key, "bp_config_entry", "key");
    const char *&v = require(value, "bp_config_entry", "value");
    const char *&o = require(origin, "bp_config_entry", "origin");
    const auto &entries = Runtime::get().config().entries;
    if (i < 0 || size_t(i) >= entries.size())
      fail(BP_ERR_INVALID_ARGUMENT, "bp_config_entry: " + index_range("index", i, entries.size()));
    k = entries[size_t(i)].key.c_str();
    v = entries[size_t(i)].value.c_str();
    o = entries[size_t(i)].origin.c_str();
  });
}

const char *bp_last_error(void) { return thread_error().message.c_str(); }
bp_status bp_last_error_status(void) { return thread_error().status; }
const char *bp_last_error_op(void) { return thread_error().op.c_str(); }
int32_t bp_last_error_input(void) { return thread_error().input; }
int32_t bp_last_error_device_count(void) { return int32_t(thread_error().devices.size()); }

bp_device bp_last_error_device(int32_t i) {
  const auto &d = thread_error().devices;
  return i >= 0 && size_t(i) < d.size() ? d[size_t(i)] : -1;
}

const char *bp_status_name(int32_t status) { return status_name(status); }
const char *bp_dtype_name(int32_t dtype) { return dtype_name(dtype); }
const char *bp_op_name(int32_t op) { return op_name(op); }
int32_t bp_dtype_size(int32_t dtype) { return dtype_size(dtype); }

}  // extern "C"
