// Lazy elementwise work, fused per device (docs/fusion.md).
//
// An allocating elementwise operator of kMinElements elements or more, on a
// device whose backend has execute_fused, is recorded instead of run: the
// caller gets a view of a deferred storage (tensors/storage.hpp) and the
// operator joins its device's open group. The group runs as one fused
// program when any of its storages' memory is needed (Storage::buffer and
// host, so a read, a non-fusable operator or a write into an input of the
// group), on a synchronize or a wait, when an operator of another shape
// arrives, or when it is full (BP_FUSED_MAX_*). Only results somebody still
// holds are allocated and written.
//
// The operators validate everything before they record (devices, dtypes,
// shapes, the backend's support), so their errors stay immediate; what can
// only fail when the group runs (out of memory, the backend) is thrown by
// every access to a result it did not produce (the first may be the call
// that made it run) and by bp_synchronize; a call that only made it run,
// needing none of its results, is not failed by it.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>

#include "backplane/plugin.h"
#include "tensors/view.hpp"

namespace bp::core {

struct Device;

namespace fusion {

// [dispatch] fusion (BACKPLANE_FUSION).
extern std::atomic<bool> enabled;

// Smaller operators run at once: their routing costs more than a pass over
// their memory, and the one-element path must stay as short as it is.
constexpr int64_t kMinElements = 4096;

// Whether an allocating operator (op, dtype -> out_dtype) with an output of
// this (validated) shape on device is recorded rather than run.
bool defers(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t rank, const int64_t *shape);

// Records the operator on its device's open group and returns its (deferred)
// result, of out_dtype and the given shape. `inputs` have dtype `dtype`
// (WHERE: a bool condition, then two values) and broadcast to the shape;
// only called after defers() said yes and the operator validated its
// arguments. attrs.scalar_mode and attrs.scalar are all it reads.
View record(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
            std::initializer_list<const View *> inputs, int32_t rank, const int64_t *shape);

// Runs the work `storage` is pending on (Storage::buffer's slow path);
// throws when that run, now or earlier, failed to produce `storage` (a
// failure that only hit other results stays with them).
void settle(Storage &storage);

// Runs the device's open group, if any: bp_synchronize (report: its
// failure is thrown) and bp_tensor_wait (not: the waited tensor's own
// failure is what counts).
void flush(Device &device, bool report);

// Runs every device's open group, ignoring errors (the runtime stops).
void flush_all() noexcept;

}  // namespace fusion
}  // namespace bp::core
