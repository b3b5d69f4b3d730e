#include "fused_source.hpp"

#include <string>

#include "backplane/plugin_sdk.hpp"
#include "backplane/sdk/coalesce.h"
#include "backplane/kernels/op_table.h"

namespace bp_cuda {

namespace {

// C-order strides of `shape` (an axis of extent 0 counts as 1; an empty
// program launches nothing anyway).
void dense_strides(const bp_plugin_tensor &t, int64_t *strides) {
  int64_t stride = 1;
  for (int32_t d = t.rank; d-- > 0;) {
    strides[d] = stride;
    stride *= t.shape[d] > 0 ? t.shape[d] : 1;
  }
}

bool is_dense(const bp_plugin_tensor &in, const int64_t *dense) {
  for (int32_t d = 0; d < in.rank; ++d)
    if (in.shape[d] != 1 && in.strides[d] != dense[d]) return false;
  return true;
}

// The element type's name in memory (the kernel's pointers).
const char *storage_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float";
    case BP_FLOAT64: return "double";
    case BP_INT32: return "int32_t";
    case BP_INT64: return "int64_t";
    case BP_BOOL: return "bp_kernels::boolean";
    case BP_FLOAT16: return "bp_plugin::float16";
    case BP_BFLOAT16: return "bp_plugin::bfloat16";
    case BP_INT8: return "int8_t";
    case BP_UINT8: return "uint8_t";
    case BP_INT16: return "int16_t";
    default: bp_plugin::fail(BP_ERR_UNSUPPORTED, "cuda: fused program: no element type for dtype %d", dtype);
  }
}

// The 8- and 16-bit dtypes compute in a wider type (narrow_types.hpp):
// their values live in registers widened, every instruction's result is
// narrowed (rounded or wrapped) and widened again, so that it holds exactly
// what execute would have stored.
bool is_narrow(int32_t dtype) { return dtype != BP_BOOL && bp_vocab_dtype_size(dtype) < 4; }

// The type a value of the dtype is held in (narrow_types.hpp's compute_t).
const char *value_type(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT16:
    case BP_BFLOAT16: return "float";
    case BP_INT8:
    case BP_UINT8:
    case BP_INT16: return "int32_t";
    default: return storage_name(dtype);
  }
}

// A stored element of `dtype` as a value, and back.
std::string widened(int32_t dtype, const std::string &stored) {
  return is_narrow(dtype) ? "bp_cuda::widen(" + stored + ")" : stored;
}
std::string narrowed(int32_t dtype, const std::string &value) {
  return is_narrow(dtype) ? std::string("bp_cuda::narrow<") + storage_name(dtype) + ">(" + value + ")" : value;
}

// The bp_kernels functor that execute's kernel for `op` instantiates
// (op_table.h's, and WHERE's), or nullptr.
const char *functor(int32_t op) {
  switch (op) {
#define BP_CUDA_FUNCTOR_NAME_(id, functor) \
  case BP_OP_##id: return #functor;
#define BP_CUDA_FUNCTOR_NAME_ROW_(id, functor, ...) BP_CUDA_FUNCTOR_NAME_(id, functor)
    BP_KERNEL_UNARY_OPS(BP_CUDA_FUNCTOR_NAME_ROW_)
    BP_KERNEL_UNARY_BOOL_OPS(BP_CUDA_FUNCTOR_NAME_)
    BP_KERNEL_BINARY_OPS(BP_CUDA_FUNCTOR_NAME_ROW_)
    BP_KERNEL_COMPARE_OPS(BP_CUDA_FUNCTOR_NAME_)
#undef BP_CUDA_FUNCTOR_NAME_ROW_
#undef BP_CUDA_FUNCTOR_NAME_
    case BP_OP_WHERE: return "Where";
    default: return nullptr;
  }
}

std::string value(int32_t v) { return "v" + std::to_string(v); }

// The expression of instruction k (its operands are values already defined).
std::string expression(const bp_fused_instr &in, int32_t k) {
  if (in.op == BP_OP_COPY) {
    if (!is_narrow(in.dtype) && !is_narrow(in.out_dtype))
      return std::string("bp_kernels::Cast<") + storage_name(in.out_dtype) + ">{}(" + value(in.args[0]) + ")";
    return widened(in.out_dtype, std::string("bp_cuda::Convert<") + storage_name(in.out_dtype) + ">{}(" +
                                     narrowed(in.dtype, value(in.args[0])) + ")");
  }
  const char *f = functor(in.op);
  if (!f)
    bp_plugin::fail(BP_ERR_UNSUPPORTED, "cuda: fused instruction %d: no generated code for %s", k, bp_plugin::op_name(in.op));
  std::string operands;
  if (in.scalar_mode == BP_SCALAR_RHS) {
    operands = value(in.args[0]) + ", s" + std::to_string(k);
  } else if (in.scalar_mode == BP_SCALAR_LHS) {
    operands = "s" + std::to_string(k) + ", " + value(in.args[0]);
  } else {
    const int32_t arity = bp_vocab_family_arity(bp_vocab_op_family(in.op));
    for (int32_t i = 0; i < arity; ++i) operands += (i ? ", " : "") + value(in.args[i]);
  }
  const std::string result = std::string("bp_kernels::") + f + "{}(" + operands + ")";
  return widened(in.out_dtype, narrowed(in.out_dtype, result));
}

}  // namespace

