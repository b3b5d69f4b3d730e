// bp_conv and bp_conv_transpose (backplane.h, since 1.6): the options
// struct read as far as the caller's struct_size says, the handles looked
// up; the shapes and the window are the dispatcher's to check.
#include <algorithm>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/sized_struct.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

namespace {

const View &arg(bp_tensor h, int32_t op, const char *what) {
  const View *v = handles().get(h);
  if (!v) {
    Error e(BP_ERR_INVALID_HANDLE, std::string(op_name(op)) + ": " + what + " is " +
                                       (h == 0 ? "a null tensor handle" : "not a live tensor (released or never issued)"));
    e.op = op_name(op);
    throw e;
  }
  return *v;
}

struct Options {
  ConvParams params;
  int64_t output_padding[BP_CONV_MAX_RANK] = {};
};

Options read_options(int32_t op, const bp_conv_options *o) {
  Options r;
  if (!o) return r;
  check_struct_size(o->struct_size, BP_CONV_OPTIONS_SIZE_1_6, op_name(op));
  r.params.groups = o->groups;
  for (int32_t i = 0; i < BP_CONV_MAX_RANK; ++i) {
    r.params.stride[i] = o->stride[i];
    r.params.dilation[i] = o->dilation[i];
    r.params.pad_begin[i] = o->padding_begin[i];
    r.params.pad_end[i] = o->padding_end[i];
    r.output_padding[i] = o->output_padding[i];
  }
  return r;
}

// The spatial axes the options speak of: x's rank - 2, when that is one.
int32_t spatial_axes(const View &x) { return std::clamp(x.rank - 2, 0, int32_t(BP_CONV_MAX_RANK)); }

void no_output_padding(const Options &o, int32_t rank) {
  for (int32_t i = 0; i < rank; ++i)
    if (o.output_padding[i] != 0)
      fail(BP_ERR_INVALID_ARGUMENT, "conv: output_padding is bp_conv_transpose's; bp_conv takes 0 (spatial axis " +
                                        std::to_string(i) + " has " + std::to_string(o.output_padding[i]) + ")");
}

// ConvTranspose's result extents: (O - 1) s - pb - pe + d (K - 1) + 1 + output_padding.
void transposed_extents(const View &x, const View &w, const Options &o, int64_t *extents) {
  const int32_t rank = spatial_axes(x);
  if (w.rank != x.rank) return;  // the dispatcher names the rank mismatch
  for (int32_t i = 0; i < rank; ++i) {
    const ConvParams &p = o.params;
    const int64_t op = o.output_padding[i];
    if (op < 0 || (p.stride[i] >= 1 && p.dilation[i] >= 1 && op >= std::max(p.stride[i], p.dilation[i])))
      fail(BP_ERR_INVALID_ARGUMENT, "conv_transpose: output_padding " + std::to_string(op) + " on spatial axis " +
                                        std::to_string(i) + " must be >= 0 and below max(stride " +
                                        std::to_string(p.stride[i]) + ", dilation " + std::to_string(p.dilation[i]) +
                                        ")");
    extents[i] = (x.shape[2 + i] - 1) * p.stride[i] - p.pad_begin[i] - p.pad_end[i] +
                 p.dilation[i] * (w.shape[2 + i] - 1) + 1 + op;
  }
}

}  // namespace

extern "C" {

bp_status bp_conv(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options, bp_tensor *out) {
  const int32_t op = BP_OP_CONV;
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, "conv: out is NULL");
    const View &a = arg(x, op, "the input"), &w = arg(weight, op, "the weight");
    const View *b = bias ? &arg(bias, op, "the bias") : nullptr;
    const Options o = read_options(op, options);
    no_output_padding(o, spatial_axes(a));
    *out = handles().insert(ag::conv(a, w, b, o.params));
  });
}

bp_status bp_conv_out(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options, bp_tensor out) {
  const int32_t op = BP_OP_CONV;
  return guarded([&] {
    const View &a = arg(x, op, "the input"), &w = arg(weight, op, "the weight");
    const View *b = bias ? &arg(bias, op, "the bias") : nullptr;
    const View &o = arg(out, op, "the output");
    const Options opts = read_options(op, options);
    no_output_padding(opts, spatial_axes(a));
    ag::before_write("conv", o, b ? std::initializer_list<const View *>{&a, &w, b}
                                  : std::initializer_list<const View *>{&a, &w});
    dispatch::conv(a, w, b, opts.params, &o);
    ag::wrote(o);
  });
}

bp_status bp_conv_transpose(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options,
                            bp_tensor *out) {
  const int32_t op = BP_OP_CONV_TRANSPOSE;
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, "conv_transpose: out is NULL");
    const View &a = arg(x, op, "the input"), &w = arg(weight, op, "the weight");
    const View *b = bias ? &arg(bias, op, "the bias") : nullptr;
    const Options o = read_options(op, options);
    int64_t extents[BP_CONV_MAX_RANK] = {};
    transposed_extents(a, w, o, extents);
    *out = handles().insert(ag::conv_transpose(a, w, b, o.params, extents));
  });
}

bp_status bp_conv_transpose_out(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options,
                                bp_tensor out) {
  const int32_t op = BP_OP_CONV_TRANSPOSE;
  return guarded([&] {
    const View &a = arg(x, op, "the input"), &w = arg(weight, op, "the weight");
    const View *b = bias ? &arg(bias, op, "the bias") : nullptr;
    const View &o = arg(out, op, "the output");
    const Options opts = read_options(op, options);
    int64_t extents[BP_CONV_MAX_RANK] = {};
    transposed_extents(a, w, opts, extents);
    ag::before_write("conv_transpose", o, b ? std::initializer_list<const View *>{&a, &w, b}
                                            : std::initializer_list<const View *>{&a, &w});
    dispatch::conv_transpose(a, w, b, opts.params, extents, &o);
    ag::wrote(o);
  });
}

}  // extern "C"
