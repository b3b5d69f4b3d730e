#include "comm/in_process.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "backplane/half.h"
#include "backplane/plugin.h"
#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "trace/trace.hpp"

namespace bp::core::collectives {

namespace {

const char *name_of(int32_t collective) { return bp_vocab_collective_name(collective); }

[[noreturn]] void mismatch(int32_t collective, bp_status status, const std::vector<View> &t, size_t i,
                           const std::string &what) {
  Error e(status, std::string(name_of(collective)) + ": tensor " + std::to_string(i) + " on " +
                      t[i].device().name + " " + what + " tensor 0 on " + t[0].device().name +
                      "; every participant needs one dtype and one shape");
  e.op = name_of(collective);
  e.input = int32_t(i);
  e.devices = {t[i].device().id, t[0].device().id};
  throw e;
}

// One dtype and one shape for all, as participant 0 has them.
void check_alike(int32_t collective, const std::vector<View> &t) {
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i].dtype != t[0].dtype)
      mismatch(collective, BP_ERR_DTYPE, t, i,
               std::string("is ") + dtype_name(t[i].dtype) + ", but " + dtype_name(t[0].dtype) + " is");
    if (t[i].rank != t[0].rank || !std::equal(t[i].shape, t[i].shape + t[i].rank, t[0].shape))
      mismatch(collective, BP_ERR_SHAPE, t, i,
               "has shape " + shape_string(t[i].rank, t[i].shape) + ", but shape " +
                   shape_string(t[0].rank, t[0].shape) + " is");
  }
}

std::string devices_text(const std::vector<View> &t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + t[i].device().name;
  return s;
}

void record_trace(int32_t collective, int32_t reduce_op, const std::vector<View> &t, const std::string &how) {
  std::string line = std::string(name_of(collective)) + " " + dtype_name(t[0].dtype) + " " +
                     shape_string(t[0].rank, t[0].shape) + " x" + std::to_string(t.size());
  if (reduce_op) line += std::string(" (") + bp_vocab_reduce_op_name(reduce_op) + ")";
  trace::record(line + ": on " + devices_text(t) + ", " + how);
}

// Why the backend cannot run it, or empty when it may try.
std::string why_staged(const std::vector<View> &t) {
  Backend *b = t[0].device().backend;
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i].device().backend != b) return "devices of several backends";
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (&t[i].device() == &t[j].device()) return "two participants on " + t[i].device().name;
  if (!b->optional(&bp_plugin_api::collective)) return "backend " + b->name() + " has no collective entry";
  return unknown_to(*b, t[0].dtype);
}

std::string ran_by_backend(const std::vector<View> &t) {
  return "ran on backend " + t[0].device().backend->name() + " (its collective entry)";
}

View dense(const View &v) { return v.contiguous() ? v : dispatch::contiguous_copy(v); }

