// fused_source.cpp — the OpenCL C of a fused program. Each instruction is an
// inline function whose body is the very expression the op-by-op kernels
// use (kernel_source.hpp), with T, UT, IS_NAN and the helper functions
// defined for its operand dtype; the kernel reads every input element once,
// keeps the values in registers as their dtypes store them (a float16 or
// bfloat16 value as its bits, so that each instruction's result is rounded
// as execute would round it into its temporary), and writes the outputs.
#include "fused_source.hpp"

#include <set>
#include <sstream>

#include "dtype.hpp"
#include "kernel_source.hpp"

namespace bp_ocl {

namespace {

template <class T>
void append(std::string &key, const T &value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof value);
}

bool has_scalar(const bp_fused_instr &in) { return in.scalar_mode != BP_SCALAR_NONE; }

std::string value_name(int32_t v) { return "v" + std::to_string(v); }

// The function computing instruction k from its operands.
// It takes its operands in the compute type and returns the result as
// stored, except WHERE, which selects stored values as the op-by-op kernel does.
std::string instr_function(const bp_fused_instr &in, int32_t k) {
  const std::string name = "bp_op" + std::to_string(k);
  const std::string out = dtype_storage_type(in.out_dtype);
  const int32_t family = bp_vocab_op_family(in.op);
  switch (family) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE:
      return "inline " + out + " " + name + "(T x, T y) { return " +
             store_expr(in.out_dtype, binary_body(in.op)) + "; }\n";
    case BP_OP_FAMILY_UNARY:
      return "inline " + out + " " + name + "(T x) { return " + store_expr(in.out_dtype, unary_body(in.op)) +
             "; }\n";
    case BP_OP_FAMILY_WHERE:
      return "inline " + out + " " + name + "(uchar c, " + out + " x, " + out + " y) { return " + where_body() +
             "; }\n";
    default:  // COPY
      return "inline " + out + " " + name + "(T x) { return " +
             store_expr(in.out_dtype, convert_body(in.dtype, in.out_dtype)) + "; }\n";
  }
}

// The instruction functions of every instruction whose operands are
// `dtype`, with that dtype's T, UT, IS_NAN and operator macros and helpers
// (the helpers renamed per dtype: one program may need bp_ipow for int32
// and for int64).
void dtype_block(std::ostringstream &src, const bp_fused_program &p, int32_t dtype) {
  const std::string suffix = std::string("_") + dtype_name(dtype);
  src << "#define T " << dtype_cl_type(dtype) << "\n#define UT " << unsigned_type(dtype) << "\n"
      << nan_test_macro(dtype);
  for (const char *helper : kElementwiseHelpers) src << "#define " << helper << " " << helper << suffix << "\n";
  src << elementwise_ops(dtype);
  for (int32_t k = 0; k < p.n_instrs; ++k)
    if (p.instrs[k].dtype == dtype) src << instr_function(p.instrs[k], k);
  src << elementwise_ops_end(dtype) << "#undef T\n#undef UT\n#undef IS_NAN\n";
  for (const char *helper : kElementwiseHelpers) src << "#undef " << helper << "\n";
}

void layout_struct(std::ostringstream &src, const FusedPlan &plan, int strided) {
  const bp_fused_program &p = *plan.program;
  src << "typedef struct {\n  long offset[" << p.n_inputs + p.n_outputs << "];\n";
  if (plan.rank > 0) {
    src << "  long shape[" << plan.rank << "];\n";
    src << "  long stride[" << strided << "][" << plan.rank << "];\n";
  }
  src << "} bp_fused_layout;\n";
}

void kernel_signature(std::ostringstream &src, const FusedPlan &plan) {
  const bp_fused_program &p = *plan.program;
  src << "__kernel void " << kFusedKernel << "(";
  for (int32_t j = 0; j < p.n_outputs; ++j)
    src << "__global " << dtype_storage_type(p.outputs[j].dtype) << " *o" << j << ", ";
  for (int32_t k = 0; k < p.n_inputs; ++k)
    src << "__global const " << dtype_storage_type(p.inputs[k].dtype) << " *in" << k << ", ";
  src << "bp_fused_layout L, long n";
  for (int32_t k = 0; k < p.n_instrs; ++k)
    if (has_scalar(p.instrs[k])) src << ", " << dtype_cl_type(p.instrs[k].dtype) << " s" << k;
  src << ") {\n";
}

