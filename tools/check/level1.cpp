// L1 devices and memory: enumeration, device_info and properties (and the
// struct_size rule), alloc/free, host round trips of many sizes, zero-size
// buffers, and out-of-memory as an error.
#include <cstddef>
#include <cstring>
#include <random>

#include "groups.hpp"
#include "names.hpp"

namespace bpcheck {

namespace {

std::string dev_name(Plugin &p, int32_t d) { return std::string(p.api().device_prefix) + ":" + std::to_string(d); }

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

bool info_of(Plugin &p, int32_t device, bp_plugin_device_info *info) {
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  auto lock = p.guard();
  return p.api().device_info(device, info) == BP_OK;
}

}  // namespace

void group_devices(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  const bp_plugin_api &api = p.api();

  rec.begin("device_count twice");
  int32_t n1 = -1, n2 = -2;
  const char *marker = "not set";
  const char *why = marker;
  bp_status s1 = api.device_count(&n1, &why);
  const char *why2 = nullptr;
  bp_status s2 = api.device_count(&n2, &why2);
  rec.expect(s1 == BP_OK && s2 == BP_OK && n1 == n2, format("device_count is stable: %d", int(n1)),
             format("device_count answered %d then %d", int(n1), int(n2)));
  if (n1 > 0)
    rec.expect(why == nullptr, "device_count sets *why_none to NULL when there are devices",
               "device_count left *why_none non-NULL although it reports devices (plugin.h: else it is set to NULL)");

  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = dev_name(p, d);
    rec.begin("device_info(" + dn + ")");
    bp_plugin_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    bp_status s = api.device_info(d, &info);
    if (s != BP_OK) {
      rec.fail("device_info(" + dn + ") failed: " + p.describe(s));
      continue;
    }
    rec.expect(info.kind == BP_DEVICE_CPU || info.kind == BP_DEVICE_GPU || info.kind == BP_DEVICE_ACCELERATOR,
               dn + ": kind " + std::to_string(info.kind), dn + format(": device kind %d is not a bp_device_kind", info.kind));
    const void *nul = std::memchr(info.model, 0, sizeof info.model);
    rec.expect(nul != nullptr && info.model[0] != 0, dn + ": model '" + std::string(nul ? info.model : "") + "'",
               dn + ": the model name is empty or not NUL-terminated within its 128 bytes");
    if (info.memory_total && info.memory_free)
      rec.expect(info.memory_free <= info.memory_total, dn + ": memory_free <= memory_total",
                 dn + format(": memory_free %llu exceeds memory_total %llu", (unsigned long long)info.memory_free,
                             (unsigned long long)info.memory_total));
    rec.info("model" + std::to_string(d), nul ? info.model : "");

    // An older core passes a shorter struct: nothing past it may change.
    const size_t cuts[] = {offsetof(bp_plugin_device_info, model), offsetof(bp_plugin_device_info, memory_total)};
    for (size_t cut : cuts) {
      rec.begin(dn + format(": device_info with struct_size %zu", cut));
      unsigned char raw[sizeof(bp_plugin_device_info) + 16];
      std::memset(raw, 0xA5, sizeof raw);
      bp_plugin_device_info *short_info = reinterpret_cast<bp_plugin_device_info *>(raw);
      short_info->struct_size = uint32_t(cut);
      bp_status ss = api.device_info(d, short_info);
      bool intact = true;
      for (size_t i = cut; i < sizeof raw; ++i) intact &= raw[i] == 0xA5;
      if (ss != BP_OK)
        rec.fail(dn + format(": device_info with the struct_size %zu of an older core failed: ", cut) + p.describe(ss));
      else
        rec.expect(intact, dn + format(": device_info writes nothing past struct_size %zu", cut),
                   dn + format(": device_info wrote past the struct_size %zu the caller gave", cut));
    }

    if (api.device_properties) {
      rec.begin(dn + ": device_properties");
      int32_t count = -1;
      bp_status ps = api.device_properties(d, nullptr, 0, &count);
      rec.expect(ps == BP_OK && count == 0, dn + ": device_properties with capacity 0 writes none",
                 dn + format(": device_properties(props NULL, capacity 0) gave %s and count %d", status_name(ps), int(count)));
      for (int32_t capacity : {1, 16}) {
        bp_property props[17];
        std::memset(props, 0xA5, sizeof props);
        count = -1;
        ps = api.device_properties(d, props, capacity, &count);
        if (ps != BP_OK) {
          rec.fail(dn + format(": device_properties(capacity %d) failed: ", int(capacity)) + p.describe(ps));
          continue;
        }
        bool ok = count >= 0 && count <= capacity;
        std::string bad;
        for (int32_t i = 0; ok && i < count; ++i) {
          const bp_property &pr = props[i];
          if (!std::memchr(pr.key, 0, sizeof pr.key) || !std::memchr(pr.value, 0, sizeof pr.value) || !pr.key[0]) {
            ok = false;
            bad = format(" (entry %d has an empty or unterminated key or value)", int(i));
          }
        }
        bool untouched = true;
        if (count >= 0 && count <= capacity) {
          const unsigned char *tail = reinterpret_cast<const unsigned char *>(&props[count]);
          const size_t left = sizeof props - sizeof(bp_property) * size_t(count);
          for (size_t i = 0; i < left; ++i) untouched &= tail[i] == 0xA5;
        }
        rec.expect(ok && untouched, dn + format(": device_properties(capacity %d) wrote %d", int(capacity), int(count)),
                   dn + format(": device_properties(capacity %d) reported count %d", int(capacity), int(count)) + bad +
                       (untouched ? "" : ", and wrote past the entries it reported"));
        if (capacity == 16)
          for (int32_t i = 0; i < count && i < 16; ++i) rec.info("property" + std::to_string(d), std::string(props[i].key) + "=" + props[i].value);
      }
    }

    // memory_in_use follows live buffers.
    rec.begin(dn + ": memory_in_use");
    bp_plugin_device_info before, during, after;
    bp_buffer b = nullptr;
    const uint64_t mib = uint64_t(1) << 20;
    if (info_of(p, d, &before) && p.alloc(d, mib, &b) == BP_OK && info_of(p, d, &during)) {
      rec.expect(during.memory_in_use >= before.memory_in_use + mib,
                 dn + ": memory_in_use grows with a live buffer",
                 dn + format(": memory_in_use went from %llu to %llu bytes for a live 1 MiB buffer",
                             (unsigned long long)before.memory_in_use, (unsigned long long)during.memory_in_use));
      p.free(b);
      p.synchronize(d);
      if (info_of(p, d, &after))
        rec.expect(after.memory_in_use <= before.memory_in_use, dn + ": memory_in_use drops after free",
                   dn + format(": memory_in_use is %llu bytes after freeing the buffer, %llu before it",
                               (unsigned long long)after.memory_in_use, (unsigned long long)before.memory_in_use));
    } else {
      rec.fail(dn + ": device_info or alloc of 1 MiB failed: " + p.last_error());
    }
  }
}

