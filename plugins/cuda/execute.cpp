// execute(): validates the operator's arguments with the plugin SDK (what
// plugin.h promises is checked again, cheaply, so a bad call is an error and
// never a wild memory access on the GPU), plans the index space on the host
// and enqueues the kernels on the device's stream. Nothing here waits for the
// device.
#include "execute.hpp"

#include <cstddef>
#include <string>

#include "buffer.hpp"
#ifdef BP_CUDA_CUDNN
#include "conv_cudnn.hpp"
#endif
#include "dense_copy.hpp"
#include "device.hpp"
#include "device_registry.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "iteration.hpp"
#include "kernels.hpp"
#include "matmul_cublas.hpp"
#include "ops.hpp"
#include "scratch.hpp"
#include "topk.hpp"
#include "view.hpp"

namespace bp_cuda {

namespace {

using bp_plugin::Attrs;

std::string shape_text(const View &v) {
  std::string s = "[";
  for (int d = 0; d < v.rank; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}

void run_binary(Device &device, int32_t op, const Attrs &attrs, const View *in, const View &out) {
  const View &a = in[0];
  const bool compare = bp_vocab_op_family(op) == BP_OP_FAMILY_COMPARE;
  if (out.numel == 0) return;
  if (attrs.scalar_mode == BP_SCALAR_NONE) {
    const View &b = in[1];
    const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, a.strides, b.strides});
    Device::Lock lock = device.lock();
    const Launch launch = device.launch(lock);
    const InputArg ia{a.base, 0}, ib{b.base, 0};
    if (compare) return launch_compare(launch, op, a.dtype, it, out.base, ia, ib);
    return launch_binary(launch, op, a.dtype, it, out.base, ia, ib);
  }
  // The scalar is an operand without memory, converted to a's dtype by the launcher.
  const bool rhs = attrs.scalar_mode == BP_SCALAR_RHS;
  const InputArg tensor{a.base, 0}, scalar{nullptr, attrs.scalar};
  const IterShape it = rhs ? make_iter_shape(out.rank, out.shape, {out.strides, a.strides, nullptr})
                           : make_iter_shape(out.rank, out.shape, {out.strides, nullptr, a.strides});
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  const InputArg lhs_arg = rhs ? tensor : scalar, rhs_arg = rhs ? scalar : tensor;
  if (compare) return launch_compare(launch, op, a.dtype, it, out.base, lhs_arg, rhs_arg);
  return launch_binary(launch, op, a.dtype, it, out.base, lhs_arg, rhs_arg);
}

void run_where(Device &device, const View *in, const View &out) {
  const View &cond = in[0], &a = in[1], &b = in[2];
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, cond.strides, a.strides, b.strides});
  Device::Lock lock = device.lock();
  launch_where(device.launch(lock), a.dtype, it, out.base, cond.base, a.base, b.base);
}

void run_unary_or_copy(Device &device, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, in.strides});
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (op == BP_OP_COPY) return launch_copy(launch, in.dtype, out.dtype, it, out.base, in.base);
  launch_unary(launch, op, in.dtype, it, out.base, in.base);
}

void run_reduce(Device &device, int32_t op, const Attrs &attrs, const View &in, const View &out) {
  // MAX, MIN, ARGMAX and ARGMIN have no value for an empty set (the core never asks).
  const bool sum_like = op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM || op == BP_OP_PROD ||
                        op == BP_OP_LOGSUMEXP || op == BP_OP_VAR;
  if (in.numel == 0 && out.numel > 0 && !sum_like)
    fail(BP_ERR_SHAPE, "cuda: %s: cannot reduce an empty set (input shape %s)", bp_plugin::op_name(op),
         shape_text(in).c_str());
  if (out.numel == 0) return;
  ReducePlan plan = make_reduce_plan(in, out);
  if (op == BP_OP_VAR) plan.divisor -= static_cast<int64_t>(attrs.scalar);
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  Scratch scratch(device, lock);
  if (sum_like)
    return launch_reduce_sum(launch, op, in.dtype, plan, out.base, in.base, scratch);
  launch_reduce_extreme(launch, op, in.dtype, plan, out.base, in.base, scratch);
}

