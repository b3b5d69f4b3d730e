// Pooling through oneDNN (pool_onednn.hpp). The backend's pool splits the
// (n, c) planes and each block of planes runs oneDNN on one thread, as the
// bfloat16 GEMM does (gemm_onednn.cpp: no OpenMP team left spinning). A
// dense [N, C, S...] view is [1, planes, S...] for a block of planes.
//
// Where the answers agree (plugin.h): oneDNN's padding never counts for
// max; its avg_include_padding divides by the whole window, which is
// plugin.h's count only when every window lies within pad_end (floor-mode
// extents); avg_exclude_padding counts the elements inside the input, for
// any extents (the right padding given is then what the extents need).
// Windows over padding alone are left to our kernel (0 there).
#include "pool_onednn.hpp"

#include <omp.h>

#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>

#include "backplane/sdk/coalesce.h"
#include "backplane/sdk/window.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

using dnnl::memory;

const dnnl::engine &engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One block's problem: [0] max (bit 0), backward (bit 1) and the spatial
// rank (bits 2..), [1] the planes, then 3 entries each (unused ones 0) of
// the input's extents [2..4], the output's [5..7], the kernel [8..10], the
// stride [11..13], the padding before [14..16] and after [17..19].
using Key = std::array<int64_t, 1 + 1 + 3 + 3 + 3 * 4>;

struct Problem {
  bool max, backward;
  int32_t rank;
  memory::dims src, dst, kernel, stride, pad_l, pad_r;
};

Problem problem_of(const Key &k) {
  Problem p;
  p.max = k[0] & 1;
  p.backward = (k[0] & 2) != 0;
  p.rank = int32_t(k[0] >> 2);
  p.src = {1, k[1]};
  p.dst = {1, k[1]};
  for (int32_t d = 0; d < p.rank; ++d) {
    p.src.push_back(k[2 + size_t(d)]);
    p.dst.push_back(k[5 + size_t(d)]);
    p.kernel.push_back(k[8 + size_t(d)]);
    p.stride.push_back(k[11 + size_t(d)]);
    p.pad_l.push_back(k[14 + size_t(d)]);
    p.pad_r.push_back(k[17 + size_t(d)]);
  }
  return p;
}

memory::format_tag plain(int32_t rank) {
  return rank == 1 ? memory::format_tag::ncw : rank == 2 ? memory::format_tag::nchw : memory::format_tag::ncdhw;
}

dnnl::algorithm algorithm_of(const Problem &p, bool include_pad) {
  return p.max ? dnnl::algorithm::pooling_max
               : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                             : dnnl::algorithm::pooling_avg_exclude_padding;
}

// Compiled primitives by block problem: a repeated shape skips building the
// primitive descriptor. Several threads run one primitive at once, each
// with its own scratchpad (the user mode: oneDNN's own would be shared, and
// its kernels for plain layouts transpose through it).
struct Primitives {
  dnnl::primitive forward, backward;
  memory::desc scratchpad;
};

Primitives primitives_for(const Key &key, bool include_pad) {
  static std::mutex mutex;
  static std::map<std::pair<Key, bool>, Primitives> cache;
  constexpr size_t kCapacity = 64;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find({key, include_pad});
    if (found != cache.end()) return found->second;
  }
  const Problem p = problem_of(key);
  const memory::desc src(p.src, memory::data_type::f32, plain(p.rank)), dst(p.dst, memory::data_type::f32, plain(p.rank));
  const dnnl::pooling_forward::desc fd(dnnl::prop_kind::forward_inference, algorithm_of(p, include_pad), src, dst,
                                       p.stride, p.kernel, p.pad_l, p.pad_r);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  Primitives made;
  if (p.backward) {
    const dnnl::pooling_forward::primitive_desc hint(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, algorithm_of(p, include_pad), src, dst,
                                    p.stride, p.kernel, p.pad_l, p.pad_r),
        engine());
    const dnnl::pooling_backward::desc bd(algorithm_of(p, include_pad), src, dst, p.stride, p.kernel, p.pad_l,
                                          p.pad_r);
    const dnnl::pooling_backward::primitive_desc bpd(bd, attr, engine(), hint);
    made.backward = dnnl::pooling_backward(bpd);
    made.scratchpad = bpd.scratchpad_desc();
  } else {
    const dnnl::pooling_forward::primitive_desc fpd(fd, attr, engine());
    made.forward = dnnl::pooling_forward(fpd);
    made.scratchpad = fpd.scratchpad_desc();
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kCapacity) cache.clear();
  cache.emplace(std::make_pair(key, include_pad), made);
  return made;
}