void group_memory(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  std::mt19937_64 rng(42);

  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = dev_name(p, d);
    const uint64_t sizes[] = {1, 7, 64, 4099, (uint64_t(1) << 20) + 5, uint64_t(16) << 20};
    for (uint64_t size : sizes) {
      const std::string what = dn + format(": %llu bytes", (unsigned long long)size);
      rec.begin(what + ": alloc, write, read");
      bp_buffer b = nullptr;
      bp_status s = p.alloc(d, size, &b);
      if (s != BP_OK || !b) {
        rec.fail(what + ": alloc failed: " + (s == BP_OK ? "it returned a NULL buffer" : p.describe(s)));
        continue;
      }
      std::vector<uint8_t> data = random_bytes(rng, size_t(size)), back(size_t(size), 0);
      s = p.write(b, 0, data.data(), size);
      if (s == BP_OK) s = p.read(b, 0, back.data(), size);
      if (s != BP_OK) {
        rec.fail(what + ": write or read failed: " + p.describe(s));
        p.free(b);
        continue;
      }
      rec.expect(back == data, what + ": host round trip is exact", what + ": read back different bytes than written");
      if (size >= 8) {
        // Part of it, at an offset.
        const uint64_t off = size / 2 - 1, len = 3;
        const uint8_t patch[3] = {0xDE, 0xAD, 0x5E};
        std::memcpy(data.data() + off, patch, len);
        uint8_t part[5] = {0};
        s = p.write(b, off, patch, len);
        if (s == BP_OK) s = p.read(b, off - 1, part, 5);
        if (s == BP_OK) s = p.read(b, 0, back.data(), size);
        if (s != BP_OK)
          rec.fail(what + ": write or read at an offset failed: " + p.describe(s));
        else
          rec.expect(back == data && std::memcmp(part, data.data() + off - 1, 5) == 0,
                     what + ": writes and reads at an offset touch only their bytes",
                     what + format(": a 3-byte write or 5-byte read at offset %llu got the wrong bytes", (unsigned long long)off));
      }
      if (p.has_host_address()) {
        void *address = nullptr;
        p.synchronize(d);
        s = p.api().host_address(b, &address);
        if (s != BP_OK || !address)
          rec.fail(what + ": host_address failed: " + p.describe(s));
        else
          rec.expect(std::memcmp(address, data.data(), size_t(size)) == 0, what + ": host_address shows the data",
                     what + ": the memory at host_address differs from the data written");
      }
      s = p.free(b);
      rec.expect(s == BP_OK, what + ": free", what + ": free failed: " + p.describe(s));
    }

    rec.begin(dn + ": zero-size buffer");
    bp_buffer z = nullptr;
    bp_status s = p.alloc(d, 0, &z);
    if (s != BP_OK) {
      rec.fail(dn + ": alloc of 0 bytes failed: " + p.describe(s));
    } else if (!z) {
      rec.note(dn + ": alloc of 0 bytes returns a NULL buffer");
      rec.pass(dn + ": alloc of 0 bytes");
    } else {
      uint8_t one = 0;
      bp_status w = p.write(z, 0, &one, 0), r = p.read(z, 0, &one, 0);
      rec.expect(w == BP_OK && r == BP_OK, dn + ": 0-byte write and read of a 0-byte buffer",
                 dn + ": a 0-byte write or read of a 0-byte buffer failed: " + p.last_error());
      rec.begin(dn + ": 1-byte read of a 0-byte buffer");
      r = p.read(z, 0, &one, 1);
      rec.expect(r != BP_OK, dn + ": reading 1 byte of a 0-byte buffer is an error",
                 dn + ": reading 1 byte of a 0-byte buffer returned BP_OK");
      s = p.free(z);
      rec.expect(s == BP_OK, dn + ": free of a 0-byte buffer", dn + ": free of a 0-byte buffer failed: " + p.describe(s));
    }

    rec.begin(dn + ": 16 buffers at once");
    std::vector<bp_buffer> many(16, nullptr);
    bool ok = true;
    for (size_t i = 0; i < many.size() && ok; ++i) {
      ok = p.alloc(d, 4096, &many[i]) == BP_OK;
      std::vector<uint8_t> fill(4096, uint8_t(i * 13 + 1));
      ok = ok && p.write(many[i], 0, fill.data(), 4096) == BP_OK;
    }
    for (size_t i = 0; i < many.size() && ok; ++i) {
      std::vector<uint8_t> back(4096, 0), fill(4096, uint8_t(i * 13 + 1));
      ok = p.read(many[i], 0, back.data(), 4096) == BP_OK && back == fill;
    }
    for (bp_buffer b : many)
      if (b) p.free(b);
    rec.expect(ok, dn + ": 16 live buffers keep their own contents",
               dn + ": 16 live buffers of 4 KiB did not keep their own contents: " + p.last_error());

    rec.begin(dn + ": 2000 alloc/free cycles");
    ok = true;
    for (int i = 0; i < 2000 && ok; ++i) {
      bp_buffer b = nullptr;
      ok = p.alloc(d, 256 + uint64_t(i % 7) * 64, &b) == BP_OK && p.free(b) == BP_OK;
    }
    rec.expect(ok, dn + ": 2000 alloc/free cycles", dn + ": an alloc/free cycle failed: " + p.last_error());
  }
}

