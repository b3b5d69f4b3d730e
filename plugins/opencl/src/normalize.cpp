// normalize.cpp — LAYER_NORM and RMS_NORM (normalize.cl): one work-group per
// row of the last axis, the leading axes and which of weight, bias, mean and
// rstd are present in the layout.
#include <algorithm>

#include "dtype.hpp"
#include "ops.hpp"

namespace bp_ocl {

namespace {

// Mirrors bp_norm_layout in normalize.cl field for field.
struct ClNormLayout {
  cl_long lead_shape[BP_MAX_RANK - 1];
  cl_long lead_x[BP_MAX_RANK - 1];
  cl_long lead_y[BP_MAX_RANK - 1];
  cl_long lead_mean[BP_MAX_RANK - 1];
  cl_long lead_rstd[BP_MAX_RANK - 1];
  cl_long lead_rank, rows, n;
  cl_long x_offset, y_offset, mean_offset, rstd_offset, w_offset, b_offset;
  cl_long x_step, y_step, w_step, b_step;
  cl_long flags;
};
static_assert(sizeof(ClNormLayout) == 49 * sizeof(cl_long), "ClNormLayout has padding");

constexpr cl_long kWeight = 1, kBias = 2, kMean = 4, kRstd = 8, kLayer = 16;  // normalize.cl's BP_NORM_*

bool present(const View &v) { return v.dtype != BP_DTYPE_INVALID; }

}  // namespace

void run_normalize(Device &device, const Device::Lock &lock, int32_t op, const bp_plugin::Attrs &attrs,
                   const View *in, const View *out) {
  const View &x = in[0], &y = out[0];
  const int last = x.rank - 1;  // rank >= 1 (execute checked)
  ClNormLayout L{};
  L.lead_rank = last;
  L.rows = 1;
  for (int d = 0; d < last; ++d) {
    L.lead_shape[d] = x.shape[d];
    L.lead_x[d] = x.strides[d];
    L.lead_y[d] = y.strides[d];
    L.lead_mean[d] = present(out[1]) ? out[1].strides[d] : 0;
    L.lead_rstd[d] = present(out[2]) ? out[2].strides[d] : 0;
    L.rows *= x.shape[d];
  }
  if (L.rows == 0) return;
  L.n = x.shape[last];
  L.x_offset = x.offset;
  L.y_offset = y.offset;
  L.x_step = x.strides[last];
  L.y_step = y.strides[last];
  L.flags = op == BP_OP_LAYER_NORM ? kLayer : 0;
  if (present(in[1])) L.flags |= kWeight, L.w_offset = in[1].offset, L.w_step = in[1].strides[0];
  if (present(in[2])) L.flags |= kBias, L.b_offset = in[2].offset, L.b_step = in[2].strides[0];
  if (present(out[1])) L.flags |= kMean, L.mean_offset = out[1].offset;
  if (present(out[2])) L.flags |= kRstd, L.rstd_offset = out[2].offset;
  // Absent tensors (and an empty x's) get some buffer of the call: the
  // kernel reads none of them (its flags say which).
  cl_mem any = nullptr;
  for (const View *v : {&x, &y, &out[1], &out[2]})
    if (!any && v->mem) any = v->mem;
  if (!any) return;  // nothing addressed: empty rows and no statistics to write
  auto mem = [&](const View &v) { return v.mem ? v.mem : any; };
  const cl_mem y_mem = mem(y), mean_mem = mem(out[1]), rstd_mem = mem(out[2]), x_mem = mem(x), w_mem = mem(in[1]),
               b_mem = mem(in[2]);
  const Kernel &k = device.kernel(lock, Family::Normalize, x.dtype, "bp_normalize");
  size_t local = L.n >= 1024 ? kReduceGroupMax : L.n >= 64 ? 16 : 1;
  while (local > k.max_work_group) local /= 2;
  const size_t max_items = size_t{4096} * device.info().compute_units;
  const size_t groups = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(L.rows), max_items / local));
  if (accumulator_type(x.dtype, device.fp64()) == "double") {
    const cl_double eps = attrs.scalar;
    device.launch(lock, k, groups * local, local, {y_mem, mean_mem, rstd_mem, x_mem, w_mem, b_mem, L, eps});
  } else {
    const cl_float eps = static_cast<cl_float>(attrs.scalar);
    device.launch(lock, k, groups * local, local, {y_mem, mean_mem, rstd_mem, x_mem, w_mem, b_mem, L, eps});
  }
}

}  // namespace bp_ocl
