#include "fusion/fusion.hpp"

#include <memory>
#include <mutex>

#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "fusion/group.hpp"
#include "loader/backend.hpp"
#include "trace/trace.hpp"

namespace bp::core::fusion {

std::atomic<bool> enabled{true};

namespace {

// One per device id. The lock orders recording, running and settling on
// that device: a storage's pending mark is only ever set or cleared under
// it, so a marked storage always belongs to the device's open group.
struct Queue {
  std::mutex mutex;
  Group *open = nullptr;
};

Queue g_queues[Registry::kMaxDevices];

// The pending mark of a storage whose deferred computation failed; an
// address, never dereferenced.
alignas(Group) unsigned char g_failed_mark;
Group *failed_mark() { return reinterpret_cast<Group *>(&g_failed_mark); }

Queue &queue_of(const Device &device) { return g_queues[size_t(device.id)]; }

// Runs and forgets the open group; the queue is empty afterwards even when
// the run throws.
void run_open(Queue &q) {
  std::unique_ptr<Group> group(q.open);
  q.open = nullptr;
  group->run(failed_mark());
}

// run_open for a caller that needs none of the group's results: a failure
// stays with the results it did not produce, for whoever reads them.
void run_open_quietly(Queue &q) {
  try {
    run_open(q);
  } catch (const Error &) {
  }
}

[[noreturn]] void throw_failure(const Storage &s) { throw Error(*s.failure()); }

// Storage::buffer's slow path comes here through the storage's hook.
[[maybe_unused]] const bool g_settles_storages = (set_pending_work_hook(&settle), true);

}  // namespace

bool defers(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t rank, const int64_t *shape) {
  if (!enabled.load(std::memory_order_relaxed)) return false;
  // As allocate_view would: a result too large to exist is BP_ERR_SHAPE now.
  if (checked_numel(rank, shape) < kMinElements) return false;
  Backend &b = *device.backend;
  return b.optional(&bp_plugin_api::execute_fused) && b.supports(device.index, op, dtype, out_dtype);
}

View record(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
            std::initializer_list<const View *> inputs, int32_t rank, const int64_t *shape) {
  Queue &q = queue_of(device);
  std::lock_guard<std::mutex> lock(q.mutex);
  if (q.open && !q.open->can_take(rank, shape, inputs)) run_open_quietly(q);
  // Also an input whose group just failed above.
  for (const View *v : inputs)
    if (v->storage->pending() == failed_mark()) throw_failure(*v->storage.get());
  if (!q.open) q.open = new Group(device, rank, shape);
  View result;
  try {
    result = q.open->append(op, dtype, out_dtype, attrs, inputs);
  } catch (...) {
    if (q.open->size() == 0) {
      delete q.open;
      q.open = nullptr;
    }
    throw;
  }
  if (trace::on())
    trace::record(std::string(op_name(op)) + " " + dtype_name(dtype) + " " + shape_string(rank, shape) +
                  ": inputs on " + device.name + ", deferred as operator " + std::to_string(q.open->size()) +
                  " of the fused group of " + device.name + " (backend " + device.backend->name() + ")");
  return result;
}

void settle(Storage &storage) {
  Queue &q = queue_of(storage.device());
  std::lock_guard<std::mutex> lock(q.mutex);
  Group *group = storage.pending();
  if (!group) return;
  if (group == failed_mark()) throw_failure(storage);
  if (group != q.open) fail(BP_ERR_INTERNAL, "fusion: a storage is pending on a group its device no longer has open");
  // An input of the group needs the run, not its results.
  run_open_quietly(q);
  if (storage.pending() == failed_mark()) throw_failure(storage);
}

void flush(Device &device, bool report) {
  Queue &q = queue_of(device);
  std::lock_guard<std::mutex> lock(q.mutex);
  if (!q.open) return;
  if (report) run_open(q);
  else run_open_quietly(q);
}

void flush_all() noexcept {
  for (Queue &q : g_queues) {
    std::lock_guard<std::mutex> lock(q.mutex);
    if (!q.open) continue;
    try {
      run_open(q);
    } catch (...) {
      // Nobody is left to tell: the runtime stops, and the results that
      // failed keep their error for whoever still reads them.
    }
  }
}

}  // namespace bp::core::fusion
