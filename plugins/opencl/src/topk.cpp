// topk.cpp — TOPK along the last axis of the views (the core has moved the
// caller's axis there): every row sorted whole on the device by topk.cl's
// stable merge sort of (key, position) pairs, correct for any row length,
// then its first k written (scratch: two (key, position) arrays of the
// input's size, 32 bytes per element); or, for a few (k <= 32, at most an
// eighth of the row), each row read once by one work-item that keeps its
// k first in order (topk_few, no scratch).
#include "topk.hpp"

#include <utility>

#include "buffer.hpp"
#include "dtype.hpp"
#include "embedded_texts.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "temporaries.hpp"

namespace bp_ocl {

namespace {

// topk.cl's TOPK_FEWEST, and the part of a row k may be for topk_few.
constexpr cl_long kFewest = 32;
constexpr cl_long kFewestFraction = 8;

// plugin.h's order as a ulong key of a stored element v (backplane/kernels/topk.hpp's
// keys, widened): floats by their bits, signed integers with the sign bit flipped
// (in 64 bits), unsigned integers and bool as they are.
std::string key_expression(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "bp_topk_float_key((ulong)as_uint(v), 32, 0x7f800000UL)";
    case BP_FLOAT64: return "bp_topk_float_key(as_ulong(v), 64, 0x7ff0000000000000UL)";
    case BP_FLOAT16: return "bp_topk_float_key((ulong)(v), 16, 0x7c00UL)";
    case BP_BFLOAT16: return "bp_topk_float_key((ulong)(v), 16, 0x7f80UL)";
    default: break;
  }
  if (bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_SIGNED_INT) return "((ulong)(long)(v) ^ 0x8000000000000000UL)";
  return "((ulong)(v))";
}

ClTopkLayout topk_layout(const View &in, const View &values, const View &indices) {
  ClTopkLayout L{};
  const int last = in.rank - 1;  // rank >= 1 (execute checked)
  const View *views[3] = {&in, &values, &indices};
  for (int d = 0; d < last; ++d) {
    if (in.shape[d] == 1) continue;  // its strides never matter
    L.row_shape[L.row_rank] = in.shape[d];
    for (int v = 0; v < 3; ++v) L.row_stride[v][L.row_rank] = views[v]->strides[d];
    ++L.row_rank;
  }
  for (int v = 0; v < 3; ++v) {
    L.offset[v] = views[v]->offset;
    L.step[v] = views[v]->strides[last];
  }
  L.n = in.shape[last];
  L.k = values.shape[last];
  L.n_rows = values.numel / L.k;
  return L;
}

}  // namespace

std::string topk_source(int32_t dtype) {
  return "#define TOPK_KEY(v) " + key_expression(dtype) + "\n" + kTopkClText;
}

void run_topk(Device &device, const Device::Lock &lock, const bp_plugin::Attrs &attrs, const View &in,
              const View &values, const View &indices) {
  if (values.numel == 0) return;  // k = 0, an empty row or no rows
  const ClTopkLayout L = topk_layout(in, values, indices);
  const cl_long total = L.n_rows * L.n;
  const cl_int largest = (attrs.option & BP_OPTION_LARGEST) != 0;
  if (L.k <= kFewest && L.k * kFewestFraction <= L.n)
    return device.launch_elements(lock, device.kernel(lock, Family::Topk, in.dtype, "topk_few"), L.n_rows,
                                  {values.mem, indices.mem, in.mem, L, largest});
  Temporaries scratch;
  const uint64_t bytes = uint64_t(total) * sizeof(cl_long);
  cl_mem keys = scratch.memory(device, bytes, "execute (topk scratch)"), positions = scratch.memory(device, bytes, "execute (topk scratch)");
  cl_mem keys_next = total > 1 ? scratch.memory(device, bytes, "execute (topk scratch)") : nullptr;
  cl_mem positions_next = total > 1 ? scratch.memory(device, bytes, "execute (topk scratch)") : nullptr;
  device.launch_elements(lock, device.kernel(lock, Family::Topk, in.dtype, "topk_keys"), total,
                         {keys, positions, in.mem, L, largest});
  const Kernel &merge = device.kernel(lock, Family::Topk, in.dtype, "topk_merge");
  for (cl_long width = 1; width < L.n; width *= 2) {
    device.launch_elements(lock, merge, total, {keys_next, positions_next, keys, positions, L.n, total, width});
    std::swap(keys, keys_next);
    std::swap(positions, positions_next);
  }
  device.launch_elements(lock, device.kernel(lock, Family::Topk, in.dtype, "topk_write"), L.n_rows * L.k,
                         {values.mem, indices.mem, in.mem, positions, L});
}

}  // namespace bp_ocl