void group_out_of_memory(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = dev_name(p, d);
    for (uint64_t bytes : {uint64_t(1) << 62, UINT64_MAX}) {
      const std::string what = dn + format(": alloc of %llu bytes", (unsigned long long)bytes);
      rec.begin(what);
      bp_buffer b = nullptr;
      bp_status s = p.alloc(d, bytes, &b);
      if (s == BP_OK) {
        rec.fail(what + " succeeded; it must be BP_ERR_OUT_OF_MEMORY");
        p.free(b);
        continue;
      }
      std::string msg = p.last_error();
      if (s != BP_ERR_OUT_OF_MEMORY) {
        rec.fail(what + " failed with " + status_name(s) + " instead of BP_ERR_OUT_OF_MEMORY: " + msg);
        continue;
      }
      if (msg.empty()) {
        rec.fail(what + ": BP_ERR_OUT_OF_MEMORY without a message");
        continue;
      }
      rec.pass(what + ": BP_ERR_OUT_OF_MEMORY: " + msg);
      if (msg.find(dn) == std::string::npos)
        rec.note(what + ": the message does not name the device " + dn + " (plugin.h asks for device and bytes)");
    }
    rec.begin(dn + ": alloc after out-of-memory");
    bp_buffer b = nullptr;
    uint8_t data[4096], back[4096];
    for (size_t i = 0; i < sizeof data; ++i) data[i] = uint8_t(i * 7);
    bool ok = p.alloc(d, sizeof data, &b) == BP_OK && p.write(b, 0, data, sizeof data) == BP_OK &&
              p.read(b, 0, back, sizeof back) == BP_OK && std::memcmp(data, back, sizeof data) == 0;
    if (b) p.free(b);
    rec.expect(ok, dn + ": memory still works after an out-of-memory error",
               dn + ": an alloc, write or read of 4 KiB failed after an out-of-memory error: " + p.last_error());
  }
}

}  // namespace bpcheck
