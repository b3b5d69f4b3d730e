#include "opencl_direct.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "runtime_info.hpp"

#ifdef BP_BENCH_HAVE_OPENCL
#include <CL/cl.h>
#endif
#ifdef BP_BENCH_HAVE_CLBLAST
#include <clblast_c.h>
#endif

namespace bptool::bench {

#ifdef BP_BENCH_HAVE_OPENCL

namespace {

void check_cl(cl_int err, const char *what) {
  if (err != CL_SUCCESS)
    throw std::runtime_error(std::string("OpenCL baseline: ") + what + " failed with error " +
                             std::to_string(err));
}

std::string platform_name(cl_platform_id id) {
  char buf[256] = {0};
  clGetPlatformInfo(id, CL_PLATFORM_NAME, sizeof buf - 1, buf, nullptr);
  return buf;
}

std::string device_name_of(cl_device_id id) {
  char buf[256] = {0};
  clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof buf - 1, buf, nullptr);
  return buf;
}

// TOML string text ("\"cpu\"") without its quotes.
std::string unquote(const std::string &s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

// The chain in one pass, as anyone would write it; FP_CONTRACT OFF as in
// every Backplane kernel, so both round each operation alike.
const char *const kChainSource = R"CL(
#pragma OPENCL FP_CONTRACT OFF
__kernel void chain(__global const float *x, __global float *z) {
  const size_t i = get_global_id(0);
  const float v = x[i] * x[i] - 0.5f;
  z[i] = v * v * v - 0.2f;
}
)CL";

cl_device_type type_mask(const std::string &t) {
  if (t == "gpu") return CL_DEVICE_TYPE_GPU;
  if (t == "cpu") return CL_DEVICE_TYPE_CPU;
  if (t == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  return CL_DEVICE_TYPE_ALL;
}

}  // namespace

struct OpenclDirect::Impl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_mem a = nullptr, b = nullptr, c = nullptr, t = nullptr, chain_x = nullptr, copy_from = nullptr, copy_to = nullptr;
  int64_t n = 0;
  size_t bytes = 0, copy_bytes = 0;
  std::vector<char> host;
  cl_program chain_program = nullptr;
  cl_kernel chain_kernel = nullptr;
  size_t chain_n = 0;

  ~Impl() {
    for (cl_mem m : {a, b, c, t, chain_x, copy_from, copy_to})
      if (m) clReleaseMemObject(m);
    if (chain_kernel) clReleaseKernel(chain_kernel);
    if (chain_program) clReleaseProgram(chain_program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  void release(cl_mem &m) {
    if (m) clReleaseMemObject(m);
    m = nullptr;
  }
  cl_mem buffer(size_t size, const void *init) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err);
    check_cl(err, "clCreateBuffer");
    if (init) write_blocking(m, size, init);
    return m;
  }
  // The first `size` bytes of m from host memory, or to it; done on return.
  void write_blocking(cl_mem m, size_t size, const void *from) {
    check_cl(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, size, from, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
  }
  void read_blocking(cl_mem m, size_t size, void *to) {
    check_cl(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, size, to, 0, nullptr, nullptr), "clEnqueueReadBuffer");
  }
  // One chain pass into a new buffer, finished; the caller releases it.
  cl_mem chain_once() {
    cl_mem z = buffer(chain_n * sizeof(float), nullptr);
    check_cl(clSetKernelArg(chain_kernel, 0, sizeof chain_x, &chain_x), "clSetKernelArg");
    check_cl(clSetKernelArg(chain_kernel, 1, sizeof z, &z), "clSetKernelArg");
    const cl_int err = clEnqueueNDRangeKernel(queue, chain_kernel, 1, nullptr, &chain_n, nullptr, 0, nullptr, nullptr);
    if (err == CL_SUCCESS) {
      check_cl(clFinish(queue), "clFinish");
      return z;
    }
    clReleaseMemObject(z);
    check_cl(err, "clEnqueueNDRangeKernel");
    return nullptr;
  }
};

