// L1 memory: alloc/free, host round trips of many sizes, zero-size buffers,
// many live buffers; and out of memory as BP_ERR_OUT_OF_MEMORY with a message.
#include <cstring>
#include <random>

#include "groups.hpp"
#include "text.hpp"
#include "values.hpp"
#include "vocab.hpp"

namespace bpcheck {

void group_memory(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  std::mt19937_64 rng(42);

  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = p.device_name(d);
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
      // The core frees every buffer it got, NULL ones of 0 bytes included.
      rec.note(dn + ": alloc of 0 bytes returns a NULL buffer");
      s = p.free(z);
      rec.expect(s == BP_OK, dn + ": alloc of 0 bytes, and free of the NULL buffer it gave",
                 dn + ": alloc of 0 bytes gave a NULL buffer that free refuses: " + p.describe(s));
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

void group_out_of_memory(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = p.device_name(d);
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
