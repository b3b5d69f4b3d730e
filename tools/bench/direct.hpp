// direct.hpp — the parts of `bp bench` whose baselines call OpenBLAS, OpenCL
// or CLBlast directly. They are measured, both sides in one process as
// before (compare() on the same buffers), by bp-bench-direct
// (direct_main.cpp), a program of its own beside bp: bp links none of those
// libraries, whose loading would otherwise slow every bp call (the reason
// libtorch and MPI are kept out too). bp runs it as
//
//   bp-bench-direct --part gemm|dtypes-gemm|dtypes-opencl|transfer|fusion-opencl|conv [--quick] [--size N]
//                   [--device opencl:I] (transfer) [--fusion on|off] (fusion-opencl)
//
// and reads back its rows (Output::relay, one JSON object per line); its
// progress goes straight to standard error.
#pragma once

#include <string>
#include <vector>

#include "bench.hpp"

namespace bptool::bench {

// ---- bp's side (direct_run.cpp) ----------------------------------------------

// Runs bp-bench-direct with these arguments (ctx's --quick and --size
// added) and adds the rows it prints to rep; when it is missing or fails,
// `skipped` is added too with the reason as its note.
void run_direct(Context &ctx, Report &rep, const std::vector<std::string> &args, Row skipped);

// ---- bp-bench-direct's parts -----------------------------------------------

// Figure "gemm", whole: bp_matmul_out next to cblas_sgemm/cblas_dgemm on
// cpu:0 and CLBlastSgemm on every opencl device (fig_gemm.cpp).
void direct_gemm(Context &ctx, Report &rep);
// The conv figure's rows with direct baselines: float32 on cpu:0 next to
// oneDNN, opencl:0 next to im2col + CLBlastSgemm (conv_direct.cpp).
void direct_conv(Context &ctx, Report &rep);
// The transfer figure's bandwidth rows of one OpenCL device, next to the
// OpenCL calls made directly (transfer_opencl.cpp).
void direct_transfer(Context &ctx, Report &rep, const bp::Device &device);
// The fusion figure's OpenCL row: the chain on opencl:0 with fresh tensors
// next to a hand-written kernel; `fused` says whether Backplane's fusion is
// on, for the note (fig_fusion_opencl.cpp).
void fusion_opencl_rows(Context &ctx, Report &rep, bool fused);

}  // namespace bptool::bench
