// wrap_host (ABI 1.4) on a plugin whose buffers are host memory: a buffer
// over a std::vector the test owns is read, written, computed into and
// freed through the plugin, and release(context) must run exactly once, at
// free and not before, and never for a call that failed. The reference's and
// cpu-openblas's tests (wrap_host_test.cpp) call these on their plugin.
#pragma once

#include <cstdint>
#include <vector>

#include "plugin_harness.hpp"

namespace bp_test {

// What release saw: how often it ran, and whether free had been called.
struct ReleaseLog {
  int calls = 0;
  bool free_called = false;
  bool before_free = false;  // some call came before free
};

inline void log_release(void *context) {
  auto *log = static_cast<ReleaseLog *>(context);
  ++log->calls;
  if (!log->free_called) log->before_free = true;
}

// Frees `b`, telling the log first so that release can tell when it ran.
inline void free_logged(const bp_plugin_api &api, bp_buffer b, ReleaseLog &log) {
  log.free_called = true;
  REQUIRE(api.free(b) == BP_OK);
}

inline bp_buffer wrap(const bp_plugin_api &api, void *data, uint64_t bytes, ReleaseLog &log) {
  bp_buffer b = nullptr;
  const bp_status status = api.wrap_host(0, data, bytes, log_release, &log, &b);
  INFO(api.name << ": wrap_host: " << (status == BP_OK ? "" : api.last_error()));
  REQUIRE(status == BP_OK);
  REQUIRE(b != nullptr);
  return b;
}

// The owner's vector, read, written and computed into through the plugin.
inline void check_wrapped_vector(Session &s) {
  const bp_plugin_api &api = s.api();
  REQUIRE(api.struct_size >= BP_PLUGIN_API_SIZE_1_4);
  REQUIRE(api.wrap_host != nullptr);
  // Guard elements on both sides of the wrapped span must never change.
  std::vector<float> owner = {-7, 1, 2, 3, 4, 5, 6, 7, 8, -7};
  float *span = owner.data() + 1;
  ReleaseLog log;
  bp_buffer b = wrap(api, span, 8 * sizeof(float), log);

  void *address = nullptr;
  REQUIRE(api.host_address(b, &address) == BP_OK);
  CHECK(address == span);

  std::vector<float> seen(8, 0);
  REQUIRE(api.read(b, 0, seen.data(), 32) == BP_OK);
  CHECK(seen == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});

  const float written[2] = {40, 50};
  REQUIRE(api.write(b, 12, written, 8) == BP_OK);
  CHECK(owner == std::vector<float>{-7, 1, 2, 3, 40, 50, 6, 7, 8, -7});
  check_error(api, api.write(b, 28, written, 8), BP_ERR_INVALID_ARGUMENT);

  // The wrapped buffer as an input and as the output of one ADD.
  const bp_plugin_tensor ones = s.tensor<float>({8}, std::vector<float>(8, 1));
  const bp_plugin_tensor wrapped = dense_view(b, BP_FLOAT32, {8});
  s.exec(BP_OP_ADD, {wrapped, ones}, wrapped);
  REQUIRE(api.synchronize(0) == BP_OK);
  CHECK(owner == std::vector<float>{-7, 2, 3, 4, 41, 51, 7, 8, 9, -7});

  CHECK(log.calls == 0);
  free_logged(api, b, log);
  CHECK(log.calls == 1);
  CHECK_FALSE(log.before_free);
  CHECK(owner == std::vector<float>{-7, 2, 3, 4, 41, 51, 7, 8, 9, -7});
  // The memory is still the test's to use (AddressSanitizer would report a
  // plugin that freed it).
  owner[3] = 0;
  CHECK(log.calls == 1);
}

// bytes = 0 with data = NULL is a real, empty buffer; release may be NULL.
inline void check_wrapped_nothing(Session &s) {
  const bp_plugin_api &api = s.api();
  ReleaseLog log;
  bp_buffer b = wrap(api, nullptr, 0, log);
  void *address = &log;
  REQUIRE(api.host_address(b, &address) == BP_OK);
  CHECK(address == nullptr);
  CHECK(api.write(b, 0, nullptr, 0) == BP_OK);
  CHECK(api.read(b, 0, nullptr, 0) == BP_OK);
  float x = 1;
  check_error(api, api.write(b, 0, &x, 4), BP_ERR_INVALID_ARGUMENT);
  CHECK(log.calls == 0);
  free_logged(api, b, log);
  CHECK(log.calls == 1);
  CHECK_FALSE(log.before_free);

  std::vector<int32_t> owner = {1, 2};
  bp_buffer quiet = nullptr;
  REQUIRE(api.wrap_host(0, owner.data(), 8, nullptr, nullptr, &quiet) == BP_OK);
  REQUIRE(api.free(quiet) == BP_OK);
  CHECK(owner == std::vector<int32_t>{1, 2});
}

// A call that fails makes no buffer and never calls release.
inline void check_wrap_failures(Session &s) {
  const bp_plugin_api &api = s.api();
  std::vector<float> owner(4, 3);
  ReleaseLog log;
  bp_buffer b = nullptr;
  check_error(api, api.wrap_host(1, owner.data(), 16, log_release, &log, &b), BP_ERR_UNKNOWN_DEVICE);
  check_error(api, api.wrap_host(-1, owner.data(), 16, log_release, &log, &b), BP_ERR_UNKNOWN_DEVICE);
  CHECK(b == nullptr);
  check_error(api, api.wrap_host(0, nullptr, 16, log_release, &log, &b), BP_ERR_INVALID_ARGUMENT);
  CHECK(b == nullptr);
  check_error(api, api.wrap_host(0, owner.data(), 16, log_release, &log, nullptr), BP_ERR_INVALID_ARGUMENT);
  CHECK(log.calls == 0);
  CHECK(owner == std::vector<float>(4, 3));
}

}  // namespace bp_test
