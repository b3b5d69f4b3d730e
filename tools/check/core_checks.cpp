// L3 through the core: the plugin driven by the core's public C API
// (discovery, host round trips of every dtype, device mismatch errors,
// copies across backends and devices, an operator end to end).
#include <cstring>
#include <random>

#include "backplane/backplane.h"
#include "builtin_plugins.hpp"
#include "groups.hpp"
#include "paths.hpp"
#include "text.hpp"
#include "values.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

std::string toml_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void group_core(Context &ctx) {
  Recorder &rec = ctx.rec;
  const std::string path = real_path(ctx.options.plugin_path);
  std::string toml = "[plugins]\npaths = [" + toml_string(dir_of(path)) + "]\n";
  const std::string namesake = builtin_namesake(path);
  if (!namesake.empty()) {
    toml += stand_in_toml(path);
    rec.note("stands in for the built-in plugin " + namesake + " of the same file name (replace_builtin)");
  }
  rec.begin("bp_init_from_string with [plugins] paths = [" + dir_of(path) + "]");
  bp_status s = bp_init_from_string(toml.c_str(), "bp-check.toml");
  if (s != BP_OK) {
    rec.fail(std::string("the core did not start with the plugin's directory: ") + bp_status_name(s) + ": " + bp_last_error());
    return;
  }
  rec.pass("the core starts with the plugin's directory in [plugins] paths");

  // Which candidate is this file?
  rec.begin("bp_plugin_report_get");
  bool found = false;
  for (int32_t i = 0; i < bp_plugin_report_count(); ++i) {
    bp_plugin_report r;
    std::memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    if (bp_plugin_report_get(i, 1, &r) != BP_OK || real_path(r.path) != path) continue;
    found = true;
    if (!r.loaded) {
      rec.fail(std::string("the core rejected it: ") + r.reason);
      return;
    }
    rec.pass(format("the core loaded it and counts %d device(s)", int(r.device_count)));
    if (r.reason && *r.reason) rec.note(std::string("the core's note: ") + r.reason);
  }
  if (!found) {
    rec.fail("the core's discovery did not list " + path + " (is it named libbackplane-<name>.so?)");
    return;
  }

  int32_t total = 0;
  bp_devices(nullptr, 0, &total);
  std::vector<bp_device> all(size_t(total > 0 ? total : 0));
  if (total > 0) bp_devices(all.data(), total, &total);
  std::vector<bp_device> mine;
  for (bp_device dev : all) {
    bp_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (bp_device_info_get(dev, &info) == BP_OK && info.plugin_path && real_path(info.plugin_path) == path)
      mine.push_back(dev);
  }
  if (mine.empty()) {
    rec.fail("the core lists no device of this plugin");
    return;
  }
  const std::string my0 = bp_device_name(mine[0]);
  const std::string prefix = my0.substr(0, my0.find(':'));
  bp_device other = -1;
  for (const char *name : {"cpu:0", "reference:0"}) {
    bp_device dev;
    if (bp_device_get(name, &dev) == BP_OK && std::string(name).rfind(prefix + ":", 0) != 0) {
      other = dev;
      break;
    }
  }

  std::mt19937_64 rng(7);
  const int64_t shape[1] = {13};
  auto from_host = [&](bp_device dev, bp_dtype dtype, const std::vector<uint8_t> &bytes, bp_tensor *t) {
    return bp_from_host(dev, dtype, 1, shape, bytes.data(), t);
  };
  auto bytes_for = [&](bp_dtype dtype) {
    std::vector<uint8_t> v = random_bytes(rng, size_t(13 * bp_vocab_dtype_size(dtype)));
    if (is_bool(dtype))
      for (uint8_t &b : v) b &= 1;
    return v;
  };
  auto to_host = [&](bp_tensor t, size_t bytes, std::vector<uint8_t> *out) {
    out->assign(bytes, 0);
    return bp_to_host(t, out->data(), bytes);
  };

  // Host round trips of every dtype, through the core's tensors.
  for (bp_device dev : mine) {
    const std::string dn = bp_device_name(dev);
    for (int32_t dt : vocab_dtypes()) {
      const bp_dtype dtype = bp_dtype(dt);
      rec.begin(dn + ": bp_from_host/bp_to_host " + dtype_name(dt));
      std::vector<uint8_t> data = bytes_for(dtype), back;
      bp_tensor t = BP_NO_TENSOR;
      s = from_host(dev, dtype, data, &t);
      if (s == BP_OK) s = to_host(t, data.size(), &back);
      if (t) bp_tensor_release(t);
      if (s != BP_OK)
        rec.fail(dn + ": a " + dtype_name(dt) + " host round trip through the core failed: " + bp_last_error());
      else
        rec.expect(back == data, dn + ": " + dtype_name(dt) + " host round trip through the core is bit-exact",
                   dn + ": a " + dtype_name(dt) + " host round trip through the core changed the bytes");
    }
  }

  // Mismatch errors name both devices.
  auto mismatch = [&](bp_device a_dev, bp_device b_dev) {
    const std::string an = bp_device_name(a_dev), bn = bp_device_name(b_dev);
    rec.begin("add of a tensor on " + an + " and one on " + bn);
    std::vector<uint8_t> data = bytes_for(BP_FLOAT32);
    bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR, out = BP_NO_TENSOR;
    if (from_host(a_dev, BP_FLOAT32, data, &a) != BP_OK || from_host(b_dev, BP_FLOAT32, data, &b) != BP_OK) {
      rec.fail("cannot create tensors on " + an + " and " + bn + ": " + bp_last_error());
    } else {
      s = bp_binary(BP_OP_ADD, a, b, &out);
      const std::string msg = bp_last_error();
      const bool names_both = msg.find(an) != std::string::npos && msg.find(bn) != std::string::npos;
      const bool devices_ok = bp_last_error_device_count() == 2 && bp_last_error_device(0) == a_dev &&
                              bp_last_error_device(1) == b_dev;
      if (s != BP_ERR_DEVICE_MISMATCH)
        rec.fail("add(" + an + ", " + bn + ") returned " + bp_status_name(s) + " instead of BP_ERR_DEVICE_MISMATCH: " + msg);
      else
        rec.expect(names_both && devices_ok && out == BP_NO_TENSOR,
                   "add(" + an + ", " + bn + "): BP_ERR_DEVICE_MISMATCH naming both: " + msg,
                   "add(" + an + ", " + bn + ") is a device mismatch, but the error does not name both devices: " + msg);
    }
    if (a) bp_tensor_release(a);
    if (b) bp_tensor_release(b);
    if (out) bp_tensor_release(out);
  };
  if (other >= 0) {
    mismatch(mine[0], other);
    mismatch(other, mine[0]);
  } else {
    rec.note("neither cpu:0 nor reference:0 is loaded: no other backend to mismatch with");
  }
  if (mine.size() >= 2) mismatch(mine[0], mine[1]);

  // Copies through the core: across backends (staged) and between its devices.
  auto copy_check = [&](bp_device from, bp_device to) {
    const std::string fn = bp_device_name(from), tn = bp_device_name(to);
    rec.begin("bp_copy_to from " + fn + " to " + tn);
    std::vector<uint8_t> data = bytes_for(BP_FLOAT64), back;
    bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR;
    s = from_host(from, BP_FLOAT64, data, &a);
    if (s == BP_OK) s = bp_copy_to(a, to, &b);
    bp_device where = -1;
    if (s == BP_OK) s = bp_tensor_device(b, &where);
    if (s == BP_OK) s = to_host(b, data.size(), &back);
    if (s != BP_OK)
      rec.fail("bp_copy_to from " + fn + " to " + tn + " failed: " + bp_last_error());
    else
      rec.expect(back == data && where == to, "bp_copy_to from " + fn + " to " + tn + " is bit-exact",
                 "bp_copy_to from " + fn + " to " + tn + " changed the bytes or landed elsewhere");
    if (a) bp_tensor_release(a);
    if (b) bp_tensor_release(b);
  };
  if (other >= 0) {
    copy_check(mine[0], other);
    copy_check(other, mine[0]);
  }
  if (mine.size() >= 2) {
    copy_check(mine[0], mine[1]);
    copy_check(mine[1], mine[0]);
  }

  // An operator end to end, when it declares one of these.
  auto declares = [&](const char *op_and_dtype, auto &&run) {
    rec.begin(std::string(op_and_dtype) + " through the core on " + my0);
    run();
  };
  bool ran = false;
  {
    bp_tensor t = BP_NO_TENSOR;
    const int64_t s2[2] = {3, 4};
    rec.begin("bp_full float32 through the core on " + my0);
    s = bp_full(mine[0], BP_FLOAT32, 2, s2, 2.5, &t);
    if (s == BP_OK) {
      ran = true;
      declares("fill float32", [&] {
        std::vector<float> back(12, 0.f);
        bp_status r = bp_to_host(t, back.data(), back.size() * sizeof(float));
        bool ok = r == BP_OK;
        for (float f : back) ok &= f == 2.5f;
        rec.expect(ok, "bp_full through the core on " + my0 + " gives 2.5 everywhere",
                   "bp_full(2.5) through the core on " + my0 + " read back wrong values: " + bp_last_error());
      });
      bp_tensor_release(t);
    } else if (s != BP_ERR_UNSUPPORTED) {
      rec.fail("bp_full float32 through the core on " + my0 + " failed: " + bp_last_error());
    }
  }
  {
    std::vector<float> x(13), y(13);
    for (int i = 0; i < 13; ++i) x[size_t(i)] = float(i) * 0.5f - 3.f, y[size_t(i)] = float(i * i) * 0.25f;
    bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR, out = BP_NO_TENSOR;
    bp_from_host(mine[0], BP_FLOAT32, 1, shape, x.data(), &a);
    bp_from_host(mine[0], BP_FLOAT32, 1, shape, y.data(), &b);
    rec.begin("bp_add float32 through the core on " + my0);
    s = bp_binary(BP_OP_ADD, a, b, &out);
    if (s == BP_OK) {
      ran = true;
      declares("add float32", [&] {
        std::vector<float> back(13, 0.f);
        bool ok = bp_to_host(out, back.data(), back.size() * sizeof(float)) == BP_OK;
        for (int i = 0; i < 13; ++i) ok &= back[size_t(i)] == x[size_t(i)] + y[size_t(i)];
        rec.expect(ok, "bp_add through the core on " + my0 + " is right", "bp_add through the core on " + my0 + " gave wrong values");
      });
    } else if (s != BP_ERR_UNSUPPORTED) {
      rec.fail("bp_add float32 through the core on " + my0 + " failed: " + bp_last_error());
    }
    for (bp_tensor t : {a, b, out})
      if (t) bp_tensor_release(t);
  }
  if (!ran) rec.note("declares neither fill nor add for float32: no operator was run through the core");
}

}  // namespace bpcheck
