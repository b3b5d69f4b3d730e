#include "conv_pointwise_bf16.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend.hpp"
#include "conv_onednn.hpp"
#include "gemm_onednn.hpp"
#include "half_convert.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

// Output positions per image up to which the batch-wide GEMM wins. Measured
// on AMX at batch 32: 1.3-1.8x float32 at 7x7 (49), where oneDNN's
// per-image kernels leave their tiles part empty (0.7-1.5x), and below
// oneDNN's kernels from 14x14 (196) up, where the gathers cost more.
constexpr int64_t kSmallPlane = 64;

// The input offset (within one channel's plane) that each output position
// reads: the strided subsample a pointwise window sees.
std::vector<int64_t> sampled_offsets(const bp_sdk_conv &g) {
  std::vector<int64_t> at;
  at.reserve(size_t(g.out[0] * g.out[1] * g.out[2]));
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
        at.push_back(((o0 * g.stride[0]) * g.in[1] + o1 * g.stride[1]) * g.in[2] + o2 * g.stride[2]);
  return at;
}

// The channels-major matrix [C, N * P] of v [N, C, plane]: row c holds
// every image's sampled positions of channel c (`at`, or all when null).
void channels_major(ThreadPool &pool, const uint16_t *v, int64_t n, int64_t c, int64_t plane, const int64_t *at,
                    int64_t p, uint16_t *m) {
  parallel_for(pool, c * n, p, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t ch = row / n, img = row % n;
      const uint16_t *src = v + (img * c + ch) * plane;
      uint16_t *dst = m + ch * n * p + img * p;
      if (!at) {
        std::memcpy(dst, src, size_t(p) * sizeof(uint16_t));
      } else {
        for (int64_t i = 0; i < p; ++i) dst[i] = src[at[i]];
      }
    }
  });
}

// The float32 product [C, N * P] back into out [N, C, plane] as bfloat16
// (plus bias[c] when given), at the sampled positions; every other
// position of the plane (a transposed convolution's skipped inputs) is 0.
// The product is scratch: the bias is added in place.
void to_images(ThreadPool &pool, float *m, const float *bias, int64_t n, int64_t c, int64_t plane,
               const int64_t *at, int64_t p, uint16_t *out) {
  const HalfConverters &h = converters();
  parallel_for(pool, c * n, plane, [&](int64_t begin, int64_t end) {
    std::vector<uint16_t> row(at ? size_t(p) : 0);
    for (int64_t r = begin; r < end; ++r) {
      const int64_t ch = r / n, img = r % n;
      float *src = m + ch * n * p + img * p;
      if (bias)
        for (int64_t i = 0; i < p; ++i) src[i] += bias[ch];
      uint16_t *dst = out + (img * c + ch) * plane;
      if (!at) {
        h.f32_to_bf16(src, dst, p);
      } else {
        h.f32_to_bf16(src, row.data(), p);
        std::fill(dst, dst + plane, uint16_t(0));
        for (int64_t i = 0; i < p; ++i) dst[at[i]] = row[size_t(i)];
      }
    }
  });
}

}  // namespace

bool pointwise_conv_wins() { return onednn_conv_bf16_amx() && onednn_bf16_available(); }

bool pointwise_conv_fits(const bp_sdk_conv &g) {
  if (g.groups != 1 || g.n < 1 || g.out[0] * g.out[1] * g.out[2] > kSmallPlane) return false;
  for (int i = 0; i < BP_WINDOW_MAX_RANK; ++i)
    if (g.kernel[i] != 1 || g.pad_begin[i] != 0 || g.pad_end[i] != 0) return false;
  return true;
}

bool pointwise_conv_bf16(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, const uint16_t *a, const uint16_t *b,
                         const float *bias, void *out) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], p = g.out[0] * g.out[1] * g.out[2];
  const int64_t cols = g.n * p;  // the GEMM's batch-wide extent
  bool sampled = in_plane != p;
  for (int i = 0; i < BP_WINDOW_MAX_RANK; ++i) sampled = sampled || g.stride[i] != 1;
  const std::vector<int64_t> offsets = sampled ? sampled_offsets(g) : std::vector<int64_t>();
  const int64_t *at = sampled ? offsets.data() : nullptr;
  MemoryPool &memory = g_backend.memory;
  if (op == BP_OP_CONV) {
    const ScratchBlock xm(memory, uint64_t(g.c_in * cols) * 2), product(memory, uint64_t(g.c_out * cols) * 4);
    uint16_t *const x = static_cast<uint16_t *>(xm.data());
    channels_major(pool, a, g.n, g.c_in, in_plane, at, p, x);
    if (!bf16_gemm_exact_enough(pool, b, g.c_out, g.c_in, g.c_in, 1, x, g.c_in, cols, cols, 1) ||
        !onednn_bf16_gemm(pool, b, g.c_in, 1, x, cols, 1, static_cast<float *>(product.data()), g.c_out, cols,
                          g.c_in))
      return false;
    to_images(pool, static_cast<float *>(product.data()), bias, g.n, g.c_out, p, nullptr, p,
              static_cast<uint16_t *>(out));
    return true;
  }
  if (op == BP_OP_CONV_TRANSPOSE && bias) return false;
  // dy [N, C_out, P] as [C_out, N * P]: both other operators read it so.
  const ScratchBlock dym(memory, uint64_t(g.c_out * cols) * 2);
  uint16_t *const dy = static_cast<uint16_t *>(dym.data());
  if (op == BP_OP_CONV_TRANSPOSE) {
    channels_major(pool, a, g.n, g.c_out, p, nullptr, p, dy);
    const ScratchBlock product(memory, uint64_t(g.c_in * cols) * 4);
    // dx's samples [C_in, N * P] = w^T [C_in, C_out] dy.
    if (!bf16_gemm_exact_enough(pool, b, g.c_in, g.c_out, 1, g.c_in, dy, g.c_out, cols, cols, 1) ||
        !onednn_bf16_gemm(pool, b, 1, g.c_in, dy, cols, 1, static_cast<float *>(product.data()), g.c_in, cols,
                          g.c_out))
      return false;
    to_images(pool, static_cast<float *>(product.data()), nullptr, g.n, g.c_in, in_plane, at, p,
              static_cast<uint16_t *>(out));
    return true;
  }
  // dw [C_out, C_in] = dy [C_out, N * P] x^T [N * P, C_in].
  channels_major(pool, b, g.n, g.c_out, p, nullptr, p, dy);
  const ScratchBlock xm(memory, uint64_t(g.c_in * cols) * 2);
  uint16_t *const x = static_cast<uint16_t *>(xm.data());
  channels_major(pool, a, g.n, g.c_in, in_plane, at, p, x);
  return bf16_gemm_exact_enough(pool, dy, g.c_out, cols, cols, 1, x, cols, g.c_in, 1, cols) &&
         onednn_bf16_gemm(pool, dy, cols, 1, x, 1, cols, static_cast<float *>(out), g.c_out, g.c_in, cols);
}

}  // namespace cpu_backend