FusedLayout plan_fused_layout(const bp_fused_program &p) {
  FusedLayout layout;
  const bp_plugin_tensor &shape = p.outputs[0];
  int64_t dense[BP_MAX_RANK] = {};
  dense_strides(shape, dense);
  layout.numel = 1;
  for (int32_t d = 0; d < shape.rank; ++d) layout.numel *= shape.shape[d];
  for (int32_t i = 0; i < p.n_inputs; ++i)
    layout.strided_slot[i] = is_dense(p.inputs[i], dense) ? -1 : layout.n_strided++;
  // Coalesced over the strided inputs only: dense ones are indexed by position.
  static_assert(BP_FUSED_MAX_INPUTS <= BP_SDK_COALESCE_MAX_OPERANDS, "inputs bp_sdk_coalesce walks");
  const int64_t *in_strides[BP_FUSED_MAX_INPUTS];
  int64_t *out_strides[BP_FUSED_MAX_INPUTS];
  for (int32_t i = 0; i < p.n_inputs; ++i) {
    const int32_t s = layout.strided_slot[i];
    if (s < 0) continue;
    in_strides[s] = p.inputs[i].strides;
    out_strides[s] = layout.strides[s];
  }
  layout.rank = bp_sdk_coalesce(shape.rank, shape.shape, layout.n_strided, in_strides, layout.shape, out_strides);
  return layout;
}

std::string fused_source(const bp_fused_program &p, const FusedLayout &layout) {
  const std::string rank = std::to_string(BP_MAX_RANK);
  const std::string rows = std::to_string(layout.n_strided > 0 ? layout.n_strided : 1);
  std::string s =
      "#include \"backplane/kernels/elementwise.hpp\"\n"
      "#include \"narrow_types.hpp\"\n"
      "struct FusedShape {\n"
      "  int64_t numel, rank, shape[" + rank + "], strides[" + rows + "][" + rank + "];\n"
      "};\n"
      "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kFusedThreads) + ") " + kFusedKernelName +
      "(const __grid_constant__ FusedShape shape";
  for (int32_t i = 0; i < p.n_inputs; ++i)
    s += ", const " + std::string(storage_name(p.inputs[i].dtype)) + " *in" + std::to_string(i);
  for (int32_t j = 0; j < p.n_outputs; ++j)
    s += ", " + std::string(storage_name(p.outputs[j].dtype)) + " *out" + std::to_string(j);
  for (int32_t k = 0; k < p.n_instrs; ++k)
    if (p.instrs[k].scalar_mode != BP_SCALAR_NONE)
      s += ", const " + std::string(value_type(p.instrs[k].dtype)) + " s" + std::to_string(k);
  s += ") {\n"
       "  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;\n"
       "  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < shape.numel; e += "
       "stride) {\n";
  if (layout.n_strided > 0) {
    // index_math.hpp's element_offsets: the outermost axis takes what is
    // left of the index, so rank 1 costs no division.
    const std::string n = std::to_string(layout.n_strided);
    s += "    int64_t offset[" + n + "] = {};\n"
         "    int64_t i = e;\n"
         "    for (int64_t d = shape.rank - 1; d > 0; --d) {\n"
         "      const int64_t rest = i / shape.shape[d];\n"
         "      const int64_t index = i - rest * shape.shape[d];\n"
         "      i = rest;\n"
         "      for (int k = 0; k < " + n + "; ++k) offset[k] += index * shape.strides[k][d];\n"
         "    }\n"
         "    if (shape.rank > 0)\n"
         "      for (int k = 0; k < " + n + "; ++k) offset[k] += i * shape.strides[k][0];\n";
  }
  // Every load before any store: an output may be the very view of an input.
  // Loads come first, so an input read by nothing is not loaded.
  uint8_t live[BP_SDK_FUSED_MAX_VALUES];
  bp_sdk_fused_live(&p, live);
  for (int32_t i = 0; i < p.n_inputs; ++i) {
    if (!live[i]) continue;
    const int32_t slot = layout.strided_slot[i];
    const std::string at = slot < 0 ? "e" : "offset[" + std::to_string(slot) + "]";
    s += "    const " + std::string(value_type(p.inputs[i].dtype)) + " " + value(i) + " = " +
         widened(p.inputs[i].dtype, "in" + std::to_string(i) + "[" + at + "]") + ";\n";
  }
  for (int32_t k = 0; k < p.n_instrs; ++k) {
    // Generated for dead instructions too, so that one without code is
    // refused whether or not an output needs it.
    const std::string e = expression(p.instrs[k], k);
    const int32_t v = p.n_inputs + k;
    if (live[v])
      s += "    const " + std::string(value_type(p.instrs[k].out_dtype)) + " " + value(v) + " = " + e + ";\n";
  }
  for (int32_t j = 0; j < p.n_outputs; ++j)
    s += "    out" + std::to_string(j) + "[e] = " + narrowed(p.outputs[j].dtype, value(p.output_values[j])) + ";\n";
  s += "  }\n}\n";
  return s;
}

}  // namespace bp_cuda
