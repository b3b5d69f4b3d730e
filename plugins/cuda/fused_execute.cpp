#include "fused_execute.hpp"

#include <string>
#include <utility>
#include <vector>

#include "buffer.hpp"
#include "device.hpp"
#include "device_registry.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "fused_args.hpp"
#include "fused_cache.hpp"
#include "fused_source.hpp"
#include "ops.hpp"
#include "view.hpp"

namespace bp_cuda {

void execute_fused(int32_t device_index, const bp_fused_program *program) {
  Device &device = device_at(device_index, "execute_fused");
  const bp_plugin::FusedInfo info = bp_plugin::check_fused(program, live_buffer_bytes, nullptr);
  const bp_fused_program &p = *program;
  // What this backend runs: every instruction's triple in its capability
  // table (the same answer as supports()).
  bp_plugin::require_fused_supported(p, "cuda", op_supports);
  std::vector<void *> addresses;
  for (int32_t i = 0; i < p.n_inputs; ++i) {
    const std::string role = "input " + std::to_string(i);
    addresses.push_back(device_view(p.inputs[i], device, "fused program", role.c_str()).base);
  }
  for (int32_t j = 0; j < p.n_outputs; ++j) {
    const std::string role = "output " + std::to_string(j);
    addresses.push_back(device_view(p.outputs[j], device, "fused program", role.c_str()).base);
  }
  const FusedLayout layout = plan_fused_layout(p);
  const std::string source = fused_source(p, layout);
  if (info.numel == 0) return;

  {
    // The device's context exists and is current on this thread before the
    // runtime loads anything (loading must not create a context on
    // whichever device happened to be current).
    Device::Lock lock = device.lock();
    device.activate(lock);
  }
  const cudaKernel_t kernel = fused_kernel(device, source);
  FusedArgs args(p, layout, std::move(addresses));
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  const int64_t blocks = (info.numel + kFusedThreads - 1) / kFusedThreads;
  const unsigned grid = static_cast<unsigned>(blocks < launch.max_blocks ? blocks : launch.max_blocks);
  check_cuda(cudaLaunchKernel(reinterpret_cast<const void *>(kernel), dim3(grid), dim3(kFusedThreads), args.args(), 0,
                              launch.stream),
             "cudaLaunchKernel (fused program)", device.name());
}

}  // namespace bp_cuda
