// conv.cpp — the convolutions by im2col and CLBlast GEMM (conv.cl has the
// kernels). Everything is computed in float32 (float16 and bfloat16
// widened exactly, rounded once when stored) or float64: per group and per
// launch of batch items, the windows of x are unrolled into a column
// matrix [C_in/G * taps, items * O], one GEMM contracts it with the
// group's weights, and a store kernel adds the bias and writes the strided
// result. CONV_TRANSPOSE runs the GEMM the other way (W^T dy) and gathers
// the columns back into dx (col2im); CONV_WEIGHT_GRAD multiplies dy by the
// columns' transpose, adding over the launches. Those two read a dense dy
// of the compute dtype in place, one batch item per launch; another dy is
// copied channels first for each launch.
#include <clblast.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "backplane/sdk/coalesce.h"
#include "backplane/sdk/conv.h"
#include "buffer.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "temporaries.hpp"

namespace bp_ocl {

namespace {

// Mirrors bp_conv_layout in conv.cl.
struct ClConvLayout {
  cl_long in_ext[3], out_ext[3], taps_ext[3], stride[3], dilation[3], pad[3];
  cl_long act_stride[5];
  cl_long act_offset;
  cl_long channels;
  cl_long taps, in_size, out_size, count;
  cl_long bias_stride, bias_offset, has_bias;
  cl_long n;
};
static_assert(sizeof(ClConvLayout) == 33 * sizeof(cl_long), "ClConvLayout must have no padding");

// Column bytes one launch may take: enough batch items for a large GEMM,
// few enough to keep the scratch small.
constexpr int64_t kColumnBudget = int64_t(64) << 20;

// The view as a dense matrix of the compute dtype: itself, or a converted copy.
View dense_operand(Device &device, const Device::Lock &lock, Temporaries &temps, const View &v, int32_t compute) {
  if (v.dtype == compute && bp_sdk_is_dense(v.rank, v.shape, v.strides)) return v;
  View copy = temps.dense(device, compute, v.rank, v.shape);
  run_copy(device, lock, v, copy);
  return copy;
}

// c (m x n, row-major, ld n) = beta c + op(a) op(b), k = 0 giving beta c.
void gemm(Device &device, const Device::Lock &lock, int32_t dtype, bool ta, bool tb, int64_t m, int64_t n,
          int64_t k, const View &a, int64_t a_off, const View &b, int64_t b_off, double beta, const View &c,
          int64_t c_off) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0) {
      const int64_t total = m * n;
      View part = dense_view(c.mem, dtype, 1, &total);
      part.offset = c.offset + c_off;
      run_create(device, lock, BP_OP_FILL, bp_plugin::Attrs{}, part);
    }
    return;
  }
  using clblast::Transpose;
  const Transpose at = ta ? Transpose::kYes : Transpose::kNo, bt = tb ? Transpose::kYes : Transpose::kNo;
  const size_t lda = size_t(ta ? m : k), ldb = size_t(tb ? k : n), ldc = size_t(n);
  cl_command_queue queue = device.queue(lock);
  cl_event event = nullptr;
  const auto layout = clblast::Layout::kRowMajor;
  const clblast::StatusCode status =
      dtype == BP_FLOAT64
          ? clblast::Gemm<double>(layout, at, bt, size_t(m), size_t(n), size_t(k), 1.0, a.mem,
                                  size_t(a.offset + a_off), lda, b.mem, size_t(b.offset + b_off), ldb, beta, c.mem,
                                  size_t(c.offset + c_off), ldc, &queue, &event)
          : clblast::Gemm<float>(layout, at, bt, size_t(m), size_t(n), size_t(k), 1.0f, a.mem,
                                 size_t(a.offset + a_off), lda, b.mem, size_t(b.offset + b_off), ldb, float(beta),
                                 c.mem, size_t(c.offset + c_off), ldc, &queue, &event);
  if (status != clblast::StatusCode::kSuccess) {
    if (event) clReleaseEvent(event);
    const bool memory = status == clblast::StatusCode::kTempBufferAllocFailure ||
                        status == clblast::StatusCode::kOpenCLOutOfHostMemory;
    fail(memory ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND, "CLBlast %sgemm of a convolution failed on %s: status %d",
         dtype == BP_FLOAT64 ? "D" : "S", device.name().c_str(), int(status));
  }
  device.enqueued(lock, event);
}

