// What the case builders of the operator families share (case_builders.cpp
// and the families with a file of their own: scan_cases.cpp,
// gather_cases.cpp, scatter_cases.cpp, topk_cases.cpp): the Builder that starts cases and
// fills inputs with values from the op's domain, labels, the large shapes,
// and the plain case of each family with a file of its own.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "case.hpp"
#include "values.hpp"
#include "views.hpp"

namespace bpcheck {

struct Builder {
  int32_t op, dtype, out_dtype;
  std::mt19937_64 rng;
  std::vector<Case> cases;

  Builder(int32_t op_, int32_t dtype_, int32_t out_, uint64_t seed) : op(op_), dtype(dtype_), out_dtype(out_), rng(seed) {}

  Case &start(const std::string &label) {
    cases.emplace_back();
    Case &c = cases.back();
    c.label = label;
    c.op = op;
    std::memset(&c.attrs, 0, sizeof c.attrs);
    c.attrs.struct_size = sizeof c.attrs;
    return c;
  }

  ViewDesc input(Case &c, int index, int32_t dt, const Shape &shape, LayoutSpec layout) {
    ViewDesc v = add_view(c, dt, shape, layout, false);
    fill_random(c, v, rng, domain_for(op, index, dt, out_dtype));
    return v;
  }
};

// "what [5, 7]", or "[5, 7]" when `what` is empty.
std::string label(const char *what, const Shape &shape);

// Large enough for every thread of a backend (300 000 elements); the
// secondary large cases use a third of that.
inline const Shape kLarge = {600, 500};
inline const Shape kLargeish = {400, 250};

// A case of the families that map each row along the last axis to a row of
// its length (SCAN, SOFTMAX): an input of `shape` and an output of its shape.
void add_rowwise(Builder &b, Case &c, const Shape &shape, LayoutSpec in = dense(), LayoutSpec out = dense());

// The views of one case of each family, into c (b.dtype in, b.out_dtype out):
// a gather of n index rows of k coordinates from data of
// shape `data`; a scatter of n index rows into an output of shape `out`,
// which starts with known values (its unnamed elements must keep them); the
// rows are distinct unless the operator defines repeats (SCATTER_ADD_ND).
void add_gather(Builder &b, Case &c, const Shape &data, int k, int64_t n, LayoutSpec data_layout = dense(),
                LayoutSpec index_layout = dense(), LayoutSpec out_layout = dense());
void add_scatter(Builder &b, Case &c, const Shape &out, int k, int64_t n, LayoutSpec out_layout = dense(),
                 LayoutSpec index_layout = dense(), LayoutSpec values_layout = dense());

// A TOPK case (ABI 1.6) of input `shape` with values and indices [..., k]
// in the `out` layout, the input drawn from `dom`.
void add_topk(Builder &b, Case &c, const Shape &shape, int64_t k, bool largest, LayoutSpec in, LayoutSpec out,
              const Domain &dom);

// A LAYER_NORM or RMS_NORM case over x of `shape` (its rows along the last
// axis): weight, bias and the statistics (mean, rstd; RMS_NORM's mean is
// always absent) present or absent as asked, eps as attrs.scalar.
void add_normalize(Builder &b, Case &c, const Shape &shape, double eps, bool weight, bool bias, bool mean, bool rstd,
                   LayoutSpec x_layout = dense(), LayoutSpec y_layout = dense());

// Every case of the families with a file of their own.
void topk_cases(Builder &b);
void normalize_cases(Builder &b);
void scan_cases(Builder &b);
void gather_cases(Builder &b);
void scatter_cases(Builder &b);
void attention_cases(Builder &b);  // attention_cases.cpp (since 1.6)

// The SOFTMAX family's cases (softmax_cases.cpp; since 1.6).
void softmax_cases(Builder &b);

}  // namespace bpcheck
