// program_text.hpp — how an op-by-op program's OpenCL C is put together
// (kernel_source.cpp, and any family's generator): a prelude for the
// program's dtype, then sections of the family files in kernels/, each
// instantiated by #define lines (plugins/opencl/README.md).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "kernel_source.hpp"

namespace bp_ocl {

// An operator bound into a template as the macro OP: "#define OP<params>
// <body>", e.g. {"(x, y)", binary_body(op)}. No body: the template needs
// none, or defines its own.
struct OpMacro {
  std::string params;
  std::string body;
};

class ProgramText {
 public:
  // The prelude of a program whose input dtype is `dtype`: what the device
  // enables, backplane/half.h, the dtype's lines (T, S, UT, ACC, LD, SV,
  // IS_NAN, BP_T_IS_FLOAT, BP_T_<dtype>) and kernels/common.cl.
  ProgramText(int32_t dtype, const SourceOptions &options);

  // Text as it is: a #define a section reads, a shared file.
  void raw(const std::string &text);
  // The section `name` of a family file (its text pasted with `name`
  // defined): definitions that kernels after it use.
  void section(const char *file, const std::string &name);
  // Kernel `kernel` from the template section `name` of `file`: BP_NAME is
  // `kernel`, OUT_S and OUT_T are the storage and compute types of dtype
  // `out` (0: the program's), OSV(v) stores one, OP is `op`.
  void kernel(const char *file, const std::string &name, const std::string &kernel, int32_t out = 0,
              const OpMacro &op = {});
  // Operator `op`'s kernel: section BP_KERNEL_<STEM>, kernel kernel_stem(op).
  void op_kernel(const char *file, int32_t op, int32_t out = 0, const OpMacro &op_macro = {});
  // The <stem>_1d and <stem>_nd variants of an elementwise-shaped kernel
  // (BP_WALK and BP_AT bound to common.cl's BP_WALK_1D, BP_AT_1D or _ND).
  void pair(const char *file, const std::string &name, const std::string &stem, int32_t out = 0,
            const OpMacro &op = {});

  int32_t dtype() const { return dtype_; }
  std::string str() const { return out_.str(); }

 private:
  int32_t dtype_;
  std::ostringstream out_;
};

// "BP_KERNEL_" and the stem in capitals: the section of the template an
// operator's kernel comes from ("reduce_sum" -> "BP_KERNEL_REDUCE_SUM").
std::string kernel_section(const std::string &stem);

}  // namespace bp_ocl
