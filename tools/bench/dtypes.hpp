// dtypes.hpp — the parts of the "dtypes" figure (fig_dtypes.cpp): float16
// and bfloat16 on cpu:0 (and their conversions on opencl:0) next to float32
// and to the library calls a user would otherwise make, against the goals of the issue that added them
// (elementwise add >= 1.6x float32's elements/s, GEMM >= 0.9x cblas_sgemm,
// conversions >= 0.8x memcpy of the bytes moved).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"

namespace bptool::bench::dtypes {

inline constexpr double kAddTarget = 1.6;
inline constexpr double kGemmTarget = 0.9;
inline constexpr double kConvertTarget = 0.8;

// What every part measures with.
struct Setup {
  bp::Device cpu;
  int64_t elements = 0;             // of the add's and the conversions' tensors
  std::string count;                // elements as written in the rows ("1e8")
  std::vector<int64_t> gemm_sizes;  // n of the square GEMMs
  int trials = 0;                   // timed batches per side (median)
  int threads = 1;                  // of the plain-loop and memcpy baselines
};

// The setup of ctx's run (--quick, --size); false with *why without a cpu:0.
bool make_setup(const Context &ctx, Setup *s, std::string *why);

// measure(r) fills r's figures; a Backplane error (a dtype a backend does
// not support yet) or any other exception becomes the row's note, so one
// missing kernel costs its row, not the figure.
void add_row(Context &ctx, Report &rep, Row r, const std::function<void(Row &)> &measure);

void elementwise_rows(Context &ctx, Report &rep, const Setup &s);
void gemm_rows(Context &ctx, Report &rep, const Setup &s);  // in bp-bench-direct
void conversion_rows(Context &ctx, Report &rep, const Setup &s);
// The conversions and the add on opencl:0 (in bp-bench-direct: the
// conversions' baseline is clEnqueueCopyBuffer; dtypes_opencl.cpp).
void opencl_rows(Context &ctx, Report &rep, const Setup &s);

}  // namespace bptool::bench::dtypes
