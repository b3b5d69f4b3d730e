// The transfer figure's rows of an OpenCL device in bp-bench-direct: next to
// clEnqueueWriteBuffer / clEnqueueReadBuffer called directly on the same
// device (opencl_direct.hpp).
#include <memory>

#include "direct.hpp"
#include "opencl_direct.hpp"
#include "transfer.hpp"

namespace bptool::bench {

void direct_transfer(Context &ctx, Report &rep, const bp::Device &device) {
  bandwidth_rows(ctx, rep, device, [&device](size_t bytes, const float *) {
    TransferBaselines b;
    const std::shared_ptr<OpenclDirect> direct = OpenclDirect::open(device, &b.why);
    if (!direct) return b;
    direct->transfer_setup(bytes);
    b.up = [direct](int64_t k) { direct->write(k); };
    b.up_new = [direct](int64_t k) { direct->write_new(k); };
    b.down = [direct](int64_t k) { direct->read(k); };
    b.name_up = "clEnqueueWriteBuffer into an existing buffer (direct)";
    b.name_up_new = "clCreateBuffer + clEnqueueWriteBuffer + release (direct)";
    b.name_down = "clEnqueueReadBuffer (direct, blocking)";
    return b;
  });
}

}  // namespace bptool::bench