// Runs the backend's collective entry on contiguous views; false when it
// declined (BP_ERR_UNSUPPORTED), having written nothing.
bool by_backend(int32_t collective, int32_t reduce_op, int32_t root, const std::vector<View> &in,
                const std::vector<View> &out) {
  Backend &b = *in[0].device().backend;
  const size_t n = in.size();
  std::vector<int32_t> devices(n);
  std::vector<bp_plugin_tensor> pin(n), pout(n);
  for (size_t i = 0; i < n; ++i) {
    devices[i] = in[i].device().index;
    in[i].to_plugin(pin[i]);
    out[i].to_plugin(pout[i]);
  }
  bp_collective_args args{};
  args.struct_size = sizeof args;
  args.collective = collective;
  args.reduce_op = reduce_op;
  args.root = root;
  args.count = int32_t(n);
  args.devices = devices.data();
  args.inputs = pin.data();
  args.outputs = pout.data();
  {
    auto lock = b.call_lock();
    const bp_status s = b.optional(&bp_plugin_api::collective)(&args);
    if (s == BP_ERR_UNSUPPORTED) return false;
    if (s != BP_OK) {
      const Backend::Failure f = b.failure(s);
      Error e(f.status, std::string(name_of(collective)) + " on " + devices_text(in) + ": backend " + b.name() +
                            " failed (" + f.code + "): " + f.message);
      e.op = name_of(collective);
      for (const View &v : in) e.devices.push_back(v.device().id);
      throw e;
    }
  }
  b.counters.ops.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// An in-place collective (all_reduce, broadcast) on the backend, on dense
// copies written back where a view was strided. Empty when it ran there,
// else why the core stages it.
std::string in_place_by_backend(int32_t collective, int32_t reduce_op, int32_t root, const std::vector<View> &t) {
  std::string why = why_staged(t);
  if (!why.empty()) return why;
  std::vector<View> work;
  for (const View &v : t) work.push_back(dense(v));
  if (!by_backend(collective, reduce_op, root, work, work))
    return "backend " + t[0].device().backend->name() + " declined it";
  for (size_t i = 0; i < t.size(); ++i)
    if (work[i].storage.get() != t[i].storage.get()) dispatch::assign(t[i], work[i]);
  if (trace::on()) record_trace(collective, reduce_op, t, ran_by_backend(t));
  return {};
}

// A collective with new outputs (all_gather, reduce_scatter) of the given
// shape on the backend: the outputs, or none with `why` the core stages it.
std::vector<View> new_by_backend(int32_t collective, int32_t reduce_op, const std::vector<View> &in, int32_t rank,
                                 const int64_t *shape, std::string &why) {
  why = why_staged(in);
  if (!why.empty()) return {};
  std::vector<View> work, out;
  for (const View &v : in) {
    work.push_back(dense(v));
    out.push_back(allocate_view(v.device(), v.dtype, rank, shape));
  }
  if (!by_backend(collective, reduce_op, 0, work, out)) {
    why = "backend " + in[0].device().backend->name() + " declined it";
    return {};
  }
  if (trace::on()) record_trace(collective, reduce_op, in, ran_by_backend(in));
  return out;
}

void trace_staged(int32_t collective, int32_t reduce_op, const std::vector<View> &t, const std::string &why) {
  if (trace::on()) record_trace(collective, reduce_op, t, "staged through host memory (" + why + ")");
}

uint64_t bytes_of(const View &v) { return uint64_t(v.numel()) * uint64_t(dtype_size(v.dtype)); }

template <class T>
T combine(int32_t reduce_op, T acc, T x) {
  switch (reduce_op) {
    case BP_REDUCE_MAX: return x > acc ? x : acc;
    case BP_REDUCE_MIN: return x < acc ? x : acc;
    default:
      if constexpr (std::is_integral_v<T>) {
        // Integers wrap as add does (plugin.h), without signed overflow.
        using U = std::make_unsigned_t<T>;
        return T(U(acc) + U(x));
      } else {
        return acc + x;
      }
  }
}

template <class T>
T mean_of(T sum, int64_t n) {
  // Integers: toward zero, as C divides; in int64, since n may not fit T.
  if constexpr (std::is_integral_v<T>) return T(int64_t(sum) / n);
  else return T(sum / T(n));
}

template <class T>
void reduce_typed(int32_t reduce_op, const T *parts, int64_t n, int64_t count, T *out) {
  std::copy(parts, parts + count, out);
  for (int64_t j = 1; j < n; ++j) {
    const T *x = parts + j * count;
    for (int64_t k = 0; k < count; ++k) out[k] = combine(reduce_op, out[k], x[k]);
  }
  if (reduce_op == BP_REDUCE_MEAN)
    for (int64_t k = 0; k < count; ++k) out[k] = mean_of(out[k], n);
}

// float16 and bfloat16: widened exactly, reduced (and divided) in float32,
// rounded once at the end, so a sum costs one rounding, not one per term.
// MAX and MIN pick an input, which rounds back to its own bits.
template <float (*widen)(uint16_t), uint16_t (*narrow)(float)>
void reduce_half(int32_t reduce_op, const uint16_t *parts, int64_t n, int64_t count, uint16_t *out) {
  std::vector<float> acc(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) acc[size_t(k)] = widen(parts[k]);
  for (int64_t j = 1; j < n; ++j) {
    const uint16_t *x = parts + j * count;
    for (int64_t k = 0; k < count; ++k) acc[size_t(k)] = combine(reduce_op, acc[size_t(k)], widen(x[k]));
  }
  if (reduce_op == BP_REDUCE_MEAN)
    for (float &a : acc) a /= float(n);
  for (int64_t k = 0; k < count; ++k) out[k] = narrow(acc[size_t(k)]);
}

}  // namespace

