#include "fused_nvrtc.hpp"

#include <nvrtc.h>

#include <iterator>
#include <utility>

#include "backplane/plugin_sdk.hpp"
#include "backplane/sdk/unique_handle.hpp"
#include "fused_headers.hpp"

namespace bp_cuda {

namespace {

std::string nvrtc_error(const char *call, nvrtcResult result) {
  return std::string(call) + ": " + nvrtcGetErrorString(result);
}

// Destroys the program however the compilation ends.
struct DestroyProgram {
  void operator()(nvrtcProgram program) const { nvrtcDestroyProgram(&program); }
};
using Program = bp_plugin::UniqueHandle<nvrtcProgram, DestroyProgram>;

}  // namespace

std::string fused_target(int major, int minor) {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return "";
  std::vector<int> archs(static_cast<size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return "";
  const int wanted = major * 10 + minor;
  int below = 0;
  for (int arch : archs) {
    if (arch == wanted) return "sm_" + std::to_string(arch);
    if (arch < wanted && arch > below) below = arch;
  }
  return below > 0 ? "compute_" + std::to_string(below) : "";
}

FusedCompilation compile_fused_source(const std::string &source, const std::string &target) {
  FusedCompilation c;
  const FusedHeader *headers = fused_headers();
  const char *texts[kFusedHeaderCount], *names[kFusedHeaderCount];
  for (int i = 0; i < kFusedHeaderCount; ++i) {
    texts[i] = headers[i].text;
    names[i] = headers[i].name;
  }
  Program program;
  nvrtcResult r = nvrtcCreateProgram(program.ptr(), source.c_str(), "bp_fused.cu", kFusedHeaderCount, texts, names);
  if (r != NVRTC_SUCCESS) {
    c.error = nvrtc_error("nvrtcCreateProgram", r);
    return c;
  }
  const std::string arch = "--gpu-architecture=" + target;
  std::vector<const char *> options = {arch.c_str()};
  options.insert(options.end(), std::begin(kFusedFlags), std::end(kFusedFlags));
  r = nvrtcCompileProgram(program.get(), static_cast<int>(options.size()), options.data());
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program.get(), &log_size) == NVRTC_SUCCESS && log_size > 1) {
    c.log.resize(log_size);
    if (nvrtcGetProgramLog(program.get(), &c.log[0]) != NVRTC_SUCCESS) c.log.clear();
    while (!c.log.empty() && (c.log.back() == '\0' || c.log.back() == '\n')) c.log.pop_back();
  }
  if (r != NVRTC_SUCCESS) {
    c.error = nvrtc_error("nvrtcCompileProgram", r);
    return c;
  }
  c.image.target = target;
  c.image.cubin = target.rfind("sm_", 0) == 0;
  size_t size = 0;
  r = c.image.cubin ? nvrtcGetCUBINSize(program.get(), &size) : nvrtcGetPTXSize(program.get(), &size);
  if (r != NVRTC_SUCCESS) {
    c.error = nvrtc_error(c.image.cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize", r);
    return c;
  }
  c.image.code.resize(size);
  r = c.image.cubin ? nvrtcGetCUBIN(program.get(), c.image.code.data()) : nvrtcGetPTX(program.get(), c.image.code.data());
  if (r != NVRTC_SUCCESS) {
    c.error = nvrtc_error(c.image.cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", r);
    return c;
  }
  c.ok = true;
  return c;
}

FusedImage compile_fused(const std::string &source, const std::string &target, const char *device) {
  FusedCompilation c = compile_fused_source(source, target);
  if (!c.ok)
    bp_plugin::fail(BP_ERR_UNSUPPORTED, "cuda: fused program on %s: %s (%s): %s", device, c.error.c_str(),
                    target.c_str(), c.log.empty() ? "no log" : c.log.c_str());
  return std::move(c.image);
}

}  // namespace bp_cuda