// The problem's flattened extents and the launch layouts built from it.
struct Problem {
  const bp_sdk_conv &g;
  int64_t in_group, out_group, taps = 1, in_size = 1, out_size = 1, depth;
  explicit Problem(const bp_sdk_conv &g_) : g(g_), in_group(g_.c_in / g_.groups), out_group(g_.c_out / g_.groups) {
    for (int i = 0; i < BP_WINDOW_MAX_RANK; ++i) taps *= g.kernel[i], in_size *= g.in[i], out_size *= g.out[i];
    depth = in_group * taps;
  }

  // The layout of a launch over batch items [first, first + count) of group
  // `group` of the strided view `act` (channels per group `channels`).
  ClConvLayout layout(const View &act, int64_t first, int64_t count, int64_t group, int64_t channels) const {
    ClConvLayout L{};
    for (int i = 0; i < 3; ++i) {
      L.in_ext[i] = g.in[i], L.out_ext[i] = g.out[i], L.taps_ext[i] = g.kernel[i], L.stride[i] = g.stride[i];
      L.dilation[i] = g.dilation[i], L.pad[i] = g.pad_begin[i];
    }
    L.act_stride[0] = act.strides[0];
    L.act_stride[1] = act.strides[1];
    for (int i = 0; i < 3; ++i) L.act_stride[2 + i] = i < g.rank ? act.strides[2 + i] : 0;
    L.act_offset = act.offset + first * act.strides[0] + group * channels * act.strides[1];
    L.channels = channels;
    L.taps = taps, L.in_size = in_size, L.out_size = out_size, L.count = count;
    return L;
  }
};

// x[b, c, o...] of a group as a dense [channels, count, O...] copy in the
// compute dtype: the GEMM operand whose rows are channels.
View channels_first(Device &device, const Device::Lock &lock, Temporaries &temps, const View &v, int64_t first,
                    int64_t count, int64_t group, int64_t channels, int32_t compute) {
  View part = v;
  part.offset = v.offset + first * v.strides[0] + group * channels * v.strides[1];
  part.shape[0] = channels, part.strides[0] = v.strides[1];
  part.shape[1] = count, part.strides[1] = v.strides[0];
  part.numel = 1;
  for (int d = 0; d < part.rank; ++d) part.numel *= part.shape[d];
  View copy = temps.dense(device, compute, part.rank, part.shape);
  run_copy(device, lock, part, copy);
  return copy;
}

}  // namespace

