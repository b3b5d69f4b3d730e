// L1 devices: enumeration, device_info and properties (and the struct_size
// rule for an older core's shorter struct), memory_in_use.
#include <cstddef>
#include <cstring>

#include "groups.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

bool info_of(Plugin &p, int32_t device, bp_plugin_device_info *info) {
  std::memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  auto lock = p.guard();
  return p.api().device_info(device, info) == BP_OK;
}

}  // namespace

void group_devices(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
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
    const std::string dn = p.device_name(d);
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

    // A shorter struct (an older core's, or shorter still): nothing past it
    // may change, and it is never refused.
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
        rec.fail(dn + format(": device_info with the shorter struct_size %zu failed (plugin.h: read and write only "
                             "the fields that fit, never refuse): ", cut) + p.describe(ss));
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

}  // namespace bpcheck
