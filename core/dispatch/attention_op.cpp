// The fused ATTENTION operator (plugin.h): what bp_attention runs on a
// backend that offers it, when nothing records a gradient. The composite
// (composites/attention.cpp) has checked devices, shapes and dtypes and
// resolved the scale and the mask; this call broadcasts every view to the
// batch (stride 0 on broadcast axes, as MATMUL's operands) and hands them
// over with the causal form in attrs.option.
#include <algorithm>

#include "devices/registry.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "loader/backend.hpp"

namespace bp::core::dispatch {

bool attention_offered(const View &q) {
  Device &device = q.device();
  return device.backend->supports(device.index, BP_OP_ATTENTION, q.dtype, q.dtype);
}

View attention(const View &q, const View &k, const View &v, const View *mask, double scale, bool causal) {
  const int32_t op = BP_OP_ATTENTION;
  // The batch axes of the three operands, broadcast together.
  View bq = q, bk = k, bv = v;
  bq.rank -= 2;
  bk.rank -= 2;
  bv.rank -= 2;
  int32_t batch_rank;
  int64_t shape[BP_MAX_RANK];
  broadcast_shapes(op, {&bq, &bk, &bv}, batch_rank, shape);
  const int32_t rank = batch_rank + 2;
  const int64_t lq = q.shape[q.rank - 2], d = q.shape[q.rank - 1];
  const int64_t lk = k.shape[k.rank - 2], dv = v.shape[v.rank - 1];
  auto full = [&](int64_t rows, int64_t cols, int64_t *into) {
    std::copy(shape, shape + batch_rank, into);
    into[batch_rank] = rows;
    into[batch_rank + 1] = cols;
    return into;
  };
  int64_t q_shape[BP_MAX_RANK], k_shape[BP_MAX_RANK], v_shape[BP_MAX_RANK], m_shape[BP_MAX_RANK],
      o_shape[BP_MAX_RANK];
  View result = allocate_view(q.device(), q.dtype, rank, full(lq, dv, o_shape));
  bp_plugin_tensor in[4] = {}, o;
  broadcast_view(q, rank, full(lq, d, q_shape), in[0]);
  broadcast_view(k, rank, full(lk, d, k_shape), in[1]);
  broadcast_view(v, rank, full(lk, dv, v_shape), in[2]);
  if (mask) broadcast_view(*mask, rank, full(lq, lk, m_shape), in[3]);  // else absent: all zero
  result.to_plugin(o);
  bp_op_attrs attrs = make_attrs();
  attrs.scalar = scale;
  attrs.option = causal ? BP_OPTION_CAUSAL : 0;
  run(q.device(), op, q.dtype, q.dtype, attrs, in, 4, o);
  return result;
}

}  // namespace bp::core::dispatch
