// TOPK on the GPU (topk.cu): the plan of one call and its launcher.
#pragma once

#include <cstdint>

#include "kernel_args.hpp"
#include "view.hpp"

namespace bp_cuda {

class Scratch;

// TOPK along the last axis: `rows` walks the other axes (coalesced; operand
// 0 the values, 1 the indices, 2 the input) to each row's first element; a
// row's n input elements and k outputs follow at the last axis' strides.
struct TopkShape {
  IterShape rows;
  int64_t n, k;
  int64_t values_stride, indices_stride, in_stride;
};

// The plan of x [..., n] -> values and indices [..., k] (the SDK checked the shapes).
TopkShape make_topk_shape(const View &in, const View &values, const View &indices);

// Sorts every row of `in` (of `dtype`) into `scratch` with CUB's segmented
// stable sort of (key, position) pairs and writes each row's first k into
// values and indices (rows, n and k > 0).
void launch_topk(const Launch &launch, int32_t dtype, const TopkShape &shape, void *values, void *indices,
                 const void *in, bool largest, Scratch &scratch);

}  // namespace bp_cuda
