// Figure "gemm": square GEMM through Backplane (bp_matmul_out) next to the
// vendor BLAS called directly on the same size: cblas_sgemm/cblas_dgemm on
// the very host buffers of the cpu:0 tensors, and CLBlastSgemm on buffers of
// the same size on the same OpenCL device. Measured by bp-bench-direct
// (direct.hpp).
#include <vector>

#include "direct.hpp"
#include "opencl_direct.hpp"

#ifdef BP_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace bptool::bench {

namespace {

std::string size_text(const char *dtype, int64_t n) {
  return std::string(dtype) + " n=" + std::to_string(n);
}

// Backplane's side of a GEMM figure: n x n operands on one device.
MatmulOperands random_operands(int64_t n, bp_dtype dtype, const bp::Device &d) {
  return MatmulOperands(bp::random_uniform({n, n}, -1, 1, 1, dtype, d), bp::random_uniform({n, n}, -1, 1, 2, dtype, d),
                        bp::zeros({n, n}, dtype, d));
}

void cpu_gemm(Context &ctx, Report &rep, bp_dtype dtype, int64_t n, int trials, double target) {
  const char *dname = bp_dtype_name(dtype);
  ctx.progress("gemm: cpu:0 " + size_text(dname, n));
  const MatmulOperands ops = random_operands(n, dtype, bp::cpu());
  const Work through_bp = ops.matmuls();
  Row r{"gemm", size_text(dname, n), "cpu:0", "GFLOPS"};
#ifdef BP_BENCH_HAVE_OPENBLAS
  void *pa = host_address(ops.a), *pb = host_address(ops.b), *pc = host_address(ops.c);
  const int ni = int(n);
  const Work direct = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      if (dtype == BP_FLOAT32)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f,
                    static_cast<const float *>(pa), ni, static_cast<const float *>(pb), ni, 0.0f,
                    static_cast<float *>(pc), ni);
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0,
                    static_cast<const double *>(pa), ni, static_cast<const double *>(pb), ni, 0.0,
                    static_cast<double *>(pc), ni);
    }
  };
  // The same cblas call on the same buffers in the same process: Backplane
  // can only add its dispatch cost, so a ratio well above 1 is noise. At
  // small n, multi-threaded OpenBLAS is bimodal; compare() (timing.cpp) says
  // how that once read as "4.2x faster" and how both sides are timed alike.
  const Pair p = compare(through_bp, direct, trials, target);
  r.backplane = gemm_gflops(n, p.a);
  r.baseline = gemm_gflops(n, p.b);
  r.spread = p.spread();
  r.baseline_name = std::string(dtype == BP_FLOAT32 ? "cblas_sgemm" : "cblas_dgemm") +
                    " (OpenBLAS direct, same buffers)";
  r.note = "OpenBLAS threads seen by bp-bench-direct: " + std::to_string(openblas_get_num_threads());
#else
  r.backplane = gemm_gflops(n, measure(through_bp, trials, target));
  r.baseline_name = "cblas (OpenBLAS direct)";
  r.note = "baseline skipped: bp-bench-direct was built without OpenBLAS";
#endif
  rep.add(r);
}

void opencl_gemm(Context &ctx, Report &rep, const bp::Device &d, OpenclDirect *direct,
                 const std::string &why_no_direct, int64_t n, int trials, double target) {
  const std::string dev = d.name();
  ctx.progress("gemm: " + dev + " " + size_text(bp_dtype_name(BP_FLOAT32), n) + " (first call builds kernels)");
  const MatmulOperands ops = random_operands(n, bp::f32, d);
  const Work through_bp = ops.matmuls();
  Row r{"gemm", size_text(bp_dtype_name(BP_FLOAT32), n), dev, "GFLOPS"};
  r.baseline_name = "CLBlastSgemm (direct, own buffers, same device)";
  if (direct) {
    direct->sgemm_setup(n);
    const Work baseline = [&](int64_t k) { direct->sgemm(k); };
    const Pair p = compare(through_bp, baseline, trials, target);
    r.backplane = gemm_gflops(n, p.a);
    r.baseline = gemm_gflops(n, p.b);
    r.spread = p.spread();
  } else {
    r.backplane = gemm_gflops(n, measure(through_bp, trials, target));
    r.note = "baseline skipped: " + why_no_direct;
  }
  rep.add(r);
}

}  // namespace

void direct_gemm(Context &ctx, Report &rep) {
  const std::vector<int64_t> sizes =
      ctx.quick ? std::vector<int64_t>{64, 128, 256, 512}
                : std::vector<int64_t>{64, 128, 256, 512, 1024, 2048};
  // Enough batches that a median is not one of two modes by chance (see
  // compare() in timing.cpp).
  const int trials = ctx.quick ? 5 : 7;
  const double target = ctx.quick ? 0.02 : 0.2;

  bp_device cpu_id;
  if (bp_cpu(&cpu_id) != BP_OK) {
    rep.skip("gemm", "float32/float64", "cpu:0", "GFLOPS", "cblas (OpenBLAS direct)",
             std::string("no cpu:0: ") + bp_last_error());
  } else {
    for (bp_dtype dtype : {BP_FLOAT32, BP_FLOAT64})
      for (int64_t n : sizes) cpu_gemm(ctx, rep, dtype, n, trials, target);
  }

  const auto ocl = devices_with_prefix("opencl");
  if (ocl.empty()) {
    rep.skip("gemm", "float32", "opencl:*", "GFLOPS", "CLBlastSgemm (direct)",
             "no OpenCL device (the opencl backend is not loaded or found no device; see `bp devices`)");
    return;
  }
  // OpenCL devices are often far slower than the host BLAS (PoCL runs on the
  // CPU): the largest size is left out.
  std::vector<int64_t> ocl_sizes(sizes.begin(), sizes.end() - 1);
  for (const bp::Device &d : ocl) {
    std::string why;
    auto direct = OpenclDirect::open(d, &why);
    if (direct && !direct->has_clblast(&why)) direct.reset();
    for (int64_t n : ocl_sizes) opencl_gemm(ctx, rep, d, direct.get(), why, n, trials, target);
  }
}

}  // namespace bptool::bench