std::unique_ptr<OpenclDirect> OpenclDirect::open(const bp::Device &device, std::string *why) {
  const bp_device_info info = device.info();
  const std::string filter = unquote(config_value("backend.opencl.platform"));
  const std::string type = unquote(config_value("backend.opencl.device_type"));
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
    *why = "no OpenCL platform visible to bp";
    return nullptr;
  }
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  // Enumerate exactly as the opencl backend does: platforms in order, those
  // whose name contains the filter, devices of the configured type.
  int32_t index = 0;
  cl_device_id found = nullptr;
  for (cl_platform_id p : platforms) {
    if (platform_name(p).find(filter) == std::string::npos) continue;
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, type_mask(type), 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    if (clGetDeviceIDs(p, type_mask(type), nd, ids.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id id : ids) {
      if (index == info.index) found = id;
      ++index;
    }
  }
  if (!found) {
    *why = "could not find the OpenCL device behind " + device.name();
    return nullptr;
  }
  if (device_name_of(found) != info.model) {
    *why = "the OpenCL device found for " + device.name() + " is '" + device_name_of(found) +
           "', not '" + info.model + "'";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->device = found;
  cl_int err = CL_SUCCESS;
  impl->context = clCreateContext(nullptr, 1, &found, nullptr, nullptr, &err);
  check_cl(err, "clCreateContext");
  impl->queue = clCreateCommandQueue(impl->context, found, 0, &err);
  check_cl(err, "clCreateCommandQueue");
  return std::unique_ptr<OpenclDirect>(new OpenclDirect(std::move(impl)));
}

OpenclDirect::OpenclDirect(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OpenclDirect::~OpenclDirect() = default;

std::string OpenclDirect::device_name() const { return device_name_of(impl_->device); }

bool OpenclDirect::has_clblast(std::string *why) const {
#ifdef BP_BENCH_HAVE_CLBLAST
  (void)why;
  return true;
#else
  *why = "bp-bench-direct was built without CLBlast (find_package(CLBlast) found nothing)";
  return false;
#endif
}

void *OpenclDirect::cl_context_handle() const { return impl_->context; }
void *OpenclDirect::cl_queue_handle() const { return impl_->queue; }

void OpenclDirect::sgemm_setup(int64_t n) {
  Impl &m = *impl_;
  m.release(m.a);
  m.release(m.b);
  m.release(m.c);
  std::vector<float> init(size_t(n * n));
  for (size_t i = 0; i < init.size(); ++i) init[i] = float(i % 17) / 17.0f - 0.5f;
  m.a = m.buffer(init.size() * sizeof(float), init.data());
  m.b = m.buffer(init.size() * sizeof(float), init.data());
  m.c = m.buffer(init.size() * sizeof(float), nullptr);
  m.n = n;
  check_cl(clFinish(m.queue), "clFinish");
}

void OpenclDirect::sgemm(int64_t repetitions) {
#ifdef BP_BENCH_HAVE_CLBLAST
  Impl &m = *impl_;
  const size_t n = size_t(m.n);
  for (int64_t r = 0; r < repetitions; ++r) {
    CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo,
                                       n, n, n, 1.0f, m.a, 0, n, m.b, 0, n, 0.0f, m.c, 0, n,
                                       &m.queue, nullptr);
    if (s != CLBlastSuccess)
      throw std::runtime_error("CLBlastSgemm failed with status " + std::to_string(int(s)));
  }
  check_cl(clFinish(m.queue), "clFinish");
#else
  (void)repetitions;
  throw std::runtime_error("bp-bench-direct was built without CLBlast");
#endif
}

void OpenclDirect::transfer_setup(size_t bytes) {
  Impl &m = *impl_;
  m.release(m.t);
  m.host.assign(bytes, 1);
  m.t = m.buffer(bytes, m.host.data());
  m.bytes = bytes;
}

void OpenclDirect::write(int64_t repetitions) {
  Impl &m = *impl_;
  for (int64_t r = 0; r < repetitions; ++r) m.write_blocking(m.t, m.bytes, m.host.data());
}

void OpenclDirect::write_new(int64_t repetitions) {
  Impl &m = *impl_;
  for (int64_t r = 0; r < repetitions; ++r) {
    cl_mem fresh = m.buffer(m.bytes, m.host.data());
    clReleaseMemObject(fresh);
  }
}

void OpenclDirect::read(int64_t repetitions) {
  Impl &m = *impl_;
  for (int64_t r = 0; r < repetitions; ++r) m.read_blocking(m.t, m.bytes, m.host.data());
}

void OpenclDirect::copy_setup(size_t bytes) {
  Impl &m = *impl_;
  m.release(m.copy_from);
  m.release(m.copy_to);
  m.host.assign(bytes, 1);
  m.copy_from = m.buffer(bytes, m.host.data());
  m.copy_to = m.buffer(bytes, m.host.data());  // written once, as the tensors compared with it are
  m.copy_bytes = bytes;
}

void OpenclDirect::copy(int64_t repetitions) {
  Impl &m = *impl_;
  for (int64_t r = 0; r < repetitions; ++r)
    check_cl(clEnqueueCopyBuffer(m.queue, m.copy_from, m.copy_to, 0, 0, m.copy_bytes, 0, nullptr, nullptr),
             "clEnqueueCopyBuffer");
  check_cl(clFinish(m.queue), "clFinish");
}

void OpenclDirect::chain_setup(const std::vector<float> &x) {
  Impl &m = *impl_;
  if (!m.chain_program) {
    cl_int err = CL_SUCCESS;
    const char *source = kChainSource;
    m.chain_program = clCreateProgramWithSource(m.context, 1, &source, nullptr, &err);
    check_cl(err, "clCreateProgramWithSource");
    check_cl(clBuildProgram(m.chain_program, 1, &m.device, "", nullptr, nullptr), "clBuildProgram");
    m.chain_kernel = clCreateKernel(m.chain_program, "chain", &err);
    check_cl(err, "clCreateKernel");
  }
  m.release(m.chain_x);
  m.chain_x = m.buffer(x.size() * sizeof(float), x.data());
  m.chain_n = x.size();
}

void OpenclDirect::chain(int64_t repetitions) {
  Impl &m = *impl_;
  for (int64_t r = 0; r < repetitions; ++r) {
    cl_mem z = m.chain_once();
    m.release(z);
  }
}

std::vector<float> OpenclDirect::chain_result() {
  Impl &m = *impl_;
  cl_mem z = m.chain_once();
  std::vector<float> host(m.chain_n);
  try {
    m.read_blocking(z, host.size() * sizeof(float), host.data());
  } catch (...) {
    m.release(z);
    throw;
  }
  m.release(z);
  return host;
}

#else  // no OpenCL: every baseline says why

struct OpenclDirect::Impl {};

std::unique_ptr<OpenclDirect> OpenclDirect::open(const bp::Device &, std::string *why) {
  *why = "bp-bench-direct was built without OpenCL (find_package(OpenCL) found nothing)";
  return nullptr;
}
OpenclDirect::OpenclDirect(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OpenclDirect::~OpenclDirect() = default;
std::string OpenclDirect::device_name() const { return ""; }
bool OpenclDirect::has_clblast(std::string *why) const {
  *why = "bp-bench-direct was built without OpenCL";
  return false;
}
void *OpenclDirect::cl_context_handle() const { return nullptr; }
void *OpenclDirect::cl_queue_handle() const { return nullptr; }
void OpenclDirect::sgemm_setup(int64_t) {}
void OpenclDirect::sgemm(int64_t) {}
void OpenclDirect::transfer_setup(size_t) {}
void OpenclDirect::write(int64_t) {}
void OpenclDirect::read(int64_t) {}
void OpenclDirect::write_new(int64_t) {}
void OpenclDirect::copy_setup(size_t) {}
void OpenclDirect::copy(int64_t) {}
void OpenclDirect::chain_setup(const std::vector<float> &) {}
void OpenclDirect::chain(int64_t) {}
std::vector<float> OpenclDirect::chain_result() { return {}; }

#endif

}  // namespace bptool::bench
