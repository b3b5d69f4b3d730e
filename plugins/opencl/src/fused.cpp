// fused.cpp — execute_fused: refuses what it cannot run before touching
// anything, classifies how each input is walked (the plan, which picks the
// kernel), and launches the kernel with the views' offsets and strides and
// the scalars as arguments.
#include "fused.hpp"

#include <string>
#include <vector>

#include "backplane/sdk/coalesce.h"
#include "buffer.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "fused_source.hpp"
#include "kernel_source.hpp"
#include "platform.hpp"
#include "supports.hpp"
#include "view.hpp"

namespace bp_ocl {

namespace {

// Operators the generator has an expression for (those execute runs with
// a kernel of the Elementwise or Copy family).
bool generator_has(int32_t op) {
  switch (bp_vocab_op_family(op)) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE: return !binary_body(op).empty();
    case BP_OP_FAMILY_UNARY: return !unary_body(op).empty();
    case BP_OP_FAMILY_WHERE:
    case BP_OP_FAMILY_COPY: return true;
    default: return false;
  }
}

void require_runnable(const Device &device, const bp_fused_program &p, const bp_plugin::FusedInfo &info) {
  bp_plugin::require_fused_supported(p, device.name().c_str(), [&](int32_t op, int32_t dtype, int32_t out_dtype) {
    return implements(op, dtype, out_dtype, device.features()) && generator_has(op);
  });
  // An input passed straight to an output needs no instruction, but its
  // kernel still declares the type.
  for (int32_t v = 0; v < info.n_values; ++v)
    if (info.value_dtypes[v] == BP_FLOAT64 && !device.fp64())
      fail(BP_ERR_UNSUPPORTED, "execute_fused: %s has no float64 (cl_khr_fp64 missing, or option fp64 = \"off\")",
           device.name().c_str());
}

// Contiguous when the input's strides are the program shape's C-order
// ones, Scalar when they are 0, on every axis of extent > 1.
Walk classify(const View &in, const View &shape) {
  bool contiguous = true, scalar = true;
  int64_t dense = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    if (shape.shape[d] > 1) {
      contiguous = contiguous && in.strides[d] == dense;
      scalar = scalar && in.strides[d] == 0;
    }
    dense *= shape.shape[d];
  }
  return contiguous ? Walk::Contiguous : scalar ? Walk::Scalar : Walk::Strided;
}

// The strided inputs' shared walk, coalesced over them (bp_sdk_coalesce).
// Appends extents, then each strided input's strides, to `layout`; returns
// the rank.
int32_t strided_walk(const View *in, int32_t n_inputs, const Walk *walks, const View &shape,
                     std::vector<cl_long> &layout) {
  int32_t strided[BP_FUSED_MAX_INPUTS], count = 0;
  for (int32_t k = 0; k < n_inputs; ++k)
    if (walks[k] == Walk::Strided) strided[count++] = k;
  if (count == 0) return 0;
  cl_long extent[BP_MAX_RANK], stride[BP_FUSED_MAX_INPUTS][BP_MAX_RANK];
  const int64_t *in_strides[BP_FUSED_MAX_INPUTS];
  cl_long *out_strides[BP_FUSED_MAX_INPUTS];
  for (int32_t s = 0; s < count; ++s) {
    in_strides[s] = in[strided[s]].strides;
    out_strides[s] = stride[s];
  }
  const int32_t rank = bp_sdk_coalesce(shape.rank, shape.shape, count, in_strides, extent, out_strides);
  layout.insert(layout.end(), extent, extent + rank);
  for (int32_t s = 0; s < count; ++s) layout.insert(layout.end(), stride[s], stride[s] + rank);
  return rank;
}

}  // namespace

void execute_fused(int32_t device_index, const bp_fused_program *program) {
  Backend &owner = backend("execute_fused");
  Device &device = owner.device(device_index, "execute_fused");
  const bp_plugin::FusedInfo info = bp_plugin::check_fused(program, live_buffer_bytes, nullptr);
  const bp_fused_program &p = *program;
  require_runnable(device, p, info);

  View in[BP_FUSED_MAX_INPUTS], out[BP_FUSED_MAX_OUTPUTS];
  for (int32_t k = 0; k < p.n_inputs; ++k)
    in[k] = device_view(p.inputs[k], "execute_fused", ("input " + std::to_string(k)).c_str(), device);
  for (int32_t j = 0; j < p.n_outputs; ++j)
    out[j] = device_view(p.outputs[j], "execute_fused", ("output " + std::to_string(j)).c_str(), device);

  FusedPlan plan;
  plan.program = program;
  plan.fp64 = device.fp64();
  std::vector<cl_long> layout;
  for (int32_t k = 0; k < p.n_inputs; ++k) {
    plan.walks[k] = classify(in[k], out[0]);
    layout.push_back(in[k].offset);
  }
  for (int32_t j = 0; j < p.n_outputs; ++j) layout.push_back(out[j].offset);
  plan.rank = strided_walk(in, p.n_inputs, plan.walks, out[0], layout);

  const cl_long n = info.numel;
  ScalarArg scalars[BP_FUSED_MAX_INSTRS];
  std::vector<KernelArg> args;
  args.reserve(static_cast<size_t>(p.n_outputs + p.n_inputs + 2 + p.n_instrs));
  for (int32_t j = 0; j < p.n_outputs; ++j) args.emplace_back(out[j].mem);
  for (int32_t k = 0; k < p.n_inputs; ++k) args.emplace_back(in[k].mem);
  args.emplace_back(layout.size() * sizeof(cl_long), layout.data());
  args.emplace_back(n);
  for (int32_t k = 0; k < p.n_instrs; ++k)
    if (p.instrs[k].scalar_mode != BP_SCALAR_NONE) {
      // Converted as execute converts attrs.scalar for its kernels.
      scalars[k] = scalar_arg(p.instrs[k].dtype, p.instrs[k].scalar);
      args.emplace_back(scalars[k].size, &scalars[k].value);
    }
  // Each argument may be padded to 8 bytes (pointers, by their 64-bit worst case).
  size_t bytes = 0;
  for (const KernelArg &a : args) bytes += (a.size + 7) / 8 * 8;
  if (bytes > device.info().max_parameter_size)
    fail(BP_ERR_UNSUPPORTED, "execute_fused: the program's %zu bytes of kernel arguments exceed %s's %zu",
         bytes, device.name().c_str(), device.info().max_parameter_size);
  if (n == 0) return;

  const std::string key = fused_key(plan);
  const Device::Lock lock = device.lock();
  const Kernel &kernel =
      device.fused_kernel(lock, key, [&] { return fused_source(plan); }, owner.options().kernel_cache);
  device.launch_per_element(lock, kernel, n, args.data(), args.size());
}

}  // namespace bp_ocl