void run_matmul(Device &device, const View &a, const View &b, const View &out) {
  const int r = out.rank;
  if (out.numel == 0) return;
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (a.shape[r - 1] == 0) {  // K = 0: every sum is empty
    launch_create(launch, BP_OP_FILL, out.dtype, make_iter_shape(out.rank, out.shape, {out.strides}), out.base, 0, 0,
                  0);
    return;
  }
  // Neither cuBLAS nor the integer kernel may write memory they still read.
  Scratch scratch(device, lock);
  DenseView out_copy;
  const bool overlap = may_overlap(out, a) || may_overlap(out, b);
  if (overlap) make_dense(scratch, out, out_copy);
  const View &target = overlap ? out_copy.view : out;
  if (is_float_dtype(out.dtype))
    matmul_cublas(device, lock, a, b, target, registry().allow_tf32.load());
  else
    launch_matmul_int(launch, out.dtype, make_matmul_shape(a, b, target), target.base, a.base, b.base);
  if (overlap) copy_view(launch, out_copy.view, out);
}

void run_create(Device &device, int32_t op, const Attrs &attrs, const View &out) {
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides});
  Device::Lock lock = device.lock();
  launch_create(device.launch(lock), op, out.dtype, it, out.base, attrs.scalar, attrs.scalar2, attrs.seed);
}

void run_scan(Device &device, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  const ScanShape shape = make_scan_shape(in, out);
  Device::Lock lock = device.lock();
  launch_scan(device.launch(lock), op, in.dtype, shape, out.base, in.base);
}

// SOFTMAX and LOG_SOFTMAX: rows along the last axis, laid out as a scan's.
void run_softmax(Device &device, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  const ScanShape shape = make_scan_shape(in, out);
  Device::Lock lock = device.lock();
  launch_softmax(device.launch(lock), op, in.dtype, shape, out.base, in.base);
}

// LAYER_NORM and RMS_NORM: in = {x, weight, bias}, out = {y, mean, rstd},
// absent views with a null base.
void run_normalize(Device &device, int32_t op, const Attrs &attrs, const View *in, const View *out) {
  const View &x = in[0];
  const int last = x.rank - 1;
  NormalizeShape s{};
  s.lead_rank = last;
  s.layer = op == BP_OP_LAYER_NORM;
  s.rows = 1;
  for (int d = 0; d < last; ++d) {
    s.lead_shape[d] = x.shape[d];
    s.lead_strides[0][d] = x.strides[d];
    s.lead_strides[1][d] = out[0].strides[d];
    s.lead_strides[2][d] = out[1].base ? out[1].strides[d] : 0;
    s.lead_strides[3][d] = out[2].base ? out[2].strides[d] : 0;
    s.rows *= x.shape[d];
  }
  s.n = x.shape[last];
  s.x_step = x.strides[last];
  s.y_step = out[0].strides[last];
  s.w_step = in[1].base ? in[1].strides[0] : 0;
  s.b_step = in[2].base ? in[2].strides[0] : 0;
  s.eps = attrs.scalar;
  if (s.rows == 0 || (s.n == 0 && !out[1].base && !out[2].base)) return;
  Device::Lock lock = device.lock();
  launch_normalize(device.launch(lock), op, x.dtype, s, out[0].base, out[1].base, out[2].base, x.base, in[1].base,
                   in[2].base);
}

// GATHER_ND: in = {data, index}; SCATTER_ND and SCATTER_ADD_ND: in = {index,
// values}, the output updated in place. Nothing to do when the rows tensor
// is empty.
void run_gather(Device &device, const View *in, const View &out) {
  if (out.numel == 0) return;
  const IndexShape shape = make_index_shape(in[1], in[0], out);
  Device::Lock lock = device.lock();
  launch_gather_nd(device.launch(lock), out.dtype, shape, out.base, in[0].base, in[1].base);
}

void run_scatter(Device &device, int32_t op, const View *in, const View &out) {
  if (in[1].numel == 0) return;
  const IndexShape shape = make_index_shape(in[0], out, in[1]);
  Device::Lock lock = device.lock();
  launch_scatter_nd(device.launch(lock), op, out.dtype, shape, out.base, in[0].base, in[1].base);
}

