// L3 semantics: supports() consistent with execute(), the plugin driven
// through the core's public C API (device mismatch errors, copies, an
// operator end to end), and bit-exact copies between its devices.
#include <limits.h>
#include <stdlib.h>

#include <cstring>
#include <random>

#include "backplane/backplane.h"
#include "cases.hpp"
#include "groups.hpp"
#include "names.hpp"

namespace bpcheck {

namespace {

std::string real_path(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  return path;
}

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string toml_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

}  // namespace

void group_capabilities(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = std::string(p.api().device_prefix) + ":" + std::to_string(d);
    // The same question gets the same answer, and unknown numbers get "no".
    rec.begin(dn + ": supports() asked everything twice");
    int inconsistent = 0, bad_answers = 0;
    std::string first_problem;
    const int32_t ops[] = {-1, 0, 15, 19, 28, 39, 46, 59, 61, 69, 71, 79, BP_OP_LIMIT, BP_OP_LIMIT + 1, 1000};
    std::vector<int32_t> all_ops_list;
    for (const OpInfo &info : all_ops()) all_ops_list.push_back(info.op);
    for (int32_t op : ops) all_ops_list.push_back(op);
    for (int32_t op : all_ops_list)
      for (int32_t dt = -1; dt <= BP_DTYPE_COUNT; ++dt)
        for (int32_t ot = -1; ot <= BP_DTYPE_COUNT; ++ot) {
          int32_t a1 = -7, a2 = -7;
          bp_status s1 = p.supports(d, op, dt, ot, &a1);
          bp_status s2 = p.supports(d, op, dt, ot, &a2);
          const bool known = find_op(op) && dtype_size(dt) && dtype_size(ot);
          if (s1 != s2 || (s1 == BP_OK && a1 != a2)) {
            if (!inconsistent++)
              first_problem = format("supports(%s, %s, %s) answered %d then %d", op_name(op), dtype_name(dt),
                                     dtype_name(ot), s1 == BP_OK ? int(a1) : -int(s1), s2 == BP_OK ? int(a2) : -int(s2));
          } else if (s1 == BP_OK && (a1 < 0 || a1 > 1 || (!known && a1 != 0))) {
            if (!bad_answers++)
              first_problem = format("supports(%s, %s, %s) answered %d", op_name(op), dtype_name(dt), dtype_name(ot), int(a1));
          }
        }
    rec.expect(inconsistent == 0 && bad_answers == 0, dn + ": supports() answers are stable, 0 or 1, and no for unknown numbers",
               dn + format(": supports() is inconsistent (%d questions answered differently twice, %d answers not 0/1 or "
                           "yes to an unknown op/dtype); first: ",
                           inconsistent, bad_answers) +
                   first_problem);

    // Whatever it says no to, execute refuses cleanly.
    int refused = 0, wrong = 0;
    for (const OpInfo &info : all_ops())
      for (int32_t dt : all_dtypes())
        for (int32_t ot : all_dtypes()) {
          if (info.family == Family::create && ot != dt) continue;
          if (p.declares(d, info.op, dt, ot)) continue;
          const std::string name = combo_name(info.op, dt, ot);
          std::vector<int64_t> shape = info.family == Family::matmul ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{3};
          std::vector<Case> cases = make_small_cases(info.op, dt, ot, 3, {shape});
          if (cases.empty()) continue;
          const Case &c = cases.front();
          rec.begin(dn + ": execute of " + name + ", which it does not declare");
          BoundCase bound(p, d, c);
          if (!bound.ok()) {
            rec.fail(dn + ": cannot set up " + name + ": " + bound.failure());
            continue;
          }
          bp_status s = bound.execute();
          std::vector<uint8_t> out;
          std::string read_error = bound.read_storage(c.output.storage, &out);
          const bool untouched = read_error.empty() && out == c.storages[size_t(c.output.storage)];
          if (s == BP_ERR_UNSUPPORTED && untouched) {
            ++refused;
            continue;
          }
          ++wrong;
          if (s != BP_ERR_UNSUPPORTED)
            rec.fail(dn + ": says no to " + name + " but execute " +
                     (s == BP_OK ? std::string("ran it (BP_OK)") : std::string("returned ") + p.describe(s)) +
                     " instead of BP_ERR_UNSUPPORTED");
          else
            rec.fail(dn + ": says no to " + name + " and refuses it, but wrote into the output anyway");
        }
    if (wrong == 0) rec.pass(dn + format(": execute refuses each of the %d undeclared combinations with BP_ERR_UNSUPPORTED", refused));
  }
}

