// Reduction kernels shared by reduce_sum.cu and reduce_extreme.cu. The math
// is a reducer of backplane/kernels/reduce.hpp (init/step/merge/finish),
// the same the CPU backends use; this file only decides who combines what.
//
// - Few elements per output, or many outputs adjacent in memory: one
//   thread per output walks its elements in order.
// - Otherwise one block per output: its threads stride over the elements,
//   then merge their accumulators in a shared-memory tree. When there are
//   too few outputs to fill the device, each output is split over several
//   blocks that write partial accumulators, and a second kernel merges them
//   (two passes).
// schedule_reduce (iteration.cpp) chooses.
// Every thread steps through positions in increasing order, and merge()
// itself looks at positions, so ARGMAX finds the first maximum however the
// work is cut.
#pragma once

#include <cstdint>

#include "backplane/kernels/reduce.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "iteration.hpp"
#include "kernel_args.hpp"
#include "scratch.hpp"

namespace bp_cuda {

// Merges every thread's accumulator; all threads get the result. Called by
// all threads of the block (it synchronises), blockDim.x == kThreads.
template <class Red>
__device__ typename Red::acc_t block_merge(typename Red::acc_t acc, typename Red::acc_t *shared) {
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) shared[threadIdx.x] = Red::merge(shared[threadIdx.x], shared[threadIdx.x + width]);
    __syncthreads();
  }
  const typename Red::acc_t result = shared[0];
  __syncthreads();  // shared[0] is read by all before anyone writes it again
  return result;
}

template <class Red>
__global__ void __launch_bounds__(kThreads)
    reduce_thread_kernel(const __grid_constant__ ReducePlan p, const typename Red::in_t *in, typename Red::out_t *out) {
  for (int64_t o = first_index(); o < p.outputs; o += grid_stride()) {
    int64_t in_offset, out_offset;
    kept_offsets(p, o, in_offset, out_offset);
    typename Red::acc_t acc = Red::init();
    for (int64_t pos = 0; pos < p.count; ++pos) acc = Red::step(acc, in[in_offset + reduced_offset(p, pos)], pos);
    out[out_offset] = Red::finish(acc, p.divisor);
  }
}

// Task t = output t / splits, positions [s * per_split, (s + 1) * per_split)
// of it for s = t % splits. With splits == 1 the block finishes the output;
// else it stores its accumulator in partial[t].
template <class Red>
__global__ void __launch_bounds__(kThreads)
    reduce_block_kernel(const __grid_constant__ ReducePlan p, int64_t splits, int64_t per_split,
                        const typename Red::in_t *in, typename Red::out_t *out, typename Red::acc_t *partial) {
  __shared__ typename Red::acc_t shared[kThreads];
  const int64_t tasks = p.outputs * splits;
  for (int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {  // uniform across the block
    const int64_t o = task / splits;
    const int64_t begin = (task - o * splits) * per_split;
    const int64_t end = begin + per_split < p.count ? begin + per_split : p.count;
    int64_t in_offset, out_offset;
    kept_offsets(p, o, in_offset, out_offset);
    typename Red::acc_t acc = Red::init();
    for (int64_t pos = begin + threadIdx.x; pos < end; pos += blockDim.x)
      acc = Red::step(acc, in[in_offset + reduced_offset(p, pos)], pos);
    acc = block_merge<Red>(acc, shared);
    if (threadIdx.x == 0) {
      if (splits == 1)
        out[out_offset] = Red::finish(acc, p.divisor);
      else
        partial[task] = acc;
    }
  }
}

// Second pass: output o merges partial[o * splits .. (o + 1) * splits).
template <class Red>
__global__ void __launch_bounds__(kThreads)
    reduce_partials_kernel(const __grid_constant__ ReducePlan p, int64_t splits, const typename Red::acc_t *partial,
                           typename Red::out_t *out) {
  __shared__ typename Red::acc_t shared[kThreads];
  for (int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    typename Red::acc_t acc = Red::init();
    for (int64_t s = threadIdx.x; s < splits; s += blockDim.x) acc = Red::merge(acc, partial[o * splits + s]);
    acc = block_merge<Red>(acc, shared);
    if (threadIdx.x == 0) {
      int64_t in_offset, out_offset;
      kept_offsets(p, o, in_offset, out_offset);
      out[out_offset] = Red::finish(acc, p.divisor);
    }
  }
}

inline unsigned blocks_for(const Launch &launch, int64_t tasks) {
  return static_cast<unsigned>(tasks < launch.max_blocks ? tasks : launch.max_blocks);
}

// Enqueues the reduction `plan` (outputs > 0) with reducer Red.
template <class Red>
void reduce(const Launch &launch, const ReducePlan &plan, void *out_memory, const void *in_memory, Scratch &scratch,
            const char *name) {
  using acc_t = typename Red::acc_t;
  const auto *in = static_cast<const typename Red::in_t *>(in_memory);
  auto *out = static_cast<typename Red::out_t *>(out_memory);
  const ReduceSchedule schedule = schedule_reduce(plan, launch.max_blocks);
  if (schedule.per_thread) {
    reduce_thread_kernel<Red><<<grid_for(launch, plan.outputs), kThreads, 0, launch.stream>>>(plan, in, out);
    check_launch(name, launch.device);
    return;
  }
  const int64_t splits = schedule.splits;
  acc_t *partial = nullptr;
  if (splits > 1)
    partial = static_cast<acc_t *>(scratch.get(static_cast<uint64_t>(plan.outputs * splits) * sizeof(acc_t)));
  reduce_block_kernel<Red><<<blocks_for(launch, plan.outputs * splits), kThreads, 0, launch.stream>>>(
      plan, splits, schedule.per_split, in, out, partial);
  check_launch(name, launch.device);
  if (splits > 1) {
    reduce_partials_kernel<Red>
        <<<blocks_for(launch, plan.outputs), kThreads, 0, launch.stream>>>(plan, splits, partial, out);
    check_launch(name, launch.device);
  }
}

// reduce<Adapt<Red, T>> for the T of `dtype` in the vocabulary's dtype set
// `set`; Adapt is sum_like_t, extreme_t or arg_t (reducers.cuh).
template <int32_t set, template <template <class> class, class> class Adapt, template <class> class Red>
void reduce_dtype(int32_t dtype, const Launch &launch, const ReducePlan &plan, void *out, const void *in,
                  Scratch &scratch, const char *name) {
  dispatch_set<set>(dtype, [&](auto tag) {
    reduce<Adapt<Red, typename decltype(tag)::type>>(launch, plan, out, in, scratch, name);
  });
}

}  // namespace bp_cuda
