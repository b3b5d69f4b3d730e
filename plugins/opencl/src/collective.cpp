// collective.cpp — the collective entry, among devices of this backend
// (group 0). Shares move between devices with copy_memory: one
// clEnqueueCopyBuffer when the devices share a context (the devices of one
// platform do), through host memory otherwise. A reduction is one kernel on
// the device that holds its result (the Collective family of
// kernel_source.cpp), which combines the shares in participant order. Every
// step goes to the in-order queues with the fencing of copy_memory, so the
// collective runs after earlier work on each device, later work there sees
// its results, and nothing here waits for a device.
#include <string>
#include <vector>

#include "backplane/sdk/unique_handle.hpp"
#include "buffer.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "platform.hpp"

namespace bp_ocl {

namespace {

// Where a participant's bytes are.
struct Part {
  Device *device;
  cl_mem mem;
  uint64_t offset;  // bytes
  Part at(uint64_t bytes) const { return Part{device, mem, offset + bytes}; }
  bool operator==(const Part &o) const { return mem == o.mem && offset == o.offset; }
};

// Device memory for one collective. Released right after its commands are
// enqueued: OpenCL frees it once they have finished.
struct ReleaseMemory {
  void operator()(cl_mem mem) const { clReleaseMemObject(mem); }
};
using Temporary = bp_plugin::UniqueHandle<cl_mem, ReleaseMemory>;

void copy(const Part &from, const Part &to, uint64_t bytes) {
  copy_memory(*from.device, from.mem, from.offset, *to.device, to.mem, to.offset, bytes);
}

// out = reduce_op over j of shares[j] (numel elements each), on the device
// of shares[own], which holds `out` too: the other shares are copied there
// first.
void reduce(int32_t reduce_op, int32_t dtype, const std::vector<Part> &shares, size_t own,
            const Part &out, int64_t numel) {
  Device &device = *out.device;
  const uint64_t size = dtype_size(dtype);
  const uint64_t bytes = static_cast<uint64_t>(numel) * size;
  const size_t n = shares.size();
  Temporary others(n > 1 ? create_memory(device, (n - 1) * bytes, "collective") : nullptr);
  for (size_t j = 0, slot = 0; j < n; ++j)
    if (j != own) copy(shares[j], Part{&device, others.get(), bytes * slot++}, bytes);
  const Part &mine = shares[own];
  // With one participant `others` is never read; a real buffer stands in,
  // since not every driver takes a NULL buffer argument.
  const cl_mem others_arg = others.get() ? others.get() : mine.mem;
  const Device::Lock lock = device.lock();
  const Kernel &k = device.kernel(lock, Family::Collective, dtype, collective_stem(reduce_op));
  device.launch_elements(lock, k, numel,
                         {out.mem, cl_long(out.offset / size), mine.mem, cl_long(mine.offset / size),
                          cl_long(own), others_arg, cl_long(n), cl_long(numel)});
}

// The participant's view as a Part; its buffer must be on `device`.
Part part(const bp_plugin_tensor &view, Device &device, const char *name, const char *role, int32_t i) {
  const bp_buffer_s &buffer = *view.buffer;
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, "%s: %s %d lives on %s, but participant %d is %s", name, role,
         static_cast<int>(i), buffer.device->name().c_str(), static_cast<int>(i),
         device.name().c_str());
  return Part{&device, buffer.mem, view.offset};
}

}  // namespace

void collective(const bp_collective_args *args) {
  Backend &b = backend("collective");
  if (args && BP_SDK_FITS(args, group) && args->group != 0)
    fail(BP_ERR_INVALID_ARGUMENT,
         "collective: there is no group %llu: the opencl backend makes no groups (its "
         "collectives run among its own devices, group 0)",
         static_cast<unsigned long long>(args->group));
  // What plugin.h fixes (numbers known, views well-formed, contiguous and in
  // live buffers, dtypes, shapes, the in-place rule), checked by the SDK.
  const bp_plugin::CollectiveInfo info =
      bp_plugin::check_collective(args, 0, live_buffer_bytes, nullptr);
  const char *name = bp_vocab_collective_name(args->collective);
  const int32_t n = args->count;
  const int32_t dtype = info.dtype;
  std::vector<Device *> devices;
  for (int32_t i = 0; i < n; ++i) {
    Device &device = b.device(args->devices[i], name);
    if (dtype == BP_FLOAT64 && !device.fp64())
      fail(BP_ERR_UNSUPPORTED,
           "%s: %s has no float64 (cl_khr_fp64 missing, or option fp64 = \"off\")", name,
           device.name().c_str());
    devices.push_back(&device);
  }
  const bool reducing = args->collective == BP_COLLECTIVE_ALL_REDUCE ||
                        args->collective == BP_COLLECTIVE_REDUCE_SCATTER;
  if (reducing && !collective_implements(args->reduce_op))
    fail(BP_ERR_UNSUPPORTED, "%s: the opencl backend does not implement the reduction %s", name,
         bp_vocab_reduce_op_name(args->reduce_op));
  if (info.numel == 0) return;

  std::vector<Part> in, out;
  for (int32_t i = 0; i < n; ++i) {
    in.push_back(part(args->inputs[i], *devices[size_t(i)], name, "input", i));
    out.push_back(part(args->outputs[i], *devices[size_t(i)], name, "output", i));
  }
  const uint64_t bytes = static_cast<uint64_t>(info.numel) * dtype_size(dtype);
  const size_t count = size_t(n);
  switch (args->collective) {
    case BP_COLLECTIVE_ALL_REDUCE:
      // On participant 0's device, then from there to the others.
      reduce(args->reduce_op, dtype, in, 0, out[0], info.numel);
      for (size_t i = 1; i < count; ++i) copy(out[0], out[i], bytes);
      return;
    case BP_COLLECTIVE_REDUCE_SCATTER:
      // Share i of every input to participant i, and reduced there.
      for (size_t i = 0; i < count; ++i) {
        std::vector<Part> rows;
        for (const Part &p : in) rows.push_back(p.at(i * bytes));
        reduce(args->reduce_op, dtype, rows, i, out[i], info.numel);
      }
      return;
    case BP_COLLECTIVE_BROADCAST: {
      const size_t root = size_t(args->root);
      for (size_t i = 0; i < count; ++i)
        if (!(i == root && out[i] == in[i])) copy(in[root], out[i], bytes);
      return;
    }
    case BP_COLLECTIVE_ALL_GATHER:
      // Gathered into participant 0's output, then copied whole to the others.
      for (size_t j = 0; j < count; ++j) copy(in[j], out[0].at(j * bytes), bytes);
      for (size_t i = 1; i < count; ++i) copy(out[0], out[i], count * bytes);
      return;
  }
  fail(BP_ERR_UNSUPPORTED, "%s: the opencl backend does not implement this collective", name);
}

}  // namespace bp_ocl
