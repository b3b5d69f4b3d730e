#include "tensors/overlap.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "backplane/types.h"

namespace bp::core {

namespace {

struct Run {
  uint64_t begin, end;  // bytes [begin, end) of the storage
};

uint64_t element_size(const View &v) { return uint64_t(bp_vocab_dtype_size(v.dtype)); }

// The view's bytes as runs, an axis of stride 1 (if any) merged into each
// run; false when there would be more than kMaxRuns.
bool runs_of(const View &v, std::vector<Run> &out) {
  const uint64_t es = element_size(v);
  int32_t dense = -1;
  for (int32_t d = 0; d < v.rank; ++d)
    if (v.strides[d] == 1 && v.shape[d] > 1) dense = d;
  const uint64_t run = es * uint64_t(dense >= 0 ? v.shape[dense] : 1);
  uint64_t count = 1;
  for (int32_t d = 0; d < v.rank; ++d)
    if (d != dense) count *= uint64_t(v.shape[d]);
  if (count > kMaxRuns) return false;
  out.reserve(size_t(count));
  int64_t idx[BP_MAX_RANK] = {};
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t at = v.offset;
    for (int32_t d = 0; d < v.rank; ++d) at += uint64_t(idx[d] * v.strides[d]) * es;
    out.push_back({at, at + run});
    for (int32_t d = v.rank - 1; d >= 0; --d) {
      if (d == dense) continue;
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  std::sort(out.begin(), out.end(), [](const Run &x, const Run &y) { return x.begin < y.begin; });
  return true;
}

// Every element of a view starts at offset + (multiple of g) bytes, g the
// gcd of its byte strides; two views whose element bytes fall in disjoint
// residues modulo the common g cannot meet.
bool disjoint_residues(const View &a, const View &b) {
  uint64_t g = 0;
  for (const View *v : {&a, &b})
    for (int32_t d = 0; d < v->rank; ++d)
      if (v->shape[d] > 1) g = std::gcd(g, uint64_t(v->strides[d]) * element_size(*v));
  if (g == 0) return false;  // two single elements: the byte ranges decided it
  const uint64_t ra = a.offset % g, rb = b.offset % g, ea = element_size(a), eb = element_size(b);
  if (ea > g || eb > g) return false;
  // [ra, ra + ea) and [rb, rb + eb) on a circle of length g.
  auto meets = [g](uint64_t x, uint64_t lx, uint64_t y) { return (y + g - x) % g < lx; };
  return !meets(ra, ea, rb) && !meets(rb, eb, ra);
}

}  // namespace

bool views_overlap(const View &a, const View &b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const uint64_t a0 = a.offset, a1 = a.offset + a.extent_bytes();
  const uint64_t b0 = b.offset, b1 = b.offset + b.extent_bytes();
  if (a1 <= b0 || b1 <= a0) return false;
  // A contiguous view holds every byte of its range, which the other's
  // first or last byte then falls in. In-place updates (an optimiser's
  // step, x += y) ask this of whole tensors, whose runs would otherwise be
  // listed and sorted on every call.
  if (a.contiguous() && (b0 >= a0 || b1 <= a1)) return true;
  if (b.contiguous() && (a0 >= b0 || a1 <= b1)) return true;
  if (disjoint_residues(a, b)) return false;
  std::vector<Run> ra, rb;
  if (!runs_of(a, ra) || !runs_of(b, rb)) return true;
  size_t i = 0, j = 0;
  while (i < ra.size() && j < rb.size()) {
    if (ra[i].end <= rb[j].begin) ++i;
    else if (rb[j].end <= ra[i].begin) ++j;
    else return true;
  }
  return false;
}

}  // namespace bp::core
