// libFuzzer target: any bytes as a safetensors file for
// bp_safetensors_open_memory. Either the file is refused with
// BP_ERR_FORMAT and a bounded message, or it opened and then every tensor
// loads onto cpu:0 and reference:0 with the same bytes, the tensors
// together hold every byte after the header (the format packs them), and
// writing what was loaded back (bp_safetensors_write) gives a file that
// opens to the same names, dtypes, shapes, bytes and metadata. No tensor
// outlives the input.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "fuzz_support.hpp"

namespace {

bp_device g_devices[2];

struct Tensor {
  std::string name;
  int32_t dtype = 0, rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
  bp_tensor handle = BP_NO_TENSOR;
};

struct Opened {
  std::vector<Tensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};

void check(bp_status s, const char *what) {
  if (s != BP_OK) bp_fuzz::fail("%s: %s: %s", what, bp_status_name(s), bp_last_error());
}

std::string bytes_of(bp_tensor t, int32_t dtype) {
  int64_t n = 0;
  check(bp_tensor_numel(t, &n), "bp_tensor_numel");
  std::string out(size_t(n) * size_t(bp_dtype_size(dtype)), '\0');
  check(bp_to_host(t, out.data(), out.size()), "bp_to_host");
  return out;
}

// The entries and metadata of an open file, each tensor loaded onto device.
Opened read_all(bp_safetensors f, bp_device device) {
  Opened o;
  int32_t n = 0, m = 0;
  check(bp_safetensors_count(f, &n), "bp_safetensors_count");
  check(bp_safetensors_metadata_count(f, &m), "bp_safetensors_metadata_count");
  for (int32_t i = 0; i < m; ++i) {
    const char *key = nullptr, *value = nullptr;
    check(bp_safetensors_metadata(f, i, &key, &value), "bp_safetensors_metadata");
    o.metadata.emplace_back(key, value);
  }
  std::vector<bp_tensor> handles(static_cast<size_t>(n));
  check(bp_safetensors_load_all(f, device, handles.data(), n), "bp_safetensors_load_all");
  for (int32_t i = 0; i < n; ++i) {
    Tensor t;
    const char *name = nullptr;
    check(bp_safetensors_entry(f, i, &name, &t.dtype, &t.rank, t.shape), "bp_safetensors_entry");
    t.name = name;
    t.handle = handles[size_t(i)];
    o.tensors.push_back(t);
  }
  return o;
}

void release(Opened &o) {
  for (Tensor &t : o.tensors) check(bp_tensor_release(t.handle), "bp_tensor_release");
}

int32_t append(void *context, const void *data, uint64_t n) {
  static_cast<std::string *>(context)->append(static_cast<const char *>(data), size_t(n));
  return 0;
}

// The bytes after the header: the format packs every tensor's data there
// and nothing else.
uint64_t data_bytes(const uint8_t *file, size_t size) {
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = header << 8 | file[i];
  return uint64_t(size) - 8 - header;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool started = [] {
    bp_fuzz::start_host_runtime();
    check(bp_device_get("cpu:0", &g_devices[0]), "cpu:0");
    check(bp_device_get("reference:0", &g_devices[1]), "reference:0");
    return true;
  }();
  (void)started;
  const int64_t live = bp_live_tensor_count();
  bp_safetensors f = 0;
  const bp_status s = bp_safetensors_open_memory(data, size, &f);
  if (s != BP_OK) {
    if (s != BP_ERR_FORMAT) bp_fuzz::fail("bp_safetensors_open_memory gave %s: %s", bp_status_name(s), bp_last_error());
    if (std::strlen(bp_last_error()) > bp_fuzz::kMaxMessage)
      bp_fuzz::fail("a %zu-byte message for a %zu-byte file", std::strlen(bp_last_error()), size);
    return 0;
  }
  Opened cpu = read_all(f, g_devices[0]);
  Opened ref = read_all(f, g_devices[1]);
  check(bp_safetensors_close(f), "bp_safetensors_close");
  uint64_t loaded = 0;
  for (size_t i = 0; i < cpu.tensors.size(); ++i) {
    const std::string bytes = bytes_of(cpu.tensors[i].handle, cpu.tensors[i].dtype);
    if (bytes != bytes_of(ref.tensors[i].handle, ref.tensors[i].dtype))
      bp_fuzz::fail("tensor '%s' loads differently on cpu:0 and reference:0", cpu.tensors[i].name.c_str());
    loaded += bytes.size();
  }
  if (loaded != data_bytes(data, size))
    bp_fuzz::fail("the tensors hold %llu bytes, the data after the header %llu", (unsigned long long)loaded,
                  (unsigned long long)data_bytes(data, size));

  // Written back from cpu:0, the file opens to the same contents.
  std::vector<bp_named_tensor> named;
  for (const Tensor &t : cpu.tensors) named.push_back({t.name.c_str(), t.handle});
  std::vector<bp_metadata_entry> meta;
  for (const auto &[k, v] : cpu.metadata) meta.push_back({k.c_str(), v.c_str()});
  std::string again;
  check(bp_safetensors_write(append, &again, named.data(), int32_t(named.size()), meta.data(), int32_t(meta.size())),
        "bp_safetensors_write");
  check(bp_safetensors_open_memory(again.data(), again.size(), &f), "bp_safetensors_open_memory (written back)");
  Opened back = read_all(f, g_devices[0]);
  check(bp_safetensors_close(f), "bp_safetensors_close");
  if (back.metadata != cpu.metadata) bp_fuzz::fail("the metadata changed when written back");
  if (back.tensors.size() != cpu.tensors.size()) bp_fuzz::fail("the tensor count changed when written back");
  for (size_t i = 0; i < cpu.tensors.size(); ++i) {
    const Tensor &a = cpu.tensors[i], &b = back.tensors[i];
    if (a.name != b.name || a.dtype != b.dtype || a.rank != b.rank ||
        std::memcmp(a.shape, b.shape, sizeof a.shape) != 0 || bytes_of(a.handle, a.dtype) != bytes_of(b.handle, b.dtype))
      bp_fuzz::fail("tensor '%s' changed when written back", a.name.c_str());
  }
  release(cpu);
  release(ref);
  release(back);
  if (bp_live_tensor_count() != live)
    bp_fuzz::fail("%lld tensors outlived the input", (long long)(bp_live_tensor_count() - live));
  return 0;
}