void run_conv(Device &device, const Device::Lock &lock, int32_t op, const bp_op_attrs *attrs,
              const bp_plugin_tensor *inputs, const bp_plugin_tensor *output, const View *in, const View &out) {
  char message[512];
  bp_sdk_conv g;
  const bp_status s = bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), inputs, output, &g, message, sizeof message);
  if (s != BP_OK) fail(s, "%s", message);
  if (out.numel == 0) return;
  const Problem p(g);
  const int32_t compute = out.dtype == BP_FLOAT64 ? BP_FLOAT64 : BP_FLOAT32;
  const int64_t size = compute == BP_FLOAT64 ? 8 : 4;
  Temporaries temps;
  const int64_t chunk = std::clamp<int64_t>(kColumnBudget / std::max<int64_t>(p.depth * p.out_size * size, 1), 1,
                                            std::max<int64_t>(g.n, 1));
  const bool has_bias = !bp_sdk_absent(&inputs[2]);
  const View &bias = has_bias ? in[2] : out;  // any buffer stands in for an absent bias
  auto launch = [&](const char *name, int64_t n, const std::vector<KernelArg> &args) {
    if (n == 0) return;
    const Kernel &k = device.kernel(lock, Family::Conv, out.dtype, name);
    device.launch_per_element(lock, k, n, args.data(), args.size());
  };
  // col of L's batch items (conv_im2col: one work-item per line).
  auto im2col = [&](ClConvLayout &L, const View &col, const View &x) {
    L.n = p.depth * L.count * L.out_ext[0];
    launch("conv_im2col", L.n, {col.mem, x.mem, L});
  };
  // A store's bias: its channels from `first` on.
  auto with_bias = [&](ClConvLayout &L, int64_t first) {
    L.has_bias = has_bias;
    L.bias_stride = has_bias ? bias.strides[0] : 0;
    L.bias_offset = has_bias ? bias.offset + first * bias.strides[0] : 0;
  };
  // dy's rows for the GEMMs of the gradients (CONV_WEIGHT_GRAD,
  // CONV_TRANSPOSE): a dense dy of the compute dtype is an operand as it
  // is, one batch item per launch (dy_step 1); any other view is copied
  // channels first per launch of dy_step items. dy_rows gives the operand
  // of items [first, first + count) of `group` and the element its rows
  // start at.
  const View &dy = in[op == BP_OP_CONV_WEIGHT_GRAD ? 1 : 0];
  const bool dy_direct = dy.dtype == compute && bp_sdk_is_dense(dy.rank, dy.shape, dy.strides);
  const int64_t dy_step = dy_direct ? 1 : chunk;
  auto dy_rows = [&](int64_t first, int64_t count, int64_t group) -> std::pair<View, int64_t> {
    if (dy_direct) return {dy, (first * g.c_out + group * p.out_group) * p.out_size};
    return {channels_first(device, lock, temps, dy, first, count, group, p.out_group, compute), 0};
  };

  if (op == BP_OP_CONV_WEIGHT_GRAD) {
    const View &x = in[0];
    // Dense [C_out, C_in / G, K...]: row co, column (c, tap) of the GEMM.
    const View dw = temps.dense(device, compute, out.rank, out.shape);
    if (g.n == 0) gemm(device, lock, compute, false, true, g.c_out, p.depth, 0, dw, 0, dw, 0, 0, dw, 0);
    for (int64_t first = 0; first < g.n; first += dy_step) {
      const int64_t count = std::min(dy_step, g.n - first);
      const View col = temps.dense(device, compute, {p.depth, count * p.out_size});
      for (int64_t group = 0; group < g.groups; ++group) {
        ClConvLayout L = p.layout(x, first, count, group, p.in_group);
        im2col(L, col, x);
        const auto [dyg, dy_at] = dy_rows(first, count, group);
        gemm(device, lock, compute, false, true, p.out_group, p.depth, count * p.out_size, dyg, dy_at, col, 0,
             first == 0 ? 0.0 : 1.0, dw, group * p.out_group * p.depth);
      }
    }
    run_copy(device, lock, dw, out);
    return;
  }

  const View &w = dense_operand(device, lock, temps, in[1], compute);
  if (op == BP_OP_CONV) {
    const View &x = in[0];
    // A dense y of the compute dtype without a bias takes the GEMM's result
    // in place, one batch item per launch: no store pass.
    if (!has_bias && out.dtype == compute && bp_sdk_is_dense(out.rank, out.shape, out.strides)) {
      const View col = temps.dense(device, compute, {p.depth, p.out_size});
      for (int64_t item = 0; item < g.n; ++item)
        for (int64_t group = 0; group < g.groups; ++group) {
          ClConvLayout L = p.layout(x, item, 1, group, p.in_group);
          im2col(L, col, x);
          gemm(device, lock, compute, false, false, p.out_group, p.out_size, p.depth, w, group * p.out_group * p.depth,
               col, 0, 0.0, out, (item * g.c_out + group * p.out_group) * p.out_size);
        }
      return;
    }
    for (int64_t first = 0; first < g.n; first += chunk) {
      const int64_t count = std::min(chunk, g.n - first);
      const View col = temps.dense(device, compute, {p.depth, count * p.out_size});
      const View tmp = temps.dense(device, compute, {p.out_group, count * p.out_size});
      for (int64_t group = 0; group < g.groups; ++group) {
        ClConvLayout L = p.layout(x, first, count, group, p.in_group);
        im2col(L, col, x);
        gemm(device, lock, compute, false, false, p.out_group, count * p.out_size, p.depth, w,
             group * p.out_group * p.depth, col, 0, 0.0, tmp, 0);
        ClConvLayout S = p.layout(out, first, count, group, p.out_group);
        S.n = p.out_group * count * p.out_size;
        with_bias(S, group * p.out_group);
        launch("conv_store", S.n, {out.mem, tmp.mem, bias.mem, S});
      }
    }
    return;
  }

  // CONV_TRANSPOSE: dx = W^T dy, gathered back.
  for (int64_t first = 0; first < g.n; first += dy_step) {
    const int64_t count = std::min(dy_step, g.n - first);
    const View col = temps.dense(device, compute, {p.depth, count * p.out_size});
    for (int64_t group = 0; group < g.groups; ++group) {
      const auto [dyg, dy_at] = dy_rows(first, count, group);
      gemm(device, lock, compute, true, false, p.depth, count * p.out_size, p.out_group, w,
           group * p.out_group * p.depth, dyg, dy_at, 0.0, col, 0);
      ClConvLayout L = p.layout(out, first, count, group, p.in_group);
      L.n = p.in_group * count * p.in_size;
      with_bias(L, group * p.in_group);
      launch("conv_col2im", L.n, {out.mem, col.mem, bias.mem, L});
    }
  }
}

}  // namespace bp_ocl
