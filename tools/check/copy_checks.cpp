// L3 copies: host round trips at odd offsets, and copy() on one device and
// between devices bit-exact, touching nothing else, ordered after earlier work.
#include <cstring>
#include <random>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "vocab.hpp"
#include "values.hpp"

namespace bpcheck {

void group_copies(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  std::mt19937_64 rng(11);
  const std::vector<int32_t> devices = ctx.devices(p, true);
  auto dn = [&](int32_t d) { return p.device_name(d); };
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
    if (op_family(c.op) != BP_OP_FAMILY_CREATE || c.op == BP_OP_ARANGE) continue;
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
