// Figure "dtypes": float16 and bfloat16 on cpu:0 in one run, each next to
// what the issue that added them measures it against: the elementwise add
// next to float32's, GEMM next to cblas_sgemm (and libtorch's bfloat16
// matmul where bp-bench-torch is built), the conversions next to memcpy;
// then the conversions and the add on opencl:0, where every element goes
// through the OpenCL kernels' float16 and bfloat16 conversions.
// Every row states its goal and whether it is met; the parts are in
// dtypes_*.cpp, the GEMM and opencl:0 parts measured by bp-bench-direct
// (direct.hpp).
#include "direct.hpp"
#include "dtypes.hpp"

namespace bptool::bench {

void figure_dtypes(Context &ctx, Report &rep) {
  dtypes::Setup s;
  std::string why;
  if (!dtypes::make_setup(ctx, &s, &why)) {
    rep.skip("dtypes", "float16, bfloat16", "cpu:0", "", "float32, cblas_sgemm, memcpy", why);
    return;
  }
  dtypes::elementwise_rows(ctx, rep, s);
  Row gemm{"dtypes", "float32, bfloat16, float16 GEMM", "cpu:0", "GFLOPS"};
  gemm.baseline_name = "cblas_sgemm float32 (OpenBLAS direct), libtorch at::mm_out (bp-bench-torch)";
  run_direct(ctx, rep, {"--part", "dtypes-gemm"}, gemm);
  dtypes::conversion_rows(ctx, rep, s);
  Row ocl{"dtypes", "float16, bfloat16 conversions and add", "opencl:0", "GB/s"};
  ocl.baseline_name = "clEnqueueCopyBuffer (direct), float32 add through Backplane";
  run_direct(ctx, rep, {"--part", "dtypes-opencl"}, ocl);
}

}  // namespace bptool::bench
