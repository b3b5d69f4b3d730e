#include "opencl_conv_direct.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#if defined(BP_BENCH_HAVE_OPENCL) && defined(BP_BENCH_HAVE_CLBLAST)
#include <CL/cl.h>
#include <clblast_c.h>
#endif

namespace bptool::bench {

#if defined(BP_BENCH_HAVE_OPENCL) && defined(BP_BENCH_HAVE_CLBLAST)

namespace {

// Square images and kernels, float32, one image of the batch per launch.
const char *const kSource = R"CL(
#pragma OPENCL FP_CONTRACT OFF
__kernel void im2col(__global const float *x, long x_off, __global float *col, long C, long H, long K, long S,
                     long P, long OH) {
  const long i = get_global_id(0);
  if (i >= C * K * K * OH * OH) return;
  const long ow = i % OH, oh = i / OH % OH, row = i / (OH * OH);
  const long c = row / (K * K), kh = row % (K * K) / K, kw = row % K;
  const long h = oh * S - P + kh, w = ow * S - P + kw;
  col[i] = h >= 0 && h < H && w >= 0 && w < H ? x[x_off + (c * H + h) * H + w] : 0.0f;
}
__kernel void col2im(__global const float *col, __global float *x, long x_off, long C, long H, long K, long S,
                     long P, long OH) {
  const long i = get_global_id(0);
  if (i >= C * H * H) return;
  const long w = i % H, h = i / H % H, c = i / (H * H);
  float sum = 0.0f;
  for (long kh = 0; kh < K; ++kh) {
    const long th = h + P - kh;
    if (th < 0 || th % S != 0 || th / S >= OH) continue;
    for (long kw = 0; kw < K; ++kw) {
      const long tw = w + P - kw;
      if (tw < 0 || tw % S != 0 || tw / S >= OH) continue;
      sum += col[((c * K + kh) * K + kw) * OH * OH + th / S * OH + tw / S];
    }
  }
  x[x_off + i] = sum;
}
)CL";

void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string("OpenCL conv baseline: ") + what + ": error " + std::to_string(err));
}

void check_blast(CLBlastStatusCode s) {
  if (s != CLBlastSuccess) throw std::runtime_error("OpenCL conv baseline: CLBlastSgemm: status " + std::to_string(int(s)));
}

}  // namespace

struct OpenclConvDirect::Impl {
  cl_context context;
  cl_command_queue queue;
  ConvLayer l;
  int64_t batch;
  cl_program program = nullptr;
  cl_kernel im2col = nullptr, col2im = nullptr;
  cl_mem x = nullptr, w = nullptr, y = nullptr, dy = nullptr, dx = nullptr, dw = nullptr, col = nullptr;

  ~Impl() {
    for (cl_mem m : {x, w, y, dy, dx, dw, col})
      if (m) clReleaseMemObject(m);
    if (im2col) clReleaseKernel(im2col);
    if (col2im) clReleaseKernel(col2im);
    if (program) clReleaseProgram(program);
  }
  cl_mem buffer(size_t floats, float value) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, floats * sizeof(float), nullptr, &err);
    check(err, "clCreateBuffer");
    const std::vector<float> init(floats, value);
    check(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, floats * sizeof(float), init.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
    return m;
  }
  void launch(cl_kernel k, std::vector<std::pair<size_t, const void *>> args, size_t n) {
    for (size_t i = 0; i < args.size(); ++i) check(clSetKernelArg(k, cl_uint(i), args[i].first, args[i].second), "clSetKernelArg");
    const size_t local = 64, global = (n + local - 1) / local * local;
    check(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  }
  void unfold(cl_long image) {
    const cl_long C = l.c_in, H = l.size, K = l.kernel, S = l.stride, P = l.pad, OH = l.out(), off = image * C * H * H;
    launch(im2col, {{sizeof x, &x}, {sizeof off, &off}, {sizeof col, &col}, {sizeof C, &C}, {sizeof H, &H},
                    {sizeof K, &K}, {sizeof S, &S}, {sizeof P, &P}, {sizeof OH, &OH}},
           size_t(C * K * K * OH * OH));
  }
  void fold(cl_long image) {
    const cl_long C = l.c_in, H = l.size, K = l.kernel, S = l.stride, P = l.pad, OH = l.out(), off = image * C * H * H;
    launch(col2im, {{sizeof col, &col}, {sizeof dx, &dx}, {sizeof off, &off}, {sizeof C, &C}, {sizeof H, &H},
                    {sizeof K, &K}, {sizeof S, &S}, {sizeof P, &P}, {sizeof OH, &OH}},
           size_t(C * H * H));
  }
};

