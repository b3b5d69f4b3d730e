#include "comm/staging.hpp"

#include <string>
#include <type_traits>

#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"

namespace bp::core::dist {

namespace {

template <class T>
void divide(void *data, uint64_t n, int32_t by) {
  T *p = static_cast<T *>(data);
  if constexpr (std::is_integral_v<T>)  // truncated toward zero, as C divides; in int64, since `by` may not fit T
    for (uint64_t i = 0; i < n; ++i) p[i] = T(int64_t(p[i]) / by);
  else
    for (uint64_t i = 0; i < n; ++i) p[i] = T(p[i] / T(by));
}

// float16 and bfloat16 go to the transport as MEAN: it sums them in float32
// and divides before its one rounding (transport.h).
bool transport_means(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

}  // namespace

char *host_pointer(const View &v) { return static_cast<char *>(v.storage->host()) + v.offset; }

bool zero_copy(const View &v) { return v.storage->host() && v.contiguous(); }

uint64_t bytes_of(const View &v) { return uint64_t(v.numel()) * uint64_t(dtype_size(v.dtype)); }

void finish_mean(int32_t reduce_op, int32_t dtype, void *data, uint64_t n, int32_t size) {
  if (reduce_op != BP_REDUCE_MEAN || transport_means(dtype)) return;
  switch (dtype) {
    case BP_FLOAT32: divide<float>(data, n, size); break;
    case BP_FLOAT64: divide<double>(data, n, size); break;
    case BP_INT32: divide<int32_t>(data, n, size); break;
    case BP_INT64: divide<int64_t>(data, n, size); break;
    case BP_INT8: divide<int8_t>(data, n, size); break;
    case BP_UINT8: divide<uint8_t>(data, n, size); break;
    case BP_INT16: divide<int16_t>(data, n, size); break;
    default: fail(BP_ERR_INTERNAL, "finish_mean: dtype " + std::string(dtype_name(dtype)));
  }
}

int32_t for_transport(int32_t reduce_op, int32_t dtype) {
  return reduce_op == BP_REDUCE_MEAN && !transport_means(dtype) ? BP_REDUCE_SUM : reduce_op;
}

void count_staged(const View &v) { v.device().backend->counters.staged_copies.fetch_add(1, std::memory_order_relaxed); }

void *host_memory(const View &v, Scratch &scratch, bool fill) {
  if (zero_copy(v)) {
    wait(v);
    scratch.keep(v.storage);
    return host_pointer(v);
  }
  void *data = scratch.buffer(bytes_of(v));
  if (fill) to_host(v, data, bytes_of(v));
  return data;
}

}  // namespace bp::core::dist
