// Tensor creation, data access, handles, metadata, views and device moves.
#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"
#include "tensors/view_ops.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

namespace {

void emit(View &&v, bp_tensor *out) { *out = handles().insert(std::move(v)); }

bp_tensor *out_arg(bp_tensor *out, const char *fn) { return &require(out, fn, "out"); }

int32_t checked_dtype(int32_t dtype, const char *fn) {
  if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, std::string(fn) + ": invalid dtype " + std::to_string(dtype));
  return dtype;
}

// A creation function: checks `out`, then makes the tensor; errors name fn.
template <class Make>
bp_status create(const char *fn, bp_tensor *out, Make &&make) {
  return guarded([&] {
    as_function(fn, {}, [&] {
      bp_tensor *o = out_arg(out, fn);
      emit(make(), o);
    });
  });
}

// A function of one tensor that makes a new one (a view, a copy): checks
// `out`, then looks the tensor up; errors name fn.
template <class Make>
bp_status derive(const char *fn, bp_tensor tensor, bp_tensor *out, Make &&make) {
  return guarded([&] {
    bp_tensor *o = out_arg(out, fn);
    emit(make(view_or_throw(tensor, fn)), o);
  });
}

}  // namespace

extern "C" {

bp_status bp_empty(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                   bp_tensor *out) {
  return create("bp_empty", out, [&] {
    return allocate_view(device_or_throw(device), checked_dtype(dtype, "bp_empty"), rank, shape);
  });
}

bp_status bp_full(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                  double value, bp_tensor *out) {
  return create("bp_full", out, [&] {
    return fill(device_or_throw(device), checked_dtype(dtype, "bp_full"), rank, shape, value);
  });
}

bp_status bp_zeros(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                   bp_tensor *out) {
  return create("bp_zeros", out, [&] {
    return fill(device_or_throw(device), checked_dtype(dtype, "bp_zeros"), rank, shape, 0.0);
  });
}

bp_status bp_ones(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                  bp_tensor *out) {
  return create("bp_ones", out, [&] {
    return fill(device_or_throw(device), checked_dtype(dtype, "bp_ones"), rank, shape, 1.0);
  });
}

bp_status bp_arange(bp_device device, int32_t dtype, double start, double stop, double step,
                    bp_tensor *out) {
  return create("bp_arange", out, [&] {
    return arange(device_or_throw(device), checked_dtype(dtype, "bp_arange"), start, stop, step);
  });
}

bp_status bp_random_uniform(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                            double low, double high, uint64_t seed, bp_tensor *out) {
  return create("bp_random_uniform", out, [&] {
    return random(device_or_throw(device), BP_OP_RANDOM_UNIFORM, dtype, rank, shape, low, high, seed);
  });
}

bp_status bp_random_normal(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                           double mean, double stddev, uint64_t seed, bp_tensor *out) {
  return create("bp_random_normal", out, [&] {
    return random(device_or_throw(device), BP_OP_RANDOM_NORMAL, dtype, rank, shape, mean, stddev, seed);
  });
}

bp_status bp_from_host(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                       const void *data, bp_tensor *out) {
  return create("bp_from_host", out, [&] {
    return from_host(device_or_throw(device), checked_dtype(dtype, "bp_from_host"), rank, shape, data);
  });
}

bp_status bp_wrap_host(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                       const int64_t *strides, void *data, void (*release)(void *context), void *context,
                       bp_tensor *out) {
  return create("bp_wrap_host", out, [&] {
    return wrap_host(device_or_throw(device), dtype, rank, shape, strides, data, release, context);
  });
}

bp_status bp_from_host_into(bp_tensor tensor, const void *data, uint64_t bytes) {
  return guarded([&] {
    const View &v = view_or_throw(tensor, "bp_from_host_into");
    ag::before_write("bp_from_host_into", v, {});
    dispatch::from_host_into(v, data, bytes);
    ag::wrote(v);
  });
}

bp_status bp_to_host(bp_tensor tensor, void *data, uint64_t bytes) {
  return guarded([&] { to_host(view_or_throw(tensor, "bp_to_host"), data, bytes); });
}

bp_status bp_tensor_host_address(bp_tensor tensor, void **address) {
  return guarded([&] {
    void *&a = require(address, "bp_tensor_host_address", "address");
    View &v = view_or_throw(tensor, "bp_tensor_host_address");
    if (!v.storage->host())
      fail(BP_ERR_UNSUPPORTED, "bp_tensor_host_address: " + v.device().name +
                                   " memory is not host memory (copy the tensor to cpu first)");
    a = static_cast<char *>(v.storage->host()) + v.offset;
  });
}

bp_status bp_tensor_retain(bp_tensor tensor) {
  return guarded([&] {
    if (!handles().retain(tensor)) invalid_handle(tensor, "bp_tensor_retain");
  });
}

bp_status bp_tensor_release(bp_tensor tensor) {
  return guarded([&] {
    if (!handles().release(tensor)) invalid_handle(tensor, "bp_tensor_release");
  });
}

bp_status bp_tensor_device(bp_tensor tensor, bp_device *device) {
  return guarded([&] {
    require(device, "bp_tensor_device", "device") = view_or_throw(tensor, "bp_tensor_device").device().id;
  });
}

bp_status bp_tensor_dtype(bp_tensor tensor, int32_t *dtype) {
  return guarded([&] {
    require(dtype, "bp_tensor_dtype", "dtype") =
        view_or_throw(tensor, "bp_tensor_dtype").dtype;
  });
}

bp_status bp_tensor_rank(bp_tensor tensor, int32_t *rank) {
  return guarded([&] { require(rank, "bp_tensor_rank", "rank") = view_or_throw(tensor, "bp_tensor_rank").rank; });
}

bp_status bp_tensor_shape(bp_tensor tensor, int64_t *shape) {
  return guarded([&] {
    View &v = view_or_throw(tensor, "bp_tensor_shape");
    if (v.rank) std::copy(v.shape, v.shape + v.rank, &require(shape, "bp_tensor_shape", "shape"));
  });
}

bp_status bp_tensor_strides(bp_tensor tensor, int64_t *strides) {
  return guarded([&] {
    View &v = view_or_throw(tensor, "bp_tensor_strides");
    if (v.rank) std::copy(v.strides, v.strides + v.rank, &require(strides, "bp_tensor_strides", "strides"));
  });
}

bp_status bp_tensor_numel(bp_tensor tensor, int64_t *numel) {
  return guarded([&] { require(numel, "bp_tensor_numel", "numel") = view_or_throw(tensor, "bp_tensor_numel").numel(); });
}

bp_status bp_tensor_is_contiguous(bp_tensor tensor, int32_t *contiguous) {
  return guarded([&] {
    require(contiguous, "bp_tensor_is_contiguous", "contiguous") =
        view_or_throw(tensor, "bp_tensor_is_contiguous").contiguous() ? 1 : 0;
  });
}

bp_status bp_tensor_wait(bp_tensor tensor) {
  return guarded([&] { wait(view_or_throw(tensor, "bp_tensor_wait")); });
}

int64_t bp_live_tensor_count(void) { return handles().live(); }

bp_status bp_reshape(bp_tensor tensor, int32_t rank, const int64_t *shape, bp_tensor *out) {
  return derive("bp_reshape", tensor, out, [&](const View &v) { return ag::reshape(v, rank, shape); });
}

bp_status bp_permute(bp_tensor tensor, const int32_t *axes, bp_tensor *out) {
  return derive("bp_permute", tensor, out, [&](const View &v) { return ag::permute(v, axes); });
}

bp_status bp_transpose(bp_tensor tensor, bp_tensor *out) {
  return derive("bp_transpose", tensor, out, [&](const View &v) { return ag::transpose(v); });
}

bp_status bp_slice(bp_tensor tensor, int32_t axis, int64_t start, int64_t stop, int64_t step,
                   bp_tensor *out) {
  return derive("bp_slice", tensor, out, [&](const View &v) { return ag::slice(v, axis, start, stop, step); });
}

bp_status bp_select(bp_tensor tensor, int32_t axis, int64_t index, bp_tensor *out) {
  return derive("bp_select", tensor, out, [&](const View &v) { return ag::select(v, axis, index); });
}

bp_status bp_expand_dims(bp_tensor tensor, int32_t axis, bp_tensor *out) {
  return derive("bp_expand_dims", tensor, out, [&](const View &v) { return ag::expand_dims(v, axis); });
}

bp_status bp_contiguous(bp_tensor tensor, bp_tensor *out) {
  return guarded([&] {
    bp_tensor *o = out_arg(out, "bp_contiguous");
    View &v = view_or_throw(tensor, "bp_contiguous");
    if (v.contiguous()) {
      if (!handles().retain(tensor)) invalid_handle(tensor, "bp_contiguous");
      *o = tensor;
    } else {
      emit(ag::contiguous(v), o);
    }
  });
}

bp_status bp_copy_to(bp_tensor tensor, bp_device device, bp_tensor *out) {
  return derive("bp_copy_to", tensor, out, [&](const View &v) { return ag::copy_to(v, device_or_throw(device)); });
}

bp_status bp_to(bp_tensor tensor, bp_device device, bp_tensor *out) {
  return guarded([&] {
    bp_tensor *o = out_arg(out, "bp_to");
    View &v = view_or_throw(tensor, "bp_to");
    Device &d = device_or_throw(device);
    if (&v.device() == &d) {
      if (!handles().retain(tensor)) invalid_handle(tensor, "bp_to");
      *o = tensor;
    } else {
      emit(ag::copy_to(v, d), o);
    }
  });
}

}  // extern "C"
