#include "device_info.hpp"
#include "unary_vector.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cblas.h>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "backend.hpp"
#include "conv.hpp"
#include "half_convert.hpp"
#include "kernels.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

// "model name" of /proc/cpuinfo (x86), else the machine name from uname.
std::string read_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.compare(0, 10, "model name") != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  struct utsname name;
  if (uname(&name) == 0) return std::string(name.machine) + " CPU";
  return "unknown CPU";
}

const std::string &cpu_model() {
  static const std::string model = read_cpu_model();  // /proc is read once
  return model;
}

struct HostMemory {
  uint64_t total = 0, available = 0;
};

// /proc/meminfo's MemTotal and MemAvailable (what a new allocation can get
// without swapping), else sysconf's page counts.
HostMemory host_memory() {
  HostMemory m;
  if (FILE *f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kib;
    while (std::fscanf(f, "%63s %llu kB\n", key, &kib) == 2) {
      if (!std::strcmp(key, "MemTotal:")) m.total = kib * 1024;
      if (!std::strcmp(key, "MemAvailable:")) m.available = kib * 1024;
    }
    std::fclose(f);
  }
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (!m.total) m.total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * page;
  if (!m.available) m.available = static_cast<uint64_t>(sysconf(_SC_AVPHYS_PAGES)) * page;
  return m;
}

}  // namespace

void fill_device_info(bp_plugin_device_info *info) {
  const uint32_t size = info->struct_size;
  auto fits = [size](size_t field_end) { return field_end <= size; };
  if (fits(offsetof(bp_plugin_device_info, kind) + sizeof info->kind)) info->kind = BP_DEVICE_CPU;
  if (fits(offsetof(bp_plugin_device_info, model) + sizeof info->model))
    std::snprintf(info->model, sizeof info->model, "%s", cpu_model().c_str());
  const HostMemory m = host_memory();
  if (fits(offsetof(bp_plugin_device_info, memory_total) + sizeof info->memory_total))
    info->memory_total = m.total;
  if (fits(offsetof(bp_plugin_device_info, memory_free) + sizeof info->memory_free))
    info->memory_free = m.available;
  if (fits(offsetof(bp_plugin_device_info, memory_in_use) + sizeof info->memory_in_use))
    info->memory_in_use = g_backend.memory.in_use();
}

int32_t fill_device_properties(bp_property *props, int32_t capacity) {
  const HostMemory m = host_memory();
  const MemoryPool &memory = g_backend.memory;
  char number[32];
  auto text = [&number](uint64_t v) {
    std::snprintf(number, sizeof number, "%" PRIu64, v);
    return static_cast<const char *>(number);
  };
  int32_t count = 0;
  auto put = [&](const char *key, const char *value) {
    if (count >= capacity) return;
    std::snprintf(props[count].key, sizeof props[count].key, "%s", key);
    std::snprintf(props[count].value, sizeof props[count].value, "%s", value);
    ++count;
  };
  put("model", cpu_model().c_str());
  put("cores", text(static_cast<uint64_t>(available_cores())));
  put("threads", text(static_cast<uint64_t>(g_backend.pool->threads())));
  put("parallel_threshold_elements", text(kSerialWork));
  put("openblas_core", openblas_get_corename());
  put("openblas_threads", text(static_cast<uint64_t>(openblas_get_num_threads())));
  put("openblas_config", openblas_get_config());
  put("memory_total", text(m.total));
  put("memory_available", text(m.available));
  put("memory_in_use", text(memory.in_use()));
  put("memory_reserved", text(memory.reserved()));  // live buffers incl. size-class rounding
  put("memory_cached", text(memory.cached()));      // freed blocks kept for reuse
  put("alignment", "64");
  put("half_conversions", isa_name(best_isa()));  // the vector conversions float32 <-> float16/bfloat16
  const std::string f16 = gemm_half_path(BP_FLOAT16), bf16 = gemm_half_path(BP_BFLOAT16);
  put("gemm_float16_path", f16.c_str());
  put("gemm_bfloat16_path", bf16.c_str());
  put("gemm_half_path", (f16 == bf16 ? f16 : "float16 " + f16 + ", bfloat16 " + bf16).c_str());
  put("softmax_path", softmax_path());  // the vector row kernel of softmax and log_softmax
  put("norm_path", norm_path());        // LAYER_NORM's and RMS_NORM's row loop (since 1.6)
  put("attention_path", attention_path());
  put("unary_path", unary_vector().path);  // float32 exp and erf over dense runs (since 1.6)
  // How the convolutions run (since 1.6).
  put("conv_float32_path", conv_path(BP_FLOAT32).c_str());
  put("conv_float64_path", conv_path(BP_FLOAT64).c_str());
  put("conv_bfloat16_path", conv_path(BP_BFLOAT16).c_str());
  put("conv_float16_path", conv_path(BP_FLOAT16).c_str());
  return count;
}

}  // namespace cpu_backend