// The block key of `full` (x or dx) and `pooled` (y or dy) under w, or false
// when oneDNN's answer would not be plugin.h's: dilation, a window over
// padding alone, or padding counted past pad_end.
bool key_of(bool max, bool backward, const bp_window_params &w, const View &full, const View &pooled, Key &key) {
  const bool include = !max && (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  key.fill(0);
  key[0] = (max ? 1 : 0) | (backward ? 2 : 0) | (int64_t(w.spatial_rank) << 2);
  for (int32_t d = 0; d < w.spatial_rank; ++d) {
    const int64_t s = full.shape[2 + d], o = pooled.shape[2 + d], k = w.kernel[d], st = w.stride[d];
    if (w.dilation[d] != 1) return false;
    if (bp_sdk_window_unreached(s, o, k, st, 1, w.pad_begin[d]) >= 0) return false;
    const int64_t floor_o = bp_sdk_window_extent(s, k, st, 1, w.pad_begin[d], w.pad_end[d], 0);
    if (include && o != floor_o) return false;
    // The right padding oneDNN's extent formula needs for o outputs.
    const int64_t pad_r = std::max<int64_t>(w.pad_end[d], (o - 1) * st + k - s - w.pad_begin[d]);
    key[2 + size_t(d)] = s;
    key[5 + size_t(d)] = o;
    key[8 + size_t(d)] = k;
    key[11 + size_t(d)] = st;
    key[14 + size_t(d)] = w.pad_begin[d];
    key[17 + size_t(d)] = pad_r;
  }
  return true;
}

// Whether any of the n floats is a NaN, scanned on the pool's threads.
bool any_nan(ThreadPool &pool, const float *x, int64_t n) {
  std::atomic<bool> found{false};
  parallel_for(pool, n, 1, [&](int64_t begin, int64_t end) {
    bool nan = false;
    for (int64_t i = begin; i < end; ++i) nan |= std::isnan(x[i]);
    if (nan) found.store(true, std::memory_order_relaxed);
  });
  return found.load(std::memory_order_relaxed);
}

// Runs the blocks of planes on the pool, each on one thread; false when
// oneDNN refused (then nothing was written: the refusal comes from
// building the primitive, before any block runs).
bool run_blocks(ThreadPool &pool, Key key, bool include_pad, const float *in, float *out, int64_t in_plane,
                int64_t out_plane, int64_t planes, int64_t cost_per_plane) {
  const int64_t pieces = std::max<int64_t>(1, std::min<int64_t>(planes, pool.threads() * 4));
  const int64_t step = (planes + pieces - 1) / pieces, blocks = (planes + step - 1) / step;
  const bool backward = (key[0] & 2) != 0;
  // Both block shapes are built first, so that a refusal writes nothing,
  // for the one OpenMP thread each block runs on: oneDNN fixes a
  // primitive's thread count when it is built (conv_onednn.cpp's plan_for).
  omp_set_num_threads(1);
  try {
    for (int64_t size : {step, planes - (blocks - 1) * step}) {
      Key k = key;
      k[1] = size;
      primitives_for(k, include_pad);
    }
  } catch (const dnnl::error &) {
    return false;
  }
  std::atomic<bool> failed{false};
  parallel_for(pool, blocks, cost_per_plane * step, [&](int64_t begin, int64_t end) {
    omp_set_num_threads(1);
    for (int64_t b = begin; b < end; ++b) {
      Key k = key;
      k[1] = std::min(step, planes - b * step);
      try {
        const Primitives p = primitives_for(k, include_pad);
        const Problem shape = problem_of(k);
        const memory::desc src(shape.src, memory::data_type::f32, plain(shape.rank)),
            dst(shape.dst, memory::data_type::f32, plain(shape.rank));
        dnnl::stream stream(engine());
        const memory scratch(p.scratchpad, engine());
        if (!backward) {
          const memory sm(src, engine(), const_cast<float *>(in) + b * step * in_plane),
              dm(dst, engine(), out + b * step * out_plane);
          p.forward.execute(stream, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_SCRATCHPAD, scratch}});
        } else {
          // in: dy (the pooled view), out: dx (the full one).
          const memory gm(dst, engine(), const_cast<float *>(in) + b * step * in_plane),
              xm(src, engine(), out + b * step * out_plane);
          p.backward.execute(stream,
                             {{DNNL_ARG_DIFF_DST, gm}, {DNNL_ARG_DIFF_SRC, xm}, {DNNL_ARG_SCRATCHPAD, scratch}});
        }
        stream.wait();
      } catch (const std::exception &) {
        failed.store(true, std::memory_order_relaxed);
      }
    }
  });
  return !failed.load(std::memory_order_relaxed);
}

int64_t spatial_numel(const View &v) {
  int64_t n = 1;
  for (int32_t d = 2; d < v.rank; ++d) n *= v.shape[d];
  return n;
}

}  // namespace

bool onednn_pool(ThreadPool &pool, int32_t op, const bp_window_params &w, const View &x, const View &y) {
  const bool max = op == BP_OP_MAX_POOL;
  Key key;
  if (x.dtype != BP_FLOAT32 || !bp_sdk_is_dense(x.rank, x.shape, x.strides) ||
      !bp_sdk_is_dense(y.rank, y.shape, y.strides) || !key_of(max, false, w, x, y, key))
    return false;
  if (max && any_nan(pool, x.data<float>(), x.numel)) return false;
  const int64_t taps = [&] {
    int64_t t = 1;
    for (int32_t d = 0; d < w.spatial_rank; ++d) t *= w.kernel[d];
    return t;
  }();
  return run_blocks(pool, key, (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0, x.data<float>(), y.data<float>(),
                    spatial_numel(x), spatial_numel(y), x.shape[0] * x.shape[1], spatial_numel(y) * taps);
}

bool onednn_avg_pool_grad(ThreadPool &pool, const bp_window_params &w, const View &dy, const View &dx) {
  Key key;
  if (dy.dtype != BP_FLOAT32 || !bp_sdk_is_dense(dy.rank, dy.shape, dy.strides) ||
      !bp_sdk_is_dense(dx.rank, dx.shape, dx.strides) || !key_of(false, true, w, dx, dy, key))
    return false;
  return run_blocks(pool, key, (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0, dy.data<float>(), dx.data<float>(),
                    spatial_numel(dy), spatial_numel(dx), dx.shape[0] * dx.shape[1], spatial_numel(dx) * 4);
}

}  // namespace cpu_backend
