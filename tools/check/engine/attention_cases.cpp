// ATTENTION's cases: plain and batched problems, every kind of mask (with
// -inf elements, and a row that hides every key: NaN), causal with Lq equal
// to, below and above Lk, scales, k and v broadcast along a batch axis, a
// transposed k, a strided output, no keys (zeros), D = 0, no queries, and
// problems large enough for several tiles of every in-tree kernel.
#include "attention_cases.hpp"

#include <algorithm>
#include <cmath>

#include "backplane/plugin.h"
#include "family_builders.hpp"
#include "values.hpp"

namespace bpcheck {

namespace {

Shape with(const Shape &batch, int64_t rows, int64_t cols) {
  Shape s = batch;
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

// The element of v at the batch index `at` (rank - 2 entries) and (row, col).
double element(const Case &c, const ViewDesc &v, const int64_t *at, int64_t row, int64_t col) {
  int64_t idx[BP_MAX_RANK];
  const int r = v.rank;
  for (int d = 0; d < r - 2; ++d) idx[d] = at[d];
  idx[r - 2] = row;
  idx[r - 1] = col;
  return load_double(v.dtype, c.storages[size_t(v.storage)].data() + byte_at(v, idx));
}

}  // namespace

void add_attention(Builder &b, Case &c, const AttentionSpec &s) {
  const int32_t dt = b.dtype;
  const Domain unit{Domain::uniform, -1, 1};
  const int batch_rank = int(s.batch.size());
  auto input = [&](const Shape &shape, LayoutSpec layout) {
    ViewDesc v = add_view(c, dt, shape, layout, false);
    fill_random(c, v, b.rng, unit);
    return v;
  };
  const LayoutSpec kv = s.shared_kv && batch_rank > 0 ? broadcast(0) : dense();
  c.inputs.push_back(input(with(s.batch, s.lq, s.d), dense()));
  if (s.transposed_k && batch_rank == 0) {
    c.inputs.push_back(input(with(s.batch, s.lk, s.d), transposed()));
  } else if (s.transposed_k) {
    // The last two axes swapped in memory, the batch axes outermost.
    ViewDesc k = input(with(s.batch, s.d, s.lk), kv);
    std::swap(k.shape[batch_rank], k.shape[batch_rank + 1]);
    std::swap(k.strides[batch_rank], k.strides[batch_rank + 1]);
    c.inputs.push_back(k);
  } else {
    c.inputs.push_back(input(with(s.batch, s.lk, s.d), kv));
  }
  c.inputs.push_back(input(with(s.batch, s.lk, s.dv), kv));
  if (s.mask == AttentionMask::none) {
    c.inputs.push_back(absent_view());
  } else {
    const Shape shape = with(s.batch, s.lq, s.lk);
    LayoutSpec layout = dense();
    if (s.mask == AttentionMask::keys) layout = broadcast(batch_rank);
    if (s.mask == AttentionMask::shared && batch_rank > 0) layout = broadcast(0);
    ViewDesc m = add_view(c, dt, shape, layout, false);
    std::uniform_real_distribution<double> share(0, 1);
    const Domain mask_values{Domain::uniform, -2, 2};
    fill(c, m, [&](const int64_t *idx, int64_t) {
      if (s.hidden_row && idx[batch_rank] == 0) return Val{-INFINITY, 0};
      if (share(b.rng) < s.hidden) return Val{-INFINITY, 0};
      return draw(b.rng, dt, mask_values);
    });
    c.inputs.push_back(m);
  }
  c.output = add_view(c, b.out_dtype, with(s.batch, s.lq, s.dv), s.strided_out ? stepped() : dense(), true);
  c.attrs.scalar = s.scale;
  c.attrs.option = s.causal ? BP_OPTION_CAUSAL : 0;
}

AttentionSpec random_attention(std::mt19937_64 &rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  AttentionSpec s;
  const int64_t batch_rank = pick(0, 2);
  for (int64_t d = 0; d < batch_rank; ++d) s.batch.push_back(pick(1, 3));
  s.lq = pick(1, 40);
  s.lk = pick(0, 40) == 0 ? 0 : pick(1, 40);  // now and then no keys at all
  s.d = pick(1, 40);
  s.dv = pick(1, 40);
  s.mask = AttentionMask(pick(0, 3));
  s.hidden = double(pick(0, 4)) / 10;
  s.hidden_row = pick(0, 5) == 0;
  s.causal = pick(0, 1) == 1;
  s.scale = pick(0, 1) ? 1 / std::sqrt(double(s.d)) : std::uniform_real_distribution<double>(-1.5, 1.5)(rng);
  s.shared_kv = pick(0, 3) == 0;
  s.transposed_k = pick(0, 3) == 0;
  s.strided_out = pick(0, 3) == 0;
  return s;
}

void attention_cases(Builder &b) {
  auto make = [&](const char *what, const AttentionSpec &s) {
    add_attention(b, b.start(label(what, with(s.batch, s.lq, s.dv))), s);
  };
  AttentionSpec s;
  s.lq = 5, s.lk = 7, s.d = 4, s.dv = 3;
  make("plain", s);
  s.batch = {2, 3}, s.lq = 9, s.lk = 11, s.d = 8, s.dv = 5, s.mask = AttentionMask::full;
  make("batched, masked", s);
  s.mask = AttentionMask::none, s.causal = true, s.lq = 13, s.lk = 13, s.d = 16, s.dv = 16;
  make("causal", s);
  s.lq = 7, s.lk = 12;
  make("causal, fewer queries than keys", s);
  s.lq = 12, s.lk = 7;
  make("causal, more queries than keys", s);
  s.causal = false, s.mask = AttentionMask::full, s.hidden = 0.5, s.hidden_row = true;
  make("a row with every key hidden", s);
  s.hidden = 0.2, s.hidden_row = false, s.mask = AttentionMask::keys, s.shared_kv = true;
  make("key padding mask, k and v broadcast", s);
  s.mask = AttentionMask::shared, s.shared_kv = false, s.transposed_k = true, s.strided_out = true, s.scale = -0.7;
  make("shared mask, transposed k, strided output", s);
  s = AttentionSpec();
  s.batch = {2}, s.lq = 4, s.lk = 0, s.d = 3, s.dv = 5;
  make("no keys", s);
  s.lk = 6, s.d = 0;
  make("D = 0", s);
  s.d = 3, s.lq = 0;
  make("no queries", s);
  s = AttentionSpec();
  s.batch = {3}, s.lq = 70, s.lk = 150, s.d = 64, s.dv = 64, s.causal = true, s.mask = AttentionMask::full;
  s.scale = 0.125;
  make("large, causal, masked", s);
  s.batch = {2}, s.lq = 100, s.lk = 100, s.d = 40, s.dv = 72, s.causal = false, s.mask = AttentionMask::none;
  make("large, Dv past one tile", s);
}

void attention_scale(const Case &c, std::vector<double> &scale, std::vector<int64_t> &terms) {
  const ViewDesc &q = c.inputs[0], &k = c.inputs[1], &v = c.inputs[2], &mask = c.inputs[3], &out = c.output;
  const int r = out.rank;
  const int64_t lq = out.shape[r - 2], dv = out.shape[r - 1], lk = k.shape[r - 2], d = q.shape[r - 1];
  const bool causal = (c.attrs.option & BP_OPTION_CAUSAL) != 0;
  const double s = c.attrs.scalar;
  std::vector<double> score(size_t(std::max<int64_t>(lk, 1)));
  // One batch element at a time: the output's batch index walks its batch axes.
  ViewDesc batch = out;
  batch.rank = r - 2;
  for_each_index(batch, [&](const int64_t *at, int64_t b) {
    for (int64_t i = 0; i < lq; ++i) {
      double maximum = -INFINITY, largest = 0;
      for (int64_t j = 0; j < lk; ++j) {
        double dot = 0, magnitude = 0;
        for (int64_t x = 0; x < d; ++x) {
          const double p = element(c, q, at, i, x) * element(c, k, at, j, x);
          dot += p;
          magnitude += std::fabs(p);
        }
        double m = is_absent(mask) ? 0 : element(c, mask, at, i, j);
        score[size_t(j)] = s * dot + m;
        if (causal && j > i) score[size_t(j)] = -INFINITY;
        if (std::isfinite(m)) largest = std::max(largest, std::fabs(s) * magnitude + std::fabs(m));
        maximum = std::max(maximum, score[size_t(j)]);
      }
      double total = 0;
      for (int64_t j = 0; j < lk; ++j) total += score[size_t(j)] = std::exp(score[size_t(j)] - maximum);
      for (int64_t col = 0; col < dv; ++col) {
        const size_t pos = size_t((b * lq + i) * dv + col);
        double sum = 0;
        for (int64_t j = 0; j < lk; ++j) sum += score[size_t(j)] / total * std::fabs(element(c, v, at, j, col));
        scale[pos] = std::isfinite(sum) ? sum * (1 + largest) : 0;
        terms[pos] = lk + d;
      }
    }
  });
}

}  // namespace bpcheck
