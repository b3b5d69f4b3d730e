// ATTENTION's cases (attention_cases.cpp): one problem described by an
// AttentionSpec, the fixed set make_cases gives, the random problems of the
// kit's `attention` group, and the scale the judge holds an output element
// to.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "case.hpp"
#include "views.hpp"

namespace bpcheck {

struct Builder;

enum class AttentionMask {
  none,       // absent
  full,       // [..., Lq, Lk], every element its own
  keys,       // one row per batch element, broadcast over the queries (a key padding mask)
  shared,     // one [Lq, Lk] for every batch element (stride 0 on the batch axes)
};

struct AttentionSpec {
  Shape batch;  // the output's batch axes
  int64_t lq = 1, lk = 1, d = 1, dv = 1;
  AttentionMask mask = AttentionMask::none;
  double hidden = 0.2;        // the share of mask elements that are -inf
  bool hidden_row = false;    // the mask hides every key of query 0: a NaN row
  bool causal = false;
  double scale = 0.5;         // attrs.scalar
  bool shared_kv = false;     // k and v broadcast along batch axis 0 (stride 0)
  bool transposed_k = false;  // k stored [..., D, Lk]
  bool strided_out = false;   // every other element of the output's rows
};

// The views and attributes of spec into c: q, k, v in [-1, 1], the mask in
// [-2, 2] with -inf elements.
void add_attention(Builder &b, Case &c, const AttentionSpec &spec);

// A random problem: batch rank 0 to 2, every extent up to about 40, any
// mask, causal or not, any scale, broadcast and strided views.
AttentionSpec random_attention(std::mt19937_64 &rng);

// For each output element (C order): what its rounding error grows with,
// sum_j P[i, j] |v[j, c]| (1 + the largest magnitude behind row i's scores,
// |s| sum_d |q k| + |mask|), and its number of terms, Lk + D. A NaN row
// (every key hidden) has scale 0: only NaN is right there.
void attention_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &terms);

}  // namespace bpcheck
