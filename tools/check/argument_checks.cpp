// L0 invalid arguments: NULL pointers, unknown devices, out-of-range
// offsets, unknown op and dtype numbers, malformed tensors and indices
// (index_argument_checks.cpp) are answered with errors (with a message)
// instead of crashes.
#include <cstring>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

void group_arguments(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  const bp_plugin_api &api = p.api();
  const int32_t n = p.device_count();

  // An error with a message, never BP_OK.
  auto error = [&](const std::string &what, auto &&call) {
    rec.begin(what);
    bp_status s = call();
    if (s == BP_OK) {
      rec.fail(what + " returned BP_OK; it must be an error");
      return;
    }
    const char *e = api.last_error();
    if (!e || !*e)
      rec.fail(what + " failed with " + status_name(s) + " but last_error() gives no message");
    else
      rec.pass(what + ": " + status_name(s));
  };
  // An operator the plugin does not know is BP_ERR_UNSUPPORTED (plugin.h).
  auto unsupported = [&](const std::string &what, auto &&call) {
    rec.begin(what);
    bp_status s = call();
    rec.expect(s == BP_ERR_UNSUPPORTED, what + ": BP_ERR_UNSUPPORTED",
               what + " returned " + status_name(s) + "; an unknown operator is BP_ERR_UNSUPPORTED");
  };
  // Anything but a crash.
  auto survives = [&](const std::string &what, auto &&call) {
    rec.begin(what);
    call();
    rec.pass(what + ": no crash");
  };

  int32_t count = 0;
  const char *why = nullptr;
  error("device_count(NULL, &why)", [&] { return api.device_count(nullptr, &why); });
  survives("device_count(&count, NULL)", [&] { return api.device_count(&count, nullptr); });

  bp_plugin_device_info info;
  auto fresh_info = [&] {
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return &info;
  };
  error("device_info(-1, &info)", [&] { return api.device_info(-1, fresh_info()); });
  error(format("device_info(%d, &info) past the last device", int(n)), [&] { return api.device_info(n, fresh_info()); });
  if (n > 0) error("device_info(0, NULL)", [&] { return api.device_info(0, nullptr); });

  if (api.device_properties) {
    bp_property props[4];
    error("device_properties(-1, ...)", [&] { return api.device_properties(-1, props, 4, &count); });
    if (n > 0) {
      error("device_properties(0, props, 4, NULL)", [&] { return api.device_properties(0, props, 4, nullptr); });
      error("device_properties(0, NULL, 4, &count)", [&] { return api.device_properties(0, nullptr, 4, &count); });
      error("device_properties(0, props, -1, &count)", [&] { return api.device_properties(0, props, -1, &count); });
    }
  }

  bp_buffer b = nullptr;
  error("alloc(-1, 16, &buffer)", [&] { return api.alloc(-1, 16, &b); });
  error(format("alloc(%d, 16, &buffer) past the last device", int(n)), [&] { return api.alloc(n, 16, &b); });
  if (n > 0) error("alloc(0, 16, NULL)", [&] { return api.alloc(0, 16, nullptr); });
  survives("free(NULL)", [&] { return api.free(nullptr); });

  unsigned char host[64] = {0};
  error("write(NULL buffer, ...)", [&] { return api.write(nullptr, 0, host, 8); });
  error("read(NULL buffer, ...)", [&] { return api.read(nullptr, 0, host, 8); });
  error(format("synchronize(%d) past the last device", int(n)), [&] { return api.synchronize(n); });
  error("synchronize(-1)", [&] { return api.synchronize(-1); });

  int32_t answer = 0;
  error("supports(-1, add, float32, float32, &answer)",
        [&] { return api.supports(-1, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &answer); });

  if (n == 0) {
    error("execute(0, ...) with no devices", [&] {
      bp_op_attrs attrs;
      std::memset(&attrs, 0, sizeof attrs);
      attrs.struct_size = sizeof attrs;
      return api.execute(0, BP_OP_FILL, &attrs, nullptr, 0, nullptr);
    });
    return;
  }

  error("supports(0, add, float32, float32, NULL)", [&] { return api.supports(0, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, nullptr); });
  // Numbers the plugin does not know are questions with the answer no (or an error).
  struct Q {
    int32_t op, dtype, out;
    const char *what;
  };
  const Q questions[] = {
      {0, BP_FLOAT32, BP_FLOAT32, "op 0"},
      {-1, BP_FLOAT32, BP_FLOAT32, "op -1"},
      {BP_OP_LIMIT, BP_FLOAT32, BP_FLOAT32, "op BP_OP_LIMIT"},
      {9999, BP_FLOAT32, BP_FLOAT32, "op 9999"},
      {BP_OP_ADD, 0, 0, "dtype 0"},
      {BP_OP_ADD, 99, 99, "dtype 99"},
      {BP_OP_ADD, BP_FLOAT32, 99, "out_dtype 99"},
      {BP_OP_FILL, -3, -3, "dtype -3"},
  };
  for (const Q &q : questions) {
    std::string what = std::string("supports(0, ") + q.what + ")";
    rec.begin(what);
    answer = 7;
    bp_status s = api.supports(0, q.op, q.dtype, q.out, &answer);
    // plugin.h: a number the plugin does not know (a newer core's) is no
    // error for supports(), just the answer no.
    if (s != BP_OK)
      rec.fail(what + " failed with " + status_name(s) + "; it must succeed and say no (0)");
    else
      rec.expect(answer == 0, what + ": no", what + format(" answered %d; it must say no (0)", int(answer)));
  }

  // Buffer bounds.
  b = nullptr;
  rec.begin("alloc(0, 64, &buffer)");
  bp_status s = api.alloc(0, 64, &b);
  if (s != BP_OK || !b) {
    rec.fail("alloc(0, 64) failed: " + p.describe(s));
    return;
  }
  bp_buffer b2 = nullptr;
  if (api.alloc(0, 64, &b2) != BP_OK) b2 = nullptr;
  struct Range {
    uint64_t offset, bytes;
  };
  const Range outside[] = {{60, 8}, {65, 0}, {0, 65}, {uint64_t(1) << 63, 8}, {UINT64_MAX, 2}, {8, UINT64_MAX - 4}};
  for (const Range &r : outside) {
    error(format("write(buffer of 64 bytes, offset %llu, %llu bytes)", (unsigned long long)r.offset,
                 (unsigned long long)r.bytes),
          [&] { return api.write(b, r.offset, host, r.bytes); });
    error(format("read(buffer of 64 bytes, offset %llu, %llu bytes)", (unsigned long long)r.offset,
                 (unsigned long long)r.bytes),
          [&] { return api.read(b, r.offset, host, r.bytes); });
  }
  error("write(buffer, 0, NULL, 8)", [&] { return api.write(b, 0, nullptr, 8); });
  error("read(buffer, 0, NULL, 8)", [&] { return api.read(b, 0, nullptr, 8); });
  if (api.copy && b2) {
    error("copy(NULL, 0, buffer, 0, 8)", [&] { return api.copy(nullptr, 0, b2, 0, 8); });
    error("copy(buffer, 0, NULL, 0, 8)", [&] { return api.copy(b, 0, nullptr, 0, 8); });
    error("copy(src, 60, dst, 0, 8) past the source", [&] { return api.copy(b, 60, b2, 0, 8); });
    error("copy(src, 0, dst, 60, 8) past the destination", [&] { return api.copy(b, 0, b2, 60, 8); });
    error("copy(src, 2^63, dst, 0, 8)", [&] { return api.copy(b, uint64_t(1) << 63, b2, 0, 8); });
  }
  if (api.host_address) {
    void *address = nullptr;
    error("host_address(NULL, &address)", [&] { return api.host_address(nullptr, &address); });
    error("host_address(buffer, NULL)", [&] { return api.host_address(b, nullptr); });
  }
  api.free(b);
  if (b2) api.free(b2);

  // execute: a well-formed call of a declared combination, broken one field at
  // a time. None of these may run the operator.
  std::vector<Combo> declared = declared_combos(p, 0);
  if (declared.empty()) {
    rec.note("declares no operators: execute's argument checks use fill float32");
    declared.push_back({BP_OP_FILL, BP_FLOAT32, BP_FLOAT32});
  }
  Combo pick = declared.front();
  for (const Combo &c : declared)
    if (op_family(c.op) == BP_OP_FAMILY_CREATE) {
      pick = c;
      break;
    }
  const std::string name = combo_name(pick.op, pick.dtype, pick.out_dtype);
  std::vector<Case> cases = make_small_cases(pick.op, pick.dtype, pick.out_dtype, 1, {{4, 4}});
  if (cases.empty()) return;
  const Case &c = cases.front();
  BoundCase bound(p, 0, c);
  if (!bound.ok()) {
    rec.fail("cannot set up the execute checks: " + bound.failure());
    return;
  }
  std::vector<bp_plugin_tensor> inputs;
  for (const ViewDesc &v : c.inputs) inputs.push_back(bound.tensor(v));
  const bp_plugin_tensor output = bound.tensor(c.output);
  const int32_t n_in = int32_t(inputs.size());
  auto exec = [&](int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in, int32_t k,
                  const bp_plugin_tensor *out) { return api.execute(device, op, attrs, in, k, out); };
  const bp_plugin_tensor *in0 = inputs.empty() ? nullptr : inputs.data();
  const std::string call = "execute(" + name + ")";
  error(call + " on device -1", [&] { return exec(-1, pick.op, &c.attrs, in0, n_in, &output); });
  error(call + format(" on device %d past the last", int(n)), [&] { return exec(n, pick.op, &c.attrs, in0, n_in, &output); });
  unsupported("execute of op 9999", [&] { return exec(0, 9999, &c.attrs, in0, n_in, &output); });
  unsupported("execute of op 0", [&] { return exec(0, 0, &c.attrs, in0, n_in, &output); });
  error(call + " with attrs NULL", [&] { return exec(0, pick.op, nullptr, in0, n_in, &output); });
  error(call + " with output NULL", [&] { return exec(0, pick.op, &c.attrs, in0, n_in, nullptr); });
  auto broken = [&](const std::string &what, auto &&mutate) {
    bp_plugin_tensor out = output;
    mutate(out);
    error(call + " with an output " + what, [&] { return exec(0, pick.op, &c.attrs, in0, n_in, &out); });
  };
  broken("whose buffer is NULL", [](bp_plugin_tensor &t) { t.buffer = nullptr; });
  broken("at byte offset 2^40, past its buffer", [](bp_plugin_tensor &t) { t.offset = uint64_t(1) << 40; });
  broken("larger than its buffer ([4, 2^20])", [](bp_plugin_tensor &t) { t.shape[1] = int64_t(1) << 20; });
  broken("of dtype 99", [](bp_plugin_tensor &t) { t.dtype = 99; });
  broken("of rank 9", [](bp_plugin_tensor &t) { t.rank = BP_MAX_RANK + 1; });
  broken("of rank -1", [](bp_plugin_tensor &t) { t.rank = -1; });
  broken("of extent -4", [](bp_plugin_tensor &t) { t.shape[0] = -4; });
  broken("with stride -1", [](bp_plugin_tensor &t) { t.strides[1] = -1; });
  {
    std::vector<bp_plugin_tensor> more = inputs;
    more.push_back(output);
    error(call + format(" with %d inputs instead of %d", n_in + 1, n_in),
          [&] { return exec(0, pick.op, &c.attrs, more.data(), n_in + 1, &output); });
  }
  if (n_in > 0) error(call + " with inputs NULL", [&] { return exec(0, pick.op, &c.attrs, nullptr, n_in, &output); });
  check_index_arguments(rec, p);

  // A combination it does not declare is BP_ERR_UNSUPPORTED.
  const Combo candidates[] = {{BP_OP_ADD, BP_FLOAT32, BP_FLOAT32}, {BP_OP_FILL, BP_FLOAT32, BP_FLOAT32},
                              {BP_OP_DIV, BP_INT32, BP_INT32},     {BP_OP_ADD, BP_BOOL, BP_BOOL},
                              {BP_OP_EXP, BP_INT64, BP_INT64},     {BP_OP_COPY, BP_FLOAT32, BP_INT32}};
  for (const Combo &u : candidates) {
    if (p.declares(0, u.op, u.dtype, u.out_dtype)) continue;
    const std::string uname = combo_name(u.op, u.dtype, u.out_dtype);
    std::vector<Case> ucases = make_small_cases(u.op, u.dtype, u.out_dtype, 2, {{3}});
    BoundCase ub(p, 0, ucases.front());
    if (!ub.ok()) break;
    rec.begin("execute of " + uname + ", which it does not declare");
    bp_status us = ub.execute();
    rec.expect(us == BP_ERR_UNSUPPORTED, "execute of undeclared " + uname + ": BP_ERR_UNSUPPORTED",
               "says no to " + uname + " but execute returned " + std::string(status_name(us)) +
                   " instead of BP_ERR_UNSUPPORTED");
    break;
  }
}


}  // namespace bpcheck
