// program_text.cpp — the prelude every op-by-op program starts with, and
// the #define lines that instantiate a family file's template section.
#include "program_text.hpp"

#include <cctype>

#include "dtype.hpp"
#include "embedded_texts.hpp"

namespace bp_ocl {

namespace {

std::string upper(std::string s) {
  for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// float16 and bfloat16 sum in float (plugin.h: float32 or wider, rounded
// once): a double sum would need rounding to odd before the final store.
std::string accumulator_type(int32_t dtype, bool fp64) {
  if (dtype_is_half(dtype)) return "float";
  if (dtype_is_float(dtype)) return fp64 ? "double" : "float";
  return "long";  // integer and bool sums are int64 (plugin.h)
}

std::string kernel_section(const std::string &stem) { return "BP_KERNEL_" + upper(stem); }

ProgramText::ProgramText(int32_t dtype, const SourceOptions &options) : dtype_(dtype) {
  // FP_CONTRACT OFF: no fused multiply-add behind our back, so arange and
  // the random streams round exactly like the C backends.
  if (options.fp64) out_ << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  out_ << "#pragma OPENCL FP_CONTRACT OFF\n" << half_conversions_source(options.fp64);
  out_ << "#define BP_T_" << upper(dtype_name(dtype)) << " 1\n"
       << "#define BP_T_IS_FLOAT " << (dtype_is_float(dtype) ? 1 : 0) << "\n"
       << "typedef " << dtype_cl_type(dtype) << " T;\n"
       << "typedef " << dtype_storage_type(dtype) << " S;    /* how a T is stored */\n"
       << "typedef " << unsigned_type(dtype) << " UT;  /* unsigned, wraps like T */\n"
       << "typedef " << accumulator_type(dtype, options.fp64) << " ACC; /* what reductions accumulate in */\n"
       << "#define LD(v) " << load_expr(dtype, "v") << "  /* a stored S as the T it holds */\n"
       << "#define SV(v) " << store_expr(dtype, "v") << "  /* a T as stored, rounded once for the halves */\n"
       << nan_test_macro(dtype) << kCommonCl << "\n";
}

void ProgramText::raw(const std::string &text) { out_ << text; }

void ProgramText::section(const char *file, const std::string &name) {
  out_ << "#define " << name << "\n" << file << "\n#undef " << name << "\n";
}

void ProgramText::kernel(const char *file, const std::string &name, const std::string &kernel, int32_t out,
                         const OpMacro &op) {
  if (out == 0) out = dtype_;
  out_ << "#define BP_NAME " << kernel << "\n#define OUT_S " << dtype_storage_type(out) << "\n#define OUT_T "
       << dtype_cl_type(out) << "\n#define OSV(v) " << store_expr(out, "v") << "\n";
  if (!op.body.empty()) out_ << "#define OP" << op.params << " " << op.body << "\n";
  section(file, name);
  if (!op.body.empty()) out_ << "#undef OP\n";
  out_ << "#undef BP_NAME\n#undef OUT_S\n#undef OUT_T\n#undef OSV\n";
}

void ProgramText::op_kernel(const char *file, int32_t op, int32_t out, const OpMacro &op_macro) {
  const std::string stem = kernel_stem(op);
  kernel(file, kernel_section(stem), stem, out, op_macro);
}

void ProgramText::pair(const char *file, const std::string &name, const std::string &stem, int32_t out,
                       const OpMacro &op) {
  for (const char *walk : {"1D", "ND"}) {
    out_ << "#define BP_WALK BP_WALK_" << walk << "\n#define BP_AT(k) BP_AT_" << walk << "(k)\n";
    kernel(file, name, stem + (walk[0] == '1' ? "_1d" : "_nd"), out, op);
    out_ << "#undef BP_WALK\n#undef BP_AT\n";
  }
}

}  // namespace bp_ocl