std::string unknown_to(const Backend &b, int32_t dtype) {
  if (b.knows_dtype(dtype)) return {};
  const uint32_t since = Backend::dtype_since(dtype);
  return "backend " + b.name() + " was built for ABI 1." + std::to_string(b.api().abi_minor) + ", before " +
         dtype_name(dtype) + " came in 1." + std::to_string(since);
}

void check_reduce_op(const char *fn, int32_t reduce_op, int32_t dtype) {
  const char *name = bp_vocab_reduce_op_name(reduce_op);
  if (!name)
    fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": reduce_op " + std::to_string(reduce_op) +
                                      " is not a BP_REDUCE_* (sum 1, mean 2, max 3, min 4)");
  if (!bp_vocab_dtype_in_set(dtype, bp_vocab_reduce_op_dtypes(reduce_op)))
    fail(BP_ERR_DTYPE, std::string(fn) + ": " + name + " is not defined for " + dtype_name(dtype) +
                           (dtype == BP_BOOL ? " (max and min are: or and and)" : ""));
}

void reduce_host(int32_t dtype, int32_t reduce_op, const void *parts, int64_t n, int64_t count, void *out) {
  switch (dtype) {
    case BP_FLOAT32: return reduce_typed(reduce_op, static_cast<const float *>(parts), n, count, static_cast<float *>(out));
    case BP_FLOAT64: return reduce_typed(reduce_op, static_cast<const double *>(parts), n, count, static_cast<double *>(out));
    case BP_INT32: return reduce_typed(reduce_op, static_cast<const int32_t *>(parts), n, count, static_cast<int32_t *>(out));
    case BP_INT64: return reduce_typed(reduce_op, static_cast<const int64_t *>(parts), n, count, static_cast<int64_t *>(out));
    case BP_BOOL: return reduce_typed(reduce_op, static_cast<const uint8_t *>(parts), n, count, static_cast<uint8_t *>(out));
    case BP_INT8: return reduce_typed(reduce_op, static_cast<const int8_t *>(parts), n, count, static_cast<int8_t *>(out));
    case BP_UINT8: return reduce_typed(reduce_op, static_cast<const uint8_t *>(parts), n, count, static_cast<uint8_t *>(out));
    case BP_INT16: return reduce_typed(reduce_op, static_cast<const int16_t *>(parts), n, count, static_cast<int16_t *>(out));
    case BP_FLOAT16:
      return reduce_half<bp_f32_from_f16, bp_f16_from_f32>(reduce_op, static_cast<const uint16_t *>(parts), n, count,
                                                            static_cast<uint16_t *>(out));
    case BP_BFLOAT16:
      return reduce_half<bp_f32_from_bf16, bp_bf16_from_f32>(reduce_op, static_cast<const uint16_t *>(parts), n, count,
                                                              static_cast<uint16_t *>(out));
    default: fail(BP_ERR_DTYPE, std::string("collective: no host reduction for ") + dtype_name(dtype));
  }
}

void all_reduce(const std::vector<View> &t, int32_t reduce_op) {
  check_alike(BP_COLLECTIVE_ALL_REDUCE, t);
  check_reduce_op("all_reduce", reduce_op, t[0].dtype);
  const std::string why = in_place_by_backend(BP_COLLECTIVE_ALL_REDUCE, reduce_op, 0, t);
  if (why.empty()) return;
  const uint64_t size = bytes_of(t[0]);
  std::vector<uint8_t> parts(size * t.size()), out(size);
  for (size_t i = 0; i < t.size(); ++i) to_host(t[i], parts.data() + i * size, size);
  reduce_host(t[0].dtype, reduce_op, parts.data(), int64_t(t.size()), t[0].numel(), out.data());
  for (const View &v : t) dispatch::from_host_into(v, out.data(), size);
  trace_staged(BP_COLLECTIVE_ALL_REDUCE, reduce_op, t, why);
}

