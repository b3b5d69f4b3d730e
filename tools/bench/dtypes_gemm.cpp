// The "dtypes" figure's GEMM part: square bp_matmul_out in float16 and
// bfloat16 next to cblas_sgemm called directly on float32 operands of the
// same size (the goal: 0.9x its GFLOPS), naming the path the backend says
// it takes; float32 through Backplane for context; and libtorch's bfloat16
// and float32 matmul where bp-bench-torch is built. Measured by
// bp-bench-direct (direct.hpp).
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dtypes.hpp"
#include "runtime_info.hpp"
#include "torch_baseline.hpp"

#ifdef BP_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace bptool::bench::dtypes {

namespace {

std::string size_text(bp_dtype dtype, int64_t n) { return std::string(bp_dtype_name(dtype)) + " n=" + std::to_string(n); }

// a @ b into c in one dtype, from the same float32 values (converted outside
// the timing).
MatmulOperands converted(const bp::Tensor &a32, const bp::Tensor &b32, bp_dtype dtype, const bp::Device &cpu) {
  if (dtype == BP_FLOAT32) return MatmulOperands(a32, b32, bp::zeros(a32.shape(), dtype, cpu));
  return MatmulOperands(a32.astype(dtype), b32.astype(dtype), bp::zeros(a32.shape(), dtype, cpu));
}

// Backplane's side next to the baseline (cblas_sgemm) when there is one.
void measure_against(Row &r, const Work &through_bp, const Work *sgemm, int64_t n, int trials, double target_s) {
  if (!sgemm) {
    r.backplane = gemm_gflops(n, measure(through_bp, trials, target_s));
    return;
  }
  const Pair p = compare(through_bp, *sgemm, trials, target_s);
  r.backplane = gemm_gflops(n, p.a);
  r.baseline = gemm_gflops(n, p.b);
  r.spread = p.spread();
}

// The thread count libtorch gets: that of the OpenBLAS sgemm it is compared
// with (cpu:0's openblas_threads), else the cpu backend's.
int torch_threads(const Context &ctx, const Setup &s) {
  const int n = std::atoi(ctx.openblas_threads.c_str());
  return n > 0 ? n : s.threads;
}

void torch_rows(Context &ctx, Report &rep, const Setup &s, const std::map<std::pair<bp_dtype, int64_t>, double> &ours,
                double target_s) {
  const std::string missing = torch_baseline_missing();
  if (!missing.empty()) {
    rep.skip("dtypes", "bfloat16, float32 matmul", "cpu:0", "GFLOPS", "libtorch at::mm_out (bp-bench-torch)", missing);
    return;
  }
  const int threads = torch_threads(ctx, s);
  for (int64_t n : s.gemm_sizes)
    for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT32}) {
      const std::string name = bp_dtype_name(dtype);
      ctx.progress("dtypes: libtorch matmul " + size_text(dtype, n) + " (bp-bench-torch)");
      const TorchBaseline t =
          run_torch_baseline("matmul", s.trials, target_s, threads, {"--dtype", name, "--n", std::to_string(n)});
      Row r{"dtypes", size_text(dtype, n) + " vs libtorch", "cpu:0", "GFLOPS"};
      const auto it = ours.find({dtype, n});
      r.backplane = it == ours.end() ? kNaN : it->second;
      r.baseline = t.why_not.empty() ? gemm_gflops(n, t.ns_per_op / 1e9) : kNaN;
      r.baseline_name = "libtorch at::mm_out " + name + " (bp-bench-torch)";
      r.note = t.why_not.empty() ? "libtorch " + t.version + ", " + std::to_string(threads) + " threads, BLAS: " +
                                       t.blas_threads + "; Backplane's figure is its row above"
                                 : "baseline skipped: " + t.why_not;
      ctx.progress_done();
      rep.add(r);
    }
}

}  // namespace

void gemm_rows(Context &ctx, Report &rep, const Setup &s) {
  const double target_s = ctx.quick ? 0.02 : 0.2;
  // Each dtype's own path (oneDNN's AVX-512 BF16 kernel or the float32
  // panels and sgemm) and the conversion instructions: the figure depends
  // on which this CPU has.
  const std::vector<bp_property> props = s.cpu.properties();
  const auto reported = [&props](const std::string &key) {
    const std::string value = property(props, key);
    return value.empty() ? std::string("unknown") : value;
  };
  const auto path = [&](bp_dtype dtype) {
    return "path: " + reported(std::string("gemm_") + bp_dtype_name(dtype) + "_path") +
           " (conversions: " + reported("half_conversions") + ")";
  };
  // Backplane's GFLOPS per (dtype, n), for the libtorch rows.
  std::map<std::pair<bp_dtype, int64_t>, double> ours;

  for (int64_t n : s.gemm_sizes) {
    ctx.progress("dtypes: GEMM operands n=" + std::to_string(n));
    const bp::Tensor a32 = bp::random_uniform({n, n}, -1, 1, 1, bp::f32, s.cpu);
    const bp::Tensor b32 = bp::random_uniform({n, n}, -1, 1, 2, bp::f32, s.cpu);
    const MatmulOperands f32 = converted(a32, b32, BP_FLOAT32, s.cpu);
    const Work *sgemm = nullptr;
    std::string baseline_name = "cblas_sgemm (OpenBLAS direct)";
    std::string baseline_note = "baseline skipped: bp-bench-direct was built without OpenBLAS";
#ifdef BP_BENCH_HAVE_OPENBLAS
    // The same call the gemm figure's float32 rows compare with, on the
    // float32 operands' own host buffers.
    const float *pa = static_cast<const float *>(host_address(f32.a));
    const float *pb = static_cast<const float *>(host_address(f32.b));
    float *pc = static_cast<float *>(host_address(f32.c));
    const int ni = int(n);
    const Work direct = [=](int64_t k) {
      for (int64_t i = 0; i < k; ++i)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0f, pa, ni, pb, ni, 0.0f, pc, ni);
    };
    sgemm = &direct;
    baseline_name = "cblas_sgemm float32 (OpenBLAS direct)";
    baseline_note = "OpenBLAS threads seen by bp-bench-direct: " + std::to_string(openblas_get_num_threads());
#endif

    Row r{"dtypes", size_text(BP_FLOAT32, n), "cpu:0", "GFLOPS"};
    r.baseline_name = baseline_name;
    r.note = baseline_note;
    add_row(ctx, rep, r, [&](Row &row) {
      ctx.progress("dtypes: GEMM " + size_text(BP_FLOAT32, n));
      measure_against(row, f32.matmuls(), sgemm, n, s.trials, target_s);
      ours[{BP_FLOAT32, n}] = row.backplane;
    });
    for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT16}) {
      Row h{"dtypes", size_text(dtype, n), "cpu:0", "GFLOPS"};
      h.baseline_name = baseline_name;
      h.target = kGemmTarget;
      h.note = path(dtype) + "; " + baseline_note;
      add_row(ctx, rep, h, [&](Row &row) {
        ctx.progress("dtypes: GEMM " + size_text(dtype, n));
        const MatmulOperands half = converted(a32, b32, dtype, s.cpu);
        measure_against(row, half.matmuls(), sgemm, n, s.trials, target_s);
        ours[{dtype, n}] = row.backplane;
      });
    }
  }
  torch_rows(ctx, rep, s, ours, target_s);
}

}  // namespace bptool::bench::dtypes