void run_topk(Device &device, const Attrs &attrs, const View &in, const View &values, const View &indices) {
  if (values.numel == 0) return;  // k = 0, an empty row or no rows
  const TopkShape shape = make_topk_shape(in, values, indices);
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  Scratch scratch(device, lock);
  launch_topk(launch, in.dtype, shape, values.base, indices.base, in.base, (attrs.option & BP_OPTION_LARGEST) != 0,
              scratch);
}

// ATTENTION: in = {q, k, v, mask (dtype 0 when absent)}. No keys: zeros
// (empty sums), not 0 / 0.
void run_attention(Device &device, const Attrs &attrs, const View *in, const View &out) {
  if (out.numel == 0) return;
  const int r = out.rank;
  const View &q = in[0], &k = in[1], &v = in[2], &mask = in[3];
  const bool masked = mask.dtype != BP_DTYPE_INVALID;
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (k.shape[r - 2] == 0)
    return launch_create(launch, BP_OP_FILL, out.dtype, make_iter_shape(out.rank, out.shape, {out.strides}),
                         out.base, 0, 0, 0);
  AttentionShape s{};
  s.batch_rank = r - 2;
  s.causal = (attrs.option & BP_OPTION_CAUSAL) != 0;
  s.batches = 1;
  const View *views[5] = {&out, &q, &k, &v, &mask};
  for (int a = 0; a < r - 2; ++a) {
    s.batch_shape[a] = out.shape[a];
    s.batches *= out.shape[a];
    for (int o = 0; o < 5; ++o) s.batch_strides[o][a] = o == 4 && !masked ? 0 : views[o]->strides[a];
  }
  s.lq = q.shape[r - 2], s.d = q.shape[r - 1], s.lk = k.shape[r - 2], s.dv = v.shape[r - 1];
  s.q_rs = q.strides[r - 2], s.q_cs = q.strides[r - 1];
  s.k_rs = k.strides[r - 2], s.k_cs = k.strides[r - 1];
  s.v_rs = v.strides[r - 2], s.v_cs = v.strides[r - 1];
  s.o_rs = out.strides[r - 2], s.o_cs = out.strides[r - 1];
  s.m_rs = masked ? mask.strides[r - 2] : 0, s.m_cs = masked ? mask.strides[r - 1] : 0;
  s.scale = attrs.scalar;
  const int64_t rows = attention_row_tile(), columns = attention_column_chunk(out.dtype);
  s.row_tiles = (s.lq + rows - 1) / rows;
  s.column_chunks = (s.dv + columns - 1) / columns;
  if (s.batches > INT32_MAX / s.row_tiles / s.column_chunks)
    fail(BP_ERR_UNSUPPORTED, "attention on %s: %lld batch elements of %lld query rows need more thread blocks "
         "than one launch has", device.name(), static_cast<long long>(s.batches),
         static_cast<long long>(s.lq));
  launch_attention(launch, out.dtype, s, out.base, q.base, k.base, v.base, masked ? mask.base : nullptr);
}

// The pooling problem of `full` (x or dx) and `pooled` (y or dy), walking
// `walked` elements; index is MAX_POOL's indices or null.
PoolShape pool_shape(const bp_window_params &w, const View &full, const View &pooled, const View *index,
                     int64_t walked) {
  PoolShape s{};
  s.g = bp_kernels::pool_geometry(w, full.shape, full.strides, pooled.shape, pooled.strides);
  const int lead = 3 - w.spatial_rank;
  for (int d = 0; d < 3; ++d) s.index_stride[d] = d < lead || !index ? 0 : index->strides[2 + d - lead];
  for (int d = 0; d < 2; ++d) {
    s.full_plane[d] = full.strides[d];
    s.pooled_plane[d] = pooled.strides[d];
    s.index_plane[d] = index ? index->strides[d] : 0;
  }
  s.channels = full.shape[1];
  s.n = walked;
  return s;
}

void run_pool(Device &device, int32_t op, const bp_op_attrs *attrs, const View &x, const bp_plugin_tensor *outputs,
              const View &y, const char *name) {
  if (y.numel == 0) return;
  const bool with_index = !bp_sdk_absent(&outputs[1]);
  const View index = with_index ? device_view(outputs[1], device, name, "output 1") : View{};
  const PoolShape shape = pool_shape(*bp_sdk_window_params(attrs), x, y, with_index ? &index : nullptr, y.numel);
  Device::Lock lock = device.lock();
  launch_pool(device.launch(lock), op, x.dtype, shape, y.base, with_index ? index.base : nullptr, x.base);
}

