// The steps every operator shares, in the order operators take them: device
// check, dtype resolution (casts on the same device), broadcasting, output
// preparation, overlap check, and the call into the owning backend
// (docs/architecture.md walks the whole path).
#pragma once

#include <initializer_list>
#include <optional>

#include "backplane/plugin.h"
#include "tensors/view.hpp"

namespace bp::core {

// All inputs (and the output, when given) must share one device; else an
// Error(BP_ERR_DEVICE_MISMATCH) naming the operator and every input's device.
void check_devices(int32_t op, std::initializer_list<const View *> inputs, const View *out);

// NumPy broadcasting of the inputs' shapes into rank/shape.
void broadcast_shapes(int32_t op, std::initializer_list<const View *> inputs, int32_t &rank,
                      int64_t *shape);

// v seen with the broadcast shape: stride 0 on broadcast and new leading axes.
void broadcast_view(const View &v, int32_t rank, const int64_t *shape, bp_plugin_tensor &t);
// broadcast_view without the buffer: for views whose storage must not be
// settled (the fusion layer's, under its lock).
void broadcast_geometry(const View &v, int32_t rank, const int64_t *shape, bp_plugin_tensor &t);

// v as a plugin sees it with axis `axis` (0 <= axis < rank) moved to the
// end: the families that run along the last axis of their views (SCAN,
// SOFTMAX) get the caller's axis there, so every backend has one kernel shape.
void axis_last_view(const View &v, int32_t axis, bp_plugin_tensor &t);

// Runs `op` of such a family (SCAN, SOFTMAX): a converted to `compute`,
// axis `axis` moved last in it and in the output of dtype `result` (*out,
// when given; allow_identical as for check_overlap), a rank-0 view seen as
// one row of one element. Returns the new view when it allocated, else an
// empty one.
View run_along_last_axis(int32_t op, int32_t compute, int32_t result, const View &a, int32_t axis, const View *out,
                         bool allow_identical);

// Checks a caller's output (dtype, shape) or allocates one on device.
// Returns the new view when it allocated, else an empty view.
View prepare_output(int32_t op, Device &device, int32_t dtype, int32_t rank, const int64_t *shape,
                    const View *out);

// Refuses an output that overlaps an input, except an elementwise output that
// is exactly the same view as the input (in-place).
void check_overlap(int32_t op, const View &out, const bp_plugin_tensor &out_t,
                   std::initializer_list<std::pair<const View *, const bp_plugin_tensor *>> inputs,
                   bool allow_identical);

// v converted to dtype on its own device (a new dense tensor).
View cast_view(const View &v, int32_t dtype);
// v itself when it already has dtype, else its conversion, kept in `temp`:
// no copy of a view (and no atomic reference count) in the common case.
const View &as_dtype(const View &v, int32_t dtype, std::optional<View> &temp);

// Zero-filled attributes with struct_size set.
bp_op_attrs make_attrs();

// Calls the backend that owns device: capability check, execute, counters,
// trace. `outputs` are the family's n_outputs views (vocabulary.h's
// BP_OP_FAMILY_OUTPUTS_LIST), of which out_dtype is output 0's.
void run(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
         const bp_plugin_tensor *inputs, int32_t n_inputs, const bp_plugin_tensor *outputs,
         int32_t n_outputs);
// The one-output form every family of 1.0 to 1.5 takes.
inline void run(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
                const bp_plugin_tensor *inputs, int32_t n_inputs, const bp_plugin_tensor &output) {
  run(device, op, dtype, out_dtype, attrs, inputs, n_inputs, &output, 1);
}

}  // namespace bp::core