// Offsets of the strided inputs' element i: the walk of elementwise
// kernels (bp_offsets), over the axes the strided inputs share.
void strided_walk(std::ostringstream &src, const FusedPlan &plan) {
  const bp_fused_program &p = *plan.program;
  int g = 0;
  for (int32_t k = 0; k < p.n_inputs; ++k)
    if (plan.walks[k] == Walk::Strided) src << "    long at" << k << " = L.offset[" << k << "];\n";
  src << "    long r_ = i;\n";
  src << "    for (int d = " << plan.rank - 1 << "; d >= 0; --d) {\n";
  src << "      const long e = r_ % L.shape[d];\n      r_ /= L.shape[d];\n";
  for (int32_t k = 0; k < p.n_inputs; ++k)
    if (plan.walks[k] == Walk::Strided) src << "      at" << k << " += e * L.stride[" << g++ << "][d];\n";
  src << "    }\n";
}

std::string input_at(const FusedPlan &plan, int32_t k) {
  switch (plan.walks[k]) {
    case Walk::Contiguous: return "L.offset[" + std::to_string(k) + "] + i";
    case Walk::Scalar: return "L.offset[" + std::to_string(k) + "]";
    case Walk::Strided: break;
  }
  return "at" + std::to_string(k);
}

// The operands in the compute type (a scalar argument already is), or
// for WHERE as stored.
std::string operands(const bp_fused_instr &in, int32_t k) {
  const std::string s = "s" + std::to_string(k);
  if (bp_vocab_op_family(in.op) == BP_OP_FAMILY_WHERE)
    return value_name(in.args[0]) + ", " + value_name(in.args[1]) + ", " + value_name(in.args[2]);
  const std::string first = load_expr(in.dtype, value_name(in.args[0]));
  switch (in.scalar_mode) {
    case BP_SCALAR_RHS: return first + ", " + s;
    case BP_SCALAR_LHS: return s + ", " + first;
    default: break;
  }
  std::string text = first;
  for (int a = 1; a < 3 && in.args[a] >= 0; ++a) text += ", " + load_expr(in.dtype, value_name(in.args[a]));
  return text;
}

}  // namespace

std::string fused_key(const FusedPlan &plan) {
  const bp_fused_program &p = *plan.program;
  std::string key;
  key.reserve(static_cast<size_t>(16 + 2 * p.n_inputs + 28 * p.n_instrs + 4 * p.n_outputs));
  append(key, p.n_inputs);
  append(key, p.n_instrs);
  append(key, p.n_outputs);
  append(key, plan.rank);
  append(key, plan.fp64);
  for (int32_t k = 0; k < p.n_inputs; ++k) {
    append(key, static_cast<char>(p.inputs[k].dtype));
    append(key, plan.walks[k]);
  }
  for (int32_t k = 0; k < p.n_instrs; ++k) {
    const bp_fused_instr &in = p.instrs[k];
    for (int32_t field : {in.op, in.dtype, in.out_dtype, in.scalar_mode, in.args[0], in.args[1], in.args[2]})
      append(key, field);
  }
  for (int32_t j = 0; j < p.n_outputs; ++j) append(key, p.output_values[j]);
  return key;
}

std::string fused_source(const FusedPlan &plan) {
  const bp_fused_program &p = *plan.program;
  std::ostringstream src;
  if (plan.fp64) src << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  // As in every program of this plugin: no contraction into fma, so each
  // operation rounds as the op-by-op kernels' do.
  src << "#pragma OPENCL FP_CONTRACT OFF\n" << half_conversions_source(plan.fp64);
  std::set<int32_t> dtypes;
  for (int32_t k = 0; k < p.n_instrs; ++k) dtypes.insert(p.instrs[k].dtype);
  for (int32_t dtype : dtypes) dtype_block(src, p, dtype);

  int strided = 0;
  for (int32_t k = 0; k < p.n_inputs; ++k) strided += plan.walks[k] == Walk::Strided;
  layout_struct(src, plan, strided);
  kernel_signature(src, plan);
  // A work-item per element (Device::launch_per_element).
  src << "  const long i = get_global_id(0);\n  if (i < n) {\n";
  if (plan.rank > 0) strided_walk(src, plan);
  // Every input element is read before any output element is written: an
  // output may be the very same view as an input (plugin.h).
  for (int32_t k = 0; k < p.n_inputs; ++k)
    src << "    const " << dtype_storage_type(p.inputs[k].dtype) << " " << value_name(k) << " = in" << k << "["
        << input_at(plan, k) << "];\n";
  for (int32_t k = 0; k < p.n_instrs; ++k) {
    const bp_fused_instr &in = p.instrs[k];
    src << "    const " << dtype_storage_type(in.out_dtype) << " " << value_name(p.n_inputs + k) << " = bp_op" << k
        << "(" << operands(in, k) << ");\n";
  }
  for (int32_t j = 0; j < p.n_outputs; ++j)
    src << "    o" << j << "[L.offset[" << p.n_inputs + j << "] + i] = " << value_name(p.output_values[j]) << ";\n";
  src << "  }\n}\n";
  return src.str();
}

}  // namespace bp_ocl
