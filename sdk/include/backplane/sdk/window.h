/*
 * backplane/sdk/window.h — the arithmetic of a sliding window along one
 * axis (bp_window_params, plugin.h's POOL family): the output extents of
 * floor and ceil mode, whether every window reaches the input, and how
 * many of a window's taps a divisor counts (since 1.6). C99, C++ and CUDA
 * host and device code; nothing to link. The core computes the extents it
 * passes with these, and the SDK's checks of execute() accept exactly those.
 */
#ifndef BACKPLANE_SDK_WINDOW_H
#define BACKPLANE_SDK_WINDOW_H

#include <stdint.h>

#if defined(__CUDACC__)
#define BP_SDK_WINDOW_FN static inline __host__ __device__
#else
#define BP_SDK_WINDOW_FN static inline
#endif

/* Output extent along an axis of `size` elements: floor((q) / stride) + 1
 * or, with ceil_mode, ceil(q / stride) + 1 less one when that last window
 * would start in the end padding (plugin.h), where q = size + pad_begin +
 * pad_end - dilation * (kernel - 1) - 1. 0 when q < 0 (the window is larger
 * than the padded input). Arguments within plugin.h's ranges (kernel,
 * stride, dilation >= 1; pads >= 0); no overflow for extents below 2^61. */
BP_SDK_WINDOW_FN int64_t bp_sdk_window_extent(int64_t size, int64_t kernel, int64_t stride,
                                              int64_t dilation, int64_t pad_begin, int64_t pad_end,
                                              int32_t ceil_mode) {
  const int64_t q = size + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  int64_t out;
  if (q < 0) return 0;
  out = (ceil_mode ? (q + stride - 1) / stride : q / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= size + pad_begin) --out;
  return out;
}

/* The first tap k (0..kernel-1) of output position o that lies inside
 * [0, size), or kernel when none does. */
BP_SDK_WINDOW_FN int64_t bp_sdk_window_first_inside(int64_t o, int64_t size, int64_t kernel,
                                                    int64_t stride, int64_t dilation,
                                                    int64_t pad_begin) {
  const int64_t start = o * stride - pad_begin;
  const int64_t k = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  return k < kernel && start + k * dilation < size ? k : kernel;
}

/* How many taps of output position o lie in [low, high). */
BP_SDK_WINDOW_FN int64_t bp_sdk_window_count_in(int64_t o, int64_t low, int64_t high, int64_t kernel,
                                                int64_t stride, int64_t dilation, int64_t pad_begin) {
  const int64_t start = o * stride - pad_begin;
  int64_t first, last;
  if (high <= low) return 0;
  first = start >= low ? 0 : (low - start + dilation - 1) / dilation;
  if (start + (kernel - 1) * dilation < high)
    last = kernel - 1;
  else if (start >= high)
    return 0;
  else
    last = (high - 1 - start) / dilation;
  return last >= first ? last - first + 1 : 0;
}

/* AVG_POOL's count along one axis for output position o: the taps inside
 * the input, or with include_pad those in [-pad_begin, size + pad_end). */
BP_SDK_WINDOW_FN int64_t bp_sdk_window_count(int64_t o, int64_t size, int64_t kernel, int64_t stride,
                                             int64_t dilation, int64_t pad_begin, int64_t pad_end,
                                             int32_t include_pad) {
  return include_pad ? bp_sdk_window_count_in(o, -pad_begin, size + pad_end, kernel, stride, dilation, pad_begin)
                     : bp_sdk_window_count_in(o, 0, size, kernel, stride, dilation, pad_begin);
}

/* -1 when every one of the `out` windows along the axis has a tap inside
 * the input, else the first output position whose window has none. */
BP_SDK_WINDOW_FN int64_t bp_sdk_window_unreached(int64_t size, int64_t out, int64_t kernel, int64_t stride,
                                                 int64_t dilation, int64_t pad_begin) {
  int64_t o;
  for (o = 0; o < out; ++o)
    if (bp_sdk_window_first_inside(o, size, kernel, stride, dilation, pad_begin) == kernel) return o;
  return -1;
}

#undef BP_SDK_WINDOW_FN

#endif /* BACKPLANE_SDK_WINDOW_H */
