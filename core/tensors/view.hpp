// A tensor's metadata: which storage, where in it, dtype, shape, strides.
// Views are values; making a view of a view copies metadata, not data.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "backplane/plugin.h"
#include "tensors/storage.hpp"

namespace bp::core {

namespace autograd {
struct TensorMeta;
}

// A handle's autograd identity (autograd/meta.hpp): it moves with a view
// (into the handle table, out of an operator) but is never copied, because a
// copy of a view's metadata is a new tensor as far as gradients go (a slice,
// a saved input); the autograd layer gives each result its own.
//
// The meta is set at most once while the view is in the handle table (null
// to a meta, under the autograd layer's lock) and never changed after, so an
// operator reads it without a lock: an acquire load of the published raw
// pointer, then, when that is not null, the owning pointer, which can no
// longer change.
class AutogradLink {
 public:
  AutogradLink() = default;
  AutogradLink(const AutogradLink &) noexcept {}
  AutogradLink &operator=(const AutogradLink &) noexcept {
    set(nullptr);
    return *this;
  }
  AutogradLink(AutogradLink &&other) noexcept { take(other); }
  AutogradLink &operator=(AutogradLink &&other) noexcept {
    if (this != &other) take(other);
    return *this;
  }

  // The meta, or null when the tensor has none.
  autograd::TensorMeta *get() const { return published_.load(std::memory_order_acquire); }
  // Shared ownership of the meta; only after get() returned it (or on a view
  // no other thread sees).
  const std::shared_ptr<autograd::TensorMeta> &owner() const { return meta_; }
  // Only on a view no other thread sees, or on one whose meta is null under
  // the autograd layer's lock.
  void set(std::shared_ptr<autograd::TensorMeta> meta) {
    meta_ = std::move(meta);
    published_.store(meta_.get(), std::memory_order_release);
  }

 private:
  void take(AutogradLink &other) {
    set(std::move(other.meta_));
    other.published_.store(nullptr, std::memory_order_relaxed);
  }

  std::shared_ptr<autograd::TensorMeta> meta_;
  std::atomic<autograd::TensorMeta *> published_{nullptr};
};

struct View {
  View() noexcept : shape(), strides() {}
  // A dense C-order view of all of `storage`, for a validated shape: every
  // operator's result is made here, so the arrays are written once rather
  // than zeroed first.
  View(StorageRef s, int32_t dtype_, int32_t rank_, const int64_t *shape_) noexcept;

  StorageRef storage;
  uint64_t offset = 0;  // bytes to element [0,...,0]
  int32_t dtype = BP_DTYPE_INVALID;
  int32_t rank = 0;
  // Entries at and past rank are always zero: to_plugin copies whole arrays.
  int64_t shape[BP_MAX_RANK];
  int64_t strides[BP_MAX_RANK];  // elements
  // Set only by the autograd layer (autograd/meta.hpp).
  AutogradLink autograd;

  Device &device() const { return storage->device(); }
  int64_t numel() const;
  bool contiguous() const;
  // Bytes spanned from element [0...] to one past the last element.
  uint64_t extent_bytes() const;

  // The plugin's picture of this view (inline: three per operator call).
  void to_plugin(bp_plugin_tensor &t) const {
    t.buffer = storage ? storage->buffer() : nullptr;
    t.offset = offset;
    t.dtype = dtype;
    t.rank = rank;
    // Whole-array copies vectorise; entries past rank are already zero (a
    // View invariant kept by view_ops), as plugin.h promises.
    std::memcpy(t.shape, shape, sizeof t.shape);
    std::memcpy(t.strides, strides, sizeof t.strides);
  }
};

// The most elements a tensor may have (so that its bytes fit in int64 for
// every dtype); a shape with more is BP_ERR_SHAPE, wherever it is given.
constexpr int64_t kMaxElements = int64_t(1) << 56;

// Validates rank and extents; returns the element count.
int64_t checked_numel(int32_t rank, const int64_t *shape);

// A dense C-order view of fresh storage on device.
View allocate_view(Device &device, int32_t dtype, int32_t rank, const int64_t *shape);

// C-order strides for a shape.
void dense_strides(int32_t rank, const int64_t *shape, int64_t *strides);

// "[2, 3]"
std::string shape_string(int32_t rank, const int64_t *shape);

}  // namespace bp::core