void run_pool_grad(Device &device, int32_t op, const bp_op_attrs *attrs, const View *in, const View &dx) {
  if (dx.numel == 0) return;
  const View *index = op == BP_OP_MAX_POOL_GRAD ? &in[1] : nullptr;
  const PoolShape shape = pool_shape(*bp_sdk_window_params(attrs), dx, in[0], index, dx.numel);
  Device::Lock lock = device.lock();
  launch_pool_grad(device.launch(lock), op, in[0].dtype, shape, dx.base, in[0].base, index ? index->base : nullptr);
}

}  // namespace

void execute_op(int32_t device_index, int32_t op, const bp_op_attrs *attrs_in, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const bp_plugin_tensor *output) {
  Device &device = device_at(device_index, "execute");
  // What plugin.h fixes (operator, input count, views inside live buffers,
  // shapes, dtypes), checked by the SDK; then what this backend implements.
  const bp_plugin::ExecuteInfo info =
      bp_plugin::check_execute(op, attrs_in, inputs, n_inputs, output, live_buffer_bytes, nullptr);
  kCapabilities.require("cuda", op, info.dtype, output->dtype);
  const char *name = bp_plugin::op_name(op);
  const Attrs attrs = bp_plugin::read_attrs(attrs_in, name);
  const char *roles[4] = {"input 0", "input 1", "input 2", "input 3"};
  View in[4] = {};
  if (info.family == BP_OP_FAMILY_NORMALIZE) {  // three outputs; absent views keep a null base
    const char *out_roles[3] = {"output", "output 1", "output 2"};
    View out[3] = {};
    for (int i = 0; i < 3; ++i) {
      if (!bp_sdk_absent(&inputs[i])) in[i] = device_view(inputs[i], device, name, roles[i]);
      if (!bp_sdk_absent(&output[i])) out[i] = device_view(output[i], device, name, out_roles[i]);
    }
    return run_normalize(device, op, attrs, in, out);
  }
  for (int i = 0; i < n_inputs; ++i)  // an absent view (since 1.6) stays all zero: dtype 0, no memory
    if (!bp_sdk_absent(&inputs[i])) in[i] = device_view(inputs[i], device, name, roles[i]);
  const View out = device_view(*output, device, name, "output");
  switch (info.family) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE: return run_binary(device, op, attrs, in, out);
    case BP_OP_FAMILY_WHERE: return run_where(device, in, out);
    case BP_OP_FAMILY_UNARY:
    case BP_OP_FAMILY_COPY: return run_unary_or_copy(device, op, in[0], out);
    case BP_OP_FAMILY_REDUCE: return run_reduce(device, op, attrs, in[0], out);
    case BP_OP_FAMILY_MATMUL: return run_matmul(device, in[0], in[1], out);
    case BP_OP_FAMILY_CREATE: return run_create(device, op, attrs, out);
    case BP_OP_FAMILY_SCAN: return run_scan(device, op, in[0], out);
    case BP_OP_FAMILY_GATHER: return run_gather(device, in, out);
    case BP_OP_FAMILY_SCATTER: return run_scatter(device, op, in, out);
    case BP_OP_FAMILY_SOFTMAX: return run_softmax(device, op, in[0], out);
    case BP_OP_FAMILY_TOPK: return run_topk(device, attrs, in[0], out, device_view(output[1], device, name, "output 1"));
    case BP_OP_FAMILY_ATTENTION: return run_attention(device, attrs, in, out);
#ifdef BP_CUDA_CUDNN
    case BP_OP_FAMILY_CONV: return run_conv_cudnn(device, op, attrs_in, inputs, output, in, out);
#endif
    case BP_OP_FAMILY_POOL: return run_pool(device, op, attrs_in, in[0], output, out, name);
    case BP_OP_FAMILY_POOL_GRAD: return run_pool_grad(device, op, attrs_in, in, out);
  }
  fail(BP_ERR_INTERNAL, "cuda: no kernel for operator family %d", info.family);
}

}  // namespace bp_cuda
