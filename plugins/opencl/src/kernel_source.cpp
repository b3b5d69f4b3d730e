// kernel_source.cpp — the OpenCL C of each op-by-op program, per (family,
// dtype): the family files of kernels/ (embedded at build time) with their
// templates instantiated for the dtype and the operators the capability
// table declares (plugins/opencl/README.md). What a kernel computes is the
// operator's macro of backplane/kernels/elementwise_ops.h or the template's
// own text; this file only chooses the kernels and binds their parameters.
#include "kernel_source.hpp"

#include "backplane/kernels/op_table.h"
#include "dtype.hpp"
#include "embedded_texts.hpp"
#include "program_text.hpp"
#include "softmax_source.hpp"
#include "supports.hpp"
#include "topk.hpp"

namespace bp_ocl {

// ---------------------------------------------------------------------------
// Operator bodies: the macros of backplane/kernels/elementwise_ops.h, shared by
// the op-by-op kernels and the fused ones (fused_source.cpp), so that both
// compute the same bits.
// ---------------------------------------------------------------------------

namespace {

std::string op_macro(int32_t op, const char *operands) {
  switch (op) {
#define BP_OCL_OP_MACRO_(id, ...) \
  case BP_OP_##id: return std::string("BP_EW_" #id "(BP_EW_KIND, ") + operands + ")";
    BP_KERNEL_UNARY_OPS(BP_OCL_OP_MACRO_)
    BP_KERNEL_UNARY_BOOL_OPS(BP_OCL_OP_MACRO_)
    BP_KERNEL_BINARY_OPS(BP_OCL_OP_MACRO_)
    BP_KERNEL_COMPARE_OPS(BP_OCL_OP_MACRO_)
#undef BP_OCL_OP_MACRO_
    default: return "";
  }
}

const char *kind_macro(int32_t dtype) {
  return dtype_is_float(dtype) ? "BP_KIND_FLOAT" : dtype == BP_BOOL ? "BP_KIND_BOOL" : "BP_KIND_INT";
}

}  // namespace

std::string binary_body(int32_t op) {
  const int32_t family = bp_vocab_op_family(op);
  return family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE ? op_macro(op, "x, y") : "";
}

std::string unary_body(int32_t op) {
  return bp_vocab_op_family(op) == BP_OP_FAMILY_UNARY ? op_macro(op, "x") : "";
}

std::string where_body() { return "BP_EW_WHERE(c, x, y)"; }

std::string elementwise_ops(int32_t dtype) {
  return std::string("#define ") + kind_macro(dtype) + " 1\n" + kElementwiseClText + "\n";
}

std::string elementwise_ops_end(int32_t dtype) {
  return std::string("#undef ") + kind_macro(dtype) + "\n#undef BP_EW_KIND\n";
}

// COPY's conversion (plugin.h: a C cast, except that bool is x != 0 and
// float to integer saturates with NaN to 0, which is what OpenCL's _sat
// conversions do) from a value of `from`'s compute type to `to`'s. A half
// result is a float that the store rounds once: from float64 and from
// 32- and 64-bit integers it is rounded to odd first (half.h), so that the
// two roundings give the value's own nearest half.
std::string convert_body(int32_t from, int32_t to) {
  if (to == BP_BOOL) return "((uchar)((x) != 0))";
  if (dtype_is_float(from) && dtype_is_integer(to))
    return std::string("convert_") + dtype_cl_type(to) + "_sat_rtz(x)";
  if (dtype_is_half(to)) {
    if (from == BP_FLOAT64) return "bp_f32_round_odd_from_f64(x)";
    if (from == BP_INT32 || from == BP_INT64) return "bp_f32_round_odd_from_i64((long)(x))";
  }
  return std::string("((") + dtype_cl_type(to) + ")(x))";
}

std::string unsigned_type(int32_t dtype) {
  switch (dtype) {
    case BP_INT32: return "uint";
    case BP_INT64: return "ulong";
    // 8- and 16-bit integers wrap in uint: uchar or ushort operands would
    // be promoted to int, where a product can overflow.
    case BP_INT8:
    case BP_UINT8:
    case BP_INT16: return "uint";
    default: return dtype_cl_type(dtype);  // floats and bool never wrap
  }
}

std::string nan_test_macro(int32_t dtype) {
  return dtype_is_float(dtype) ? "#define IS_NAN(x) isnan(x)\n" : "#define IS_NAN(x) 0\n";
}

namespace {

// The vocabulary's dtypes and operators.
#define BP_OCL_DTYPE_(id, value, name, size, kind) value,
const int32_t kAllDtypes[] = {BP_DTYPE_LIST(BP_OCL_DTYPE_)};
#undef BP_OCL_DTYPE_
#define BP_OCL_OP_(id, value, name, family, dtypes, out) value,
const int32_t kAllOps[] = {BP_OP_LIST(BP_OCL_OP_)};
#undef BP_OCL_OP_

// The reductions of collective() with a kernel (collective.cl's sections).
constexpr int32_t kCollectiveOps[] = {BP_REDUCE_SUM, BP_REDUCE_MEAN, BP_REDUCE_MAX, BP_REDUCE_MIN};

// Every binary, comparison and unary operator the capability table declares
// for `dtype`; one without an expression above gets no kernel (so execute
// reports the missing kernel by name, and the rest of the program builds).
void elementwise_family(ProgramText &src, const SourceOptions &options) {
  const int32_t dtype = src.dtype();
  src.raw(elementwise_ops(dtype));
  for (int32_t op : kAllOps) {
    const int32_t family = bp_vocab_op_family(op);
    if (family == BP_OP_FAMILY_UNARY) {
      const int32_t out = bp_vocab_out_dtype(op, dtype);  // bool for ISNAN and ISINF
      const std::string body = unary_body(op);
      if (!body.empty() && implements(op, dtype, out, options))
        src.pair(kMapCl, "BP_MAP_UNARY", kernel_stem(op), out, {"(x)", body});
    } else if (family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE) {
      const int32_t out = bp_vocab_out_dtype(op, dtype);
      const std::string body = binary_body(op);
      if (!body.empty() && implements(op, dtype, out, options))
        src.pair(kMapCl, "BP_MAP_BINARY", kernel_stem(op), out, {"(x, y)", body});
    }
  }
  if (implements(BP_OP_WHERE, dtype, dtype, options))
    src.pair(kMapCl, "BP_MAP_WHERE", kernel_stem(BP_OP_WHERE), 0, {"(c, x, y)", where_body()});
}

void copy_family(ProgramText &src, const SourceOptions &options) {
  for (int32_t to : kAllDtypes)
    if (implements(BP_OP_COPY, src.dtype(), to, options))
      src.pair(kMapCl, "BP_MAP_UNARY", copy_stem(to), to, {"(x)", convert_body(src.dtype(), to)});
}

void create_family(ProgramText &src, const SourceOptions &options) {
  const int32_t dtype = src.dtype();
  const auto each = [&](int32_t op, const OpMacro &op_macro) {
    if (implements(op, dtype, dtype, options))
      src.pair(kCreationCl, kernel_section(kernel_stem(op)), kernel_stem(op), 0, op_macro);
  };
  each(BP_OP_FILL, {});
  each(BP_OP_ARANGE, {"(x)", convert_body(BP_FLOAT64, dtype)});  // x is start + i * step
  if (implements(BP_OP_RANDOM_UNIFORM, dtype, dtype, options) ||
      implements(BP_OP_RANDOM_NORMAL, dtype, dtype, options)) {
    if (dtype == BP_FLOAT64) src.raw("#define BP_RANDOM_F64 1\n");
    src.raw(kRandomHText);
    src.section(kCreationCl, "BP_RANDOM_UNIT");
  }
  each(BP_OP_RANDOM_UNIFORM, {});
  each(BP_OP_RANDOM_NORMAL, {});
}

// The output dtype of SUM, PROD and CUMSUM (plugin.h).
int32_t sum_dtype(int32_t dtype) { return dtype_is_float(dtype) ? dtype : BP_INT64; }

// One kernel per reduction the capability table declares for the dtype
// (bool has SUM alone), each into its vocabulary output dtype.
void reduce_family(ProgramText &src, const SourceOptions &options) {
  const int32_t dtype = src.dtype();
  src.raw("#define BP_GROUP_MAX " + std::to_string(kReduceGroupMax) + "\n");
  src.section(kReductionCl, "BP_REDUCE_DEFINITIONS");
  for (int32_t op : kAllOps) {
    if (bp_vocab_op_family(op) != BP_OP_FAMILY_REDUCE) continue;
    const int32_t out = bp_vocab_out_dtype(op, dtype);
    if (implements(op, dtype, out, options)) src.op_kernel(kReductionCl, op, out);
  }
}

void matmul_family(ProgramText &src) { src.op_kernel(kMatmulCl, BP_OP_MATMUL); }

void scan_family(ProgramText &src) { src.op_kernel(kScanCl, BP_OP_CUMSUM, sum_dtype(src.dtype())); }

void collective_family(ProgramText &src) {
  for (int32_t op : kCollectiveOps)
    if (bp_vocab_dtype_in_set(src.dtype(), bp_vocab_reduce_op_dtypes(op)))
      src.kernel(kCollectiveCl, kernel_section(collective_stem(op)), collective_stem(op));
}

void index_family(ProgramText &src, const SourceOptions &options) {
  src.section(kIndexingCl, "BP_INDEX_DEFINITIONS");
  src.op_kernel(kIndexingCl, BP_OP_GATHER_ND);
  src.op_kernel(kIndexingCl, BP_OP_SCATTER_ND);
  if (!implements(BP_OP_SCATTER_ADD_ND, src.dtype(), src.dtype(), options)) return;
  src.section(kIndexingCl, "BP_ATOMIC_ADD");
  src.op_kernel(kIndexingCl, BP_OP_SCATTER_ADD_ND);
}

void normalize_family(ProgramText &src) {
  src.raw("#define BP_GROUP_MAX " + std::to_string(kReduceGroupMax) + "\n");
  src.kernel(kNormalizeCl, "BP_NORMALIZE", "bp_normalize");
}

}  // namespace

std::string kernel_stem(int32_t op) {
  const char *name = bp_plugin::op_name(op);
  return bp_vocab_op_family(op) == BP_OP_FAMILY_REDUCE ? std::string("reduce_") + name : name;
}

std::string collective_stem(int32_t reduce_op) {
  const char *name = bp_vocab_reduce_op_name(reduce_op);
  return std::string("collective_") + (name ? name : "unknown");
}

bool collective_implements(int32_t reduce_op) {
  for (int32_t op : kCollectiveOps)
    if (op == reduce_op) return true;
  return false;
}

std::string copy_stem(int32_t out_dtype) {
  return kernel_stem(BP_OP_COPY) + "_to_" + dtype_name(out_dtype);
}

const char *family_name(Family family) {
  switch (family) {
    case Family::Elementwise: return "elementwise";
    case Family::Copy: return "copy";
    case Family::Create: return "creation";
    case Family::Reduce: return "reduction";
    case Family::Matmul: return "matmul";
    case Family::Scan: return "scan";
    case Family::Index: return "indexing";
    case Family::Collective: return "collective";
    case Family::Softmax: return "softmax";
    case Family::Topk: return "topk";
    case Family::Normalize: return "normalisation";
    case Family::Conv: return "convolution";
    case Family::Pool: return "pooling";
  }
  return "?";
}

std::string kernel_source(Family family, int32_t dtype, const SourceOptions &options) {
  ProgramText src(dtype, options);
  switch (family) {
    case Family::Elementwise: elementwise_family(src, options); break;
    case Family::Copy: copy_family(src, options); break;
    case Family::Create: create_family(src, options); break;
    case Family::Reduce: reduce_family(src, options); break;
    case Family::Matmul: matmul_family(src); break;
    case Family::Scan: scan_family(src); break;
    case Family::Index: index_family(src, options); break;
    case Family::Collective: collective_family(src); break;
    case Family::Softmax: src.raw(softmax_source()); break;
    case Family::Topk: src.raw(topk_source(dtype)); break;
    case Family::Normalize: normalize_family(src); break;
    case Family::Conv: src.raw(kConvCl); break;
    case Family::Pool: src.raw(pool_source(dtype)); break;
  }
  return src.str();
}

}  // namespace bp_ocl