OpenclConvDirect::OpenclConvDirect(OpenclDirect &direct, const ConvLayer &l, int64_t batch) : impl_(new Impl) {
  Impl &m = *impl_;
  m.context = static_cast<cl_context>(direct.cl_context_handle());
  m.queue = static_cast<cl_command_queue>(direct.cl_queue_handle());
  if (!m.context || !m.queue) throw std::runtime_error("no OpenCL context");
  m.l = l;
  m.batch = batch;
  cl_int err = CL_SUCCESS;
  const char *source = kSource;
  m.program = clCreateProgramWithSource(m.context, 1, &source, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(m.program, 0, nullptr, "", nullptr, nullptr), "clBuildProgram");
  m.im2col = clCreateKernel(m.program, "im2col", &err);
  check(err, "clCreateKernel");
  m.col2im = clCreateKernel(m.program, "col2im", &err);
  check(err, "clCreateKernel");
  const size_t out = size_t(l.out() * l.out()), depth = size_t(l.c_in * l.kernel * l.kernel);
  m.x = m.buffer(size_t(batch * l.c_in * l.size * l.size), 0.5f);
  m.dx = m.buffer(size_t(batch * l.c_in * l.size * l.size), 0.0f);
  m.w = m.buffer(size_t(l.c_out) * depth, 0.01f);
  m.dw = m.buffer(size_t(l.c_out) * depth, 0.0f);
  m.y = m.buffer(size_t(batch * l.c_out) * out, 0.0f);
  m.dy = m.buffer(size_t(batch * l.c_out) * out, 0.25f);
  m.col = m.buffer(depth * out, 0.0f);
}

OpenclConvDirect::~OpenclConvDirect() = default;

void OpenclConvDirect::run(ConvPass pass, int64_t k) {
  Impl &m = *impl_;
  const size_t out = size_t(m.l.out() * m.l.out()), depth = size_t(m.l.c_in * m.l.kernel * m.l.kernel);
  const size_t c_out = size_t(m.l.c_out);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t n = 0; n < m.batch; ++n) {
      const size_t y_off = size_t(n) * c_out * out;
      if (pass == ConvPass::forward) {
        m.unfold(n);
        check_blast(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, c_out, out, depth, 1.0f,
                                 m.w, 0, depth, m.col, 0, out, 0.0f, m.y, y_off, out, &m.queue, nullptr));
      } else if (pass == ConvPass::data) {
        check_blast(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeYes, CLBlastTransposeNo, depth, out, c_out, 1.0f,
                                 m.w, 0, depth, m.dy, y_off, out, 0.0f, m.col, 0, out, &m.queue, nullptr));
        m.fold(n);
      } else {
        m.unfold(n);
        check_blast(CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, c_out, depth, out, 1.0f,
                                 m.dy, y_off, out, m.col, 0, out, n == 0 ? 0.0f : 1.0f, m.dw, 0, depth, &m.queue,
                                 nullptr));
      }
    }
  check(clFinish(m.queue), "clFinish");
}

#else

struct OpenclConvDirect::Impl {};

OpenclConvDirect::OpenclConvDirect(OpenclDirect &, const ConvLayer &, int64_t) {
  throw std::runtime_error("bp-bench-direct was built without OpenCL and CLBlast");
}
OpenclConvDirect::~OpenclConvDirect() = default;
void OpenclConvDirect::run(ConvPass, int64_t) {}

#endif

}  // namespace bptool::bench
