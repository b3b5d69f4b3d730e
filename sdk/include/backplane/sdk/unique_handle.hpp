// backplane/sdk/unique_handle.hpp — one handle of a driver's C API (an
// OpenCL cl_mem or cl_event, an NVRTC program, ...) owned by a C++ object,
// released however the scope ends (since 1.5). C++17, header-only.
#pragma once

namespace bp_plugin {

// Handle is a pointer type whose null value means "none"; Release is a
// function object type whose operator()(Handle) gives the handle back to
// its API. The object owns at most one handle and cannot be copied.
template <class Handle, class Release>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  // Takes over `handle` (null: none).
  explicit UniqueHandle(Handle handle) : handle_(handle) {}
  UniqueHandle(const UniqueHandle &) = delete;
  UniqueHandle &operator=(const UniqueHandle &) = delete;
  ~UniqueHandle() {
    if (handle_) Release()(handle_);
  }

  Handle get() const { return handle_; }
  // Where a C function that creates a handle writes it (while this object
  // holds none), or a one-element array of handles to read.
  Handle *ptr() { return &handle_; }
  // Hands the handle on: the caller owns it, this object holds none.
  Handle release() {
    const Handle handle = handle_;
    handle_ = nullptr;
    return handle;
  }

 private:
  Handle handle_ = nullptr;
};

}  // namespace bp_plugin
