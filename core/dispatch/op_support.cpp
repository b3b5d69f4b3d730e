#include "dispatch/op_support.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "devices/registry.hpp"
#include "dispatch/host_fallback.hpp"
#include "fusion/fusion.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "tensors/overlap.hpp"
#include "trace/trace.hpp"

namespace bp::core {

namespace {

[[noreturn]] void mismatch(int32_t op, std::initializer_list<const View *> inputs,
                           const View *out) {
  std::vector<bp_device> devices;
  std::string parts;
  int32_t i = 0, n = int32_t(inputs.size());
  for (const View *v : inputs) {
    devices.push_back(v->device().id);
    if (i > 0) parts += (i == n - 1) ? " and " : ", ";
    parts += "input " + std::to_string(i) + " is on " + v->device().name;
    ++i;
  }
  std::string msg;
  bool inputs_agree = std::all_of(inputs.begin(), inputs.end(), [&](const View *v) {
    return &v->device() == &(*inputs.begin())->device();
  });
  if (inputs_agree && out) {
    msg = std::string(op_name(op)) + ": the output is on " + out->device().name +
          " but the inputs are on " + (*inputs.begin())->device().name +
          " (allocate the output there, or move the inputs with bp_to)";
  } else {
    msg = std::string(op_name(op)) + ": all inputs must be on one device, but " + parts +
          " (move one with bp_to)";
  }
  Error e(BP_ERR_DEVICE_MISMATCH, msg);
  e.op = op_name(op);
  // The first input off input 0's device; -1 when only the output is.
  int32_t index = 0;
  for (const View *v : inputs) {
    if (&v->device() != &(*inputs.begin())->device()) {
      e.input = index;
      break;
    }
    ++index;
  }
  e.devices = std::move(devices);
  if (out) e.devices.push_back(out->device().id);  // last, as backplane.h says
  throw e;
}

std::string plugin_shape(const bp_plugin_tensor &t) { return shape_string(t.rank, t.shape); }

}  // namespace

void check_devices(int32_t op, std::initializer_list<const View *> inputs, const View *out) {
  const Device *d = &(*inputs.begin())->device();
  for (const View *v : inputs)
    if (&v->device() != d) mismatch(op, inputs, out);
  if (out && &out->device() != d) mismatch(op, inputs, out);
}

void broadcast_shapes(int32_t op, std::initializer_list<const View *> inputs, int32_t &rank,
                      int64_t *shape) {
  rank = 0;
  for (const View *v : inputs) rank = std::max(rank, v->rank);
  for (int32_t d = 0; d < rank; ++d) shape[d] = 1;
  int32_t index = 0;
  for (const View *v : inputs) {
    for (int32_t k = 1; k <= v->rank; ++k) {
      int64_t e = v->shape[v->rank - k];
      int64_t &r = shape[rank - k];
      if (e == r || e == 1) continue;
      if (r == 1) {
        r = e;
        continue;
      }
      Error err(BP_ERR_SHAPE, std::string(op_name(op)) + ": input " + std::to_string(index) +
                                  " of shape " + shape_string(v->rank, v->shape) +
                                  " cannot broadcast with the others (axis " +
                                  std::to_string(-k) + ": " + std::to_string(e) + " vs " +
                                  std::to_string(r) + ")");
      err.op = op_name(op);
      err.input = index;
      throw err;
    }
    ++index;
  }
}

void axis_last_view(const View &v, int32_t axis, bp_plugin_tensor &t) {
  v.to_plugin(t);
  std::rotate(t.shape + axis, t.shape + axis + 1, t.shape + v.rank);
  std::rotate(t.strides + axis, t.strides + axis + 1, t.strides + v.rank);
}

namespace {

void row_view(const View &v, int32_t axis, bp_plugin_tensor &t) {
  if (v.rank > 0) return axis_last_view(v, axis, t);
  v.to_plugin(t);
  t.rank = 1;
  t.shape[0] = 1;
  t.strides[0] = 1;
}

}  // namespace

View run_along_last_axis(int32_t op, int32_t compute, int32_t result, const View &a, int32_t axis, const View *out,
                         bool allow_identical) {
  std::optional<View> converted;
  const View &A = as_dtype(a, compute, converted);
  View made = prepare_output(op, A.device(), result, A.rank, A.shape, out);
  const View &target = out ? *out : made;
  bp_plugin_tensor in, o;
  row_view(A, axis, in);
  row_view(target, axis, o);
  if (out) check_overlap(op, target, o, {{&A, &in}}, allow_identical);
  run(A.device(), op, compute, result, make_attrs(), &in, 1, o);
  return made;
}

void broadcast_view(const View &v, int32_t rank, const int64_t *shape, bp_plugin_tensor &t) {
  t.buffer = v.storage ? v.storage->buffer() : nullptr;
  broadcast_geometry(v, rank, shape, t);
}

void broadcast_geometry(const View &v, int32_t rank, const int64_t *shape, bp_plugin_tensor &t) {
  t.offset = v.offset;
  t.dtype = v.dtype;
  t.rank = rank;
  int32_t lead = rank - v.rank;
  for (int32_t d = 0; d < BP_MAX_RANK; ++d) {
    if (d >= rank) {
      t.shape[d] = t.strides[d] = 0;
      continue;
    }
    t.shape[d] = shape[d];
    if (d < lead) {
      t.strides[d] = 0;
    } else {
      int64_t e = v.shape[d - lead];
      t.strides[d] = (e == 1 && shape[d] != 1) ? 0 : v.strides[d - lead];
    }
  }
}

View prepare_output(int32_t op, Device &device, int32_t dtype, int32_t rank, const int64_t *shape,
                    const View *out) {
  if (!out) return allocate_view(device, dtype, rank, shape);
  if (out->dtype != dtype) {
    Error e(BP_ERR_DTYPE, std::string(op_name(op)) + ": the output is " +
                              dtype_name(out->dtype) + " but the result is " + dtype_name(dtype));
    e.op = op_name(op);
    throw e;
  }
  bool same = out->rank == rank;
  for (int32_t d = 0; same && d < rank; ++d) same = out->shape[d] == shape[d];
  if (!same) {
    Error e(BP_ERR_SHAPE, std::string(op_name(op)) + ": the output has shape " +
                              shape_string(out->rank, out->shape) + " but the result has shape " +
                              shape_string(rank, shape));
    e.op = op_name(op);
    throw e;
  }
  return View();
}

void check_overlap(int32_t op, const View &out, const bp_plugin_tensor &out_t,
                   std::initializer_list<std::pair<const View *, const bp_plugin_tensor *>> inputs,
                   bool allow_identical) {
  int32_t index = 0;
  for (auto &[v, t] : inputs) {
    if (v->storage.get() == out.storage.get()) {
      if (views_overlap(*v, out)) {
        bool identical = allow_identical && t->offset == out_t.offset && t->dtype == out_t.dtype &&
                         std::memcmp(t->strides, out_t.strides, sizeof t->strides) == 0;
        if (!identical) {
          Error e(BP_ERR_INVALID_ARGUMENT,
                  std::string(op_name(op)) + ": the output overlaps input " +
                      std::to_string(index) + " (write into a separate tensor)");
          e.op = op_name(op);
          e.input = index;
          throw e;
        }
      }
    }
    ++index;
  }
}

bp_op_attrs make_attrs() {
  bp_op_attrs a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  // Every operator has checked its call against plugin.h before it runs.
  a.flags = BP_ATTRS_VALIDATED;
  return a;
}

View cast_view(const View &v, int32_t dtype) {
  if (fusion::defers(v.device(), BP_OP_COPY, v.dtype, dtype, v.rank, v.shape))
    return fusion::record(v.device(), BP_OP_COPY, v.dtype, dtype, make_attrs(), {&v}, v.rank, v.shape);
  View out = allocate_view(v.device(), dtype, v.rank, v.shape);
  bp_plugin_tensor in, o;
  v.to_plugin(in);
  out.to_plugin(o);
  run(v.device(), BP_OP_COPY, v.dtype, dtype, make_attrs(), &in, 1, o);
  return out;
}

const View &as_dtype(const View &v, int32_t dtype, std::optional<View> &temp) {
  if (v.dtype == dtype) return v;
  return temp.emplace(cast_view(v, dtype));
}

namespace {

// The slow paths of run(), out of line to keep the common path short.
[[gnu::cold, gnu::noinline]] void unsupported(Device &device, int32_t op, int32_t dtype,
                                              int32_t out_dtype, const bp_op_attrs &attrs,
                                              const bp_plugin_tensor *inputs, int32_t n_inputs,
                                              const bp_plugin_tensor *outputs, int32_t n_outputs) {
  if (host_fallback_enabled.load(std::memory_order_relaxed) &&
      run_on_host(device, op, dtype, out_dtype, attrs, inputs, n_inputs, outputs, n_outputs))
    return;
  Backend &b = *device.backend;
  Error e(BP_ERR_UNSUPPORTED,
          std::string(op_name(op)) + ": backend " + b.name() + " does not implement " +
              op_name(op) + " for " + dtype_name(dtype) +
              (dtype != out_dtype ? std::string(" -> ") + dtype_name(out_dtype) : "") + " on " +
              device.name);
  e.op = op_name(op);
  e.devices = {device.id};
  throw e;
}

// Called under the backend's call lock: the message is the calling
// thread's, and a plugin that is not thread-safe must not be called
// concurrently.
[[noreturn, gnu::cold, gnu::noinline]] void execute_failed(Device &device, int32_t op, bp_status s) {
  Backend &b = *device.backend;
  const Backend::Failure f = b.failure(s);
  Error e(f.status, std::string(op_name(op)) + " on " + device.name + ": backend " + b.name() + " failed (" +
                        f.code + "): " + f.message);
  e.op = op_name(op);
  e.devices = {device.id};
  throw e;
}

[[gnu::noinline]] void record_trace(Device &device, int32_t op, int32_t dtype, int32_t n_inputs,
                                    const bp_plugin_tensor &output) {
  Backend &b = *device.backend;
  std::string line =
      std::string(op_name(op)) + " " + dtype_name(dtype) + " " + plugin_shape(output) + ": ";
  line += n_inputs ? "inputs on " + device.name + ", ran on backend " + b.name() +
                         " (owner of the inputs' device)"
                   : "created on " + device.name + " by backend " + b.name() +
                         " (the requested device)";
  line += ", copies 0";
  trace::record(std::move(line));
}

}  // namespace

void run(Device &device, int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
         const bp_plugin_tensor *inputs, int32_t n_inputs, const bp_plugin_tensor *outputs,
         int32_t n_outputs) {
  Backend &b = *device.backend;
  if (__builtin_expect(!b.supports(device.index, op, dtype, out_dtype), 0))
    return unsupported(device, op, dtype, out_dtype, attrs, inputs, n_inputs, outputs, n_outputs);
  bp_status s;
  {
    auto lock = b.call_lock();
    s = b.api().execute(device.index, op, &attrs, inputs, n_inputs, outputs);
    if (__builtin_expect(s != BP_OK, 0)) execute_failed(device, op, s);
  }
  b.counters.ops.fetch_add(1, std::memory_order_relaxed);
  if (__builtin_expect(trace::on(), 0)) record_trace(device, op, dtype, n_inputs, outputs[0]);
}

}  // namespace bp::core