void group_core(Context &ctx) {
  Recorder &rec = ctx.rec;
  const std::string path = real_path(ctx.options.plugin_path);
  const std::string toml = "[plugins]\npaths = [" + toml_string(dir_of(path)) + "]\n";
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
    std::vector<uint8_t> v = random_bytes(rng, size_t(13 * dtype_size(dtype)));
    if (dtype == BP_BOOL)
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
    for (int32_t dt : all_dtypes()) {
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

void group_copies(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  std::mt19937_64 rng(11);
  const std::vector<int32_t> devices = ctx.devices(p, true);
  auto dn = [&](int32_t d) { return std::string(p.api().device_prefix) + ":" + std::to_string(d); };
  const uint64_t sizes[] = {1, 3, 4096 + 13, (uint64_t(1) << 20) + 3};

  // Host round trips of every byte value, at odd offsets.
  for (int32_t d : devices) {
    for (uint64_t size : sizes) {
      const std::string what = dn(d) + format(": %llu bytes at offset 5", (unsigned long long)size);
      rec.begin(what + " to the device and back");
      bp_buffer b = nullptr;
      std::vector<uint8_t> data = random_bytes(rng, size_t(size)), back(size_t(size), 0);
      for (size_t i = 0; i < data.size() && i < 256; ++i) data[i] = uint8_t(i);
      bp_status s = p.alloc(d, size + 9, &b);
      if (s == BP_OK) s = p.write(b, 5, data.data(), size);
      if (s == BP_OK) s = p.read(b, 5, back.data(), size);
      if (s != BP_OK)
        rec.fail(what + ": failed: " + p.describe(s));
      else
        rec.expect(back == data, what + ": host round trip is bit-exact", what + ": the host round trip changed the bytes");
      if (b) p.free(b);
    }
  }

  if (!p.has_copy()) {
    rec.note("no copy entry (optional): the core stages copies through host memory");
    return;
  }
  // copy(): same device and across devices, bit-exact, touching nothing else.
  auto copy_check = [&](int32_t from, int32_t to, uint64_t size) {
    const std::string what = "copy of " + format("%llu bytes from ", (unsigned long long)size) + dn(from) + " to " + dn(to);
    rec.begin(what);
    bp_buffer src = nullptr, dst = nullptr;
    std::vector<uint8_t> data = random_bytes(rng, size_t(size) + 16), guard(size_t(size) + 32, 0xA5), back;
    bp_status s = p.alloc(from, data.size(), &src);
    if (s == BP_OK) s = p.alloc(to, guard.size(), &dst);
    if (s == BP_OK) s = p.write(src, 0, data.data(), data.size());
    if (s == BP_OK) s = p.write(dst, 0, guard.data(), guard.size());
    if (s == BP_OK) s = p.copy(src, 7, dst, 16, size);
    back.assign(guard.size(), 0);
    if (s == BP_OK) s = p.read(dst, 0, back.data(), back.size());
    if (s != BP_OK) {
      rec.fail(what + " failed: " + p.describe(s));
    } else {
      std::vector<uint8_t> expected = guard;
      std::memcpy(expected.data() + 16, data.data() + 7, size_t(size));
      rec.expect(back == expected, what + " is bit-exact", what + " changed the bytes or wrote outside its range");
    }
    if (src) p.free(src);
    if (dst) p.free(dst);
  };
  for (int32_t d : devices)
    for (uint64_t size : {uint64_t(0), uint64_t(1), uint64_t(1000), (uint64_t(1) << 20) + 7}) copy_check(d, d, size);
  if (devices.size() < 2) {
    rec.note("one device: no copies between devices to check");
    return;
  }
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = 0; j < devices.size(); ++j)
      if (i != j)
        for (uint64_t size : {uint64_t(1), uint64_t(4096 + 5), (uint64_t(1) << 20) + 7}) copy_check(devices[i], devices[j], size);

  // A copy is ordered after earlier work on its source's device.
  std::vector<Combo> combos = declared_combos(p, devices[0]);
  for (const Combo &c : combos) {
    if (find_op(c.op)->family != Family::create || c.op == BP_OP_ARANGE) continue;
    std::vector<Case> cases = make_small_cases(c.op, c.dtype, c.out_dtype, 5, {{256, 1024}});
    const Case &k = cases.front();
    const std::string what = combo_name(c.op, c.dtype, c.out_dtype) + " on " + dn(devices[0]) + ", then a copy to " + dn(devices[1]);
    rec.begin(what);
    BoundCase a(p, devices[0], k), b(p, devices[1], k);
    std::vector<uint8_t> direct, copied;
    bp_status s = a.ok() && b.ok() ? a.execute() : BP_ERR_INTERNAL;
    const uint64_t bytes = k.storages[size_t(k.output.storage)].size();
    if (s == BP_OK) s = p.copy(a.buffer(k.output.storage), 0, b.buffer(k.output.storage), 0, bytes);
    std::string e = s == BP_OK ? b.read_storage(k.output.storage, &copied) : p.describe(s);
    if (e.empty()) e = a.read_storage(k.output.storage, &direct);
    if (!e.empty())
      rec.fail(what + " failed: " + e);
    else
      rec.expect(direct == copied, what + ": the copy sees the finished result",
                 what + ": the copy did not wait for the work on its source");
    break;
  }
}

}  // namespace bpcheck