void broadcast(const std::vector<View> &t, int32_t root) {
  check_alike(BP_COLLECTIVE_BROADCAST, t);
  if (root < 0 || size_t(root) >= t.size())
    fail(BP_ERR_INVALID_ARGUMENT, "broadcast: " + index_range("root", root, t.size()));
  const std::string why = in_place_by_backend(BP_COLLECTIVE_BROADCAST, 0, root, t);
  if (why.empty()) return;
  const uint64_t size = bytes_of(t[0]);
  std::vector<uint8_t> data(size);
  to_host(t[size_t(root)], data.data(), size);
  for (size_t i = 0; i < t.size(); ++i)
    if (i != size_t(root)) dispatch::from_host_into(t[i], data.data(), size);
  trace_staged(BP_COLLECTIVE_BROADCAST, 0, t, why);
}

std::vector<View> all_gather(const std::vector<View> &in) {
  check_alike(BP_COLLECTIVE_ALL_GATHER, in);
  if (in[0].rank >= BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "all_gather: the inputs have rank " + std::to_string(in[0].rank) +
                           "; the result adds an axis and ranks stop at " + std::to_string(BP_MAX_RANK));
  int64_t shape[BP_MAX_RANK] = {int64_t(in.size())};
  std::copy(in[0].shape, in[0].shape + in[0].rank, shape + 1);
  const int32_t rank = in[0].rank + 1;
  std::string why;
  if (std::vector<View> out = new_by_backend(BP_COLLECTIVE_ALL_GATHER, 0, in, rank, shape, why); !out.empty())
    return out;
  const uint64_t size = bytes_of(in[0]);
  std::vector<uint8_t> rows(size * in.size());
  for (size_t i = 0; i < in.size(); ++i) to_host(in[i], rows.data() + i * size, size);
  std::vector<View> out;
  for (const View &v : in) out.push_back(from_host(v.device(), v.dtype, rank, shape, rows.data()));
  trace_staged(BP_COLLECTIVE_ALL_GATHER, 0, in, why);
  return out;
}

std::vector<View> reduce_scatter(const std::vector<View> &in, int32_t reduce_op) {
  check_alike(BP_COLLECTIVE_REDUCE_SCATTER, in);
  check_reduce_op("reduce_scatter", reduce_op, in[0].dtype);
  const int64_t n = int64_t(in.size());
  if (in[0].rank < 1 || in[0].shape[0] != n)
    fail(BP_ERR_SHAPE, "reduce_scatter: the inputs have shape " + shape_string(in[0].rank, in[0].shape) +
                           "; their first axis must have one row per participant (" + std::to_string(n) + ")");
  const int32_t rank = in[0].rank - 1;
  const int64_t *shape = in[0].shape + 1;
  std::string why;
  if (std::vector<View> out = new_by_backend(BP_COLLECTIVE_REDUCE_SCATTER, reduce_op, in, rank, shape, why);
      !out.empty())
    return out;
  const uint64_t size = bytes_of(in[0]), row = size / uint64_t(n);
  const int64_t count = in[0].numel() / n;
  std::vector<uint8_t> all(size * uint64_t(n)), parts(size), result(row);
  for (int64_t j = 0; j < n; ++j) to_host(in[size_t(j)], all.data() + uint64_t(j) * size, size);
  std::vector<View> out;
  for (int64_t i = 0; i < n; ++i) {
    // Row i of every participant, end to end, then reduced.
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(parts.data() + uint64_t(j) * row, all.data() + uint64_t(j) * size + uint64_t(i) * row, row);
    reduce_host(in[0].dtype, reduce_op, parts.data(), n, count, result.data());
    const View &v = in[size_t(i)];
    out.push_back(from_host(v.device(), v.dtype, rank, shape, result.data()));
  }
  trace_staged(BP_COLLECTIVE_REDUCE_SCATTER, reduce_op, in, why);
  return out;
}

}  // namespace bp::core::collectives
