// Reductions (VAR's correction is the count finish() divides by less the
// correction): the reducers of backplane/kernels/reduce.hpp driven over the
// kept and reduced axes. Three schedules, chosen from the shape alone (never
// from the thread count, so results do not depend on it):
//  - each output reduces its own elements; a contiguous stretch uses
//    several accumulators side by side, which gcc vectorises;
//  - few outputs over long reductions: fixed-size chunks give partial
//    results in parallel, merged in order afterwards;
//  - reducing leading axes of a row-major tensor: a block of neighbouring
//    outputs is accumulated together, reading input rows contiguously.
// The 1.4 dtypes run a wider type's reducer on widened elements (Widened).
#include "backplane/kernels/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "dtype.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "half_block.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

constexpr int64_t kChunk = 65536;     // reduced elements per partial result
constexpr int64_t kFewOutputs = 64;   // below this, long reductions are chunked
constexpr int64_t kBlock = 256;       // outputs accumulated side by side

struct Plan {
  Layout<2> kept;     // kept axes; operand 0 is the output, 1 the input
  Layout<1> reduced;  // reduced axes of the input, in C order
  int64_t outputs;    // elements of the output
  int64_t count;      // elements reduced into each output
  int64_t divisor;    // what finish() gets: count, less VAR's correction
};

// An axis is reduced where the output's extent is 1 (plugin.h).
Plan make_plan(const View &in, const View &out, int64_t correction) {
  int64_t kept_shape[BP_MAX_RANK] = {}, kept_out[BP_MAX_RANK] = {}, kept_in[BP_MAX_RANK] = {};
  int64_t red_shape[BP_MAX_RANK] = {}, red_in[BP_MAX_RANK] = {};
  int nk = 0, nr = 0;
  for (int d = 0; d < in.rank; ++d) {
    if (out.shape[d] == 1) {
      red_shape[nr] = in.shape[d];
      red_in[nr++] = in.strides[d];
    } else {
      kept_shape[nk] = out.shape[d];
      kept_out[nk] = out.strides[d];
      kept_in[nk++] = in.strides[d];
    }
  }
  Plan plan;
  plan.kept = make_layout<2>(nk, kept_shape, {kept_out, kept_in});
  plan.reduced = make_layout<1>(nr, red_shape, {red_in});
  plan.outputs = out.numel;
  plan.count = plan.reduced.numel();
  plan.divisor = plan.count - correction;
  return plan;
}

// Reducer R (instantiated for a wide type) over elements of type T, each
// widened on the way in; its result narrowed once into T, unless it is an
// int64 (SUM and PROD of integers, ARGMAX, ARGMIN).
template <class R, class T>
struct Widened {
  using Wide = R;
  using in_t = T;
  using acc_t = typename R::acc_t;
  using out_t = std::conditional_t<std::is_same<typename R::out_t, int64_t>::value, int64_t, T>;
  static constexpr int lanes = R::lanes;
  static acc_t init() { return R::init(); }
  static acc_t step(acc_t a, T x, int64_t pos) {
    return R::step(a, static_cast<typename R::in_t>(widen(x)), pos);
  }
  static acc_t merge(acc_t a, acc_t b) { return R::merge(a, b); }
  static out_t finish(acc_t a, int64_t count) { return narrow<out_t>(R::finish(a, count)); }
};

// Whether reduce_run widens R's runs by blocks: the float64 reducers of
// halves (SUM, MEAN, NORM, PROD, LOGSUMEXP), and every float16 reducer.
// bfloat16's comparisons widen faster inline (a shift), where the block's
// reload would cost more than it saves.
template <class R>
struct is_widened_half : std::false_type {};
template <class W, class T>
struct is_widened_half<Widened<W, T>>
    : std::integral_constant<bool, std::is_same<T, float16>::value ||
                                       (is_half<T> && std::is_same<typename W::in_t, double>::value)> {};

// Folds n elements at p, p + stride, ... (C-order positions pos...) into acc.
// A contiguous stretch runs R::lanes accumulators side by side. E is R's
// element type, or float32 widened from a 16-bit float for a wide R.
template <class R, class E>
typename R::acc_t reduce_lanes(typename R::acc_t acc, const E *p, int64_t stride, int64_t n, int64_t pos) {
  using In = typename R::in_t;
  constexpr int L = R::lanes;
  if (L > 1 && stride == 1 && n >= 2 * L) {
    typename R::acc_t lane[L];
    for (int l = 0; l < L; ++l) lane[l] = R::init();
    int64_t i = 0;
    for (; i + L <= n; i += L)
      for (int l = 0; l < L; ++l) lane[l] = R::step(lane[l], static_cast<In>(p[i + l]), pos + i + l);
    for (int l = 0; l < L; ++l) acc = R::merge(acc, lane[l]);
    for (; i < n; ++i) acc = R::step(acc, static_cast<In>(p[i]), pos + i);
    return acc;
  }
  for (int64_t i = 0; i < n; ++i) acc = R::step(acc, static_cast<In>(p[i * stride]), pos + i);
  return acc;
}

// reduce_lanes, except that a contiguous run of 16-bit floats is widened a
// block at a time with the vector conversion and folded by the wide reducer
// (element by element, half.h's scalar widening was the whole cost).
template <class R>
typename R::acc_t reduce_run(typename R::acc_t acc, const typename R::in_t *p, int64_t stride, int64_t n,
                             int64_t pos) {
  if constexpr (is_widened_half<R>::value) {
    if (stride == 1) {
      alignas(64) float block[kHalfBlock];
      for (int64_t b = 0; b < n; b += kHalfBlock) {
        const int64_t m = std::min(kHalfBlock, n - b);
        load_floats(p + b, 1, m, block);
        acc = reduce_lanes<typename R::Wide>(acc, static_cast<const float *>(block), 1, m, pos + b);
      }
      return acc;
    }
  }
  return reduce_lanes<R>(acc, p, stride, n, pos);
}

// Reduces positions [r0, r1) of the reduced axes, starting from `base`.
template <class R>
typename R::acc_t reduce_range(const Plan &plan, const typename R::in_t *base, int64_t r0, int64_t r1) {
  typename R::acc_t acc = R::init();
  const int64_t s = plan.reduced.inner_stride(0);
  if (plan.reduced.rank == 1) return reduce_run<R>(acc, base + r0 * s, s, r1 - r0, r0);
  walk(plan.reduced, r0, r1, [&](const int64_t *off, int64_t n, int64_t pos) {
    acc = reduce_run<R>(acc, base + off[0], s, n, pos);
  });
  return acc;
}

template <class R>
void each_output(ThreadPool &pool, const Plan &plan, const typename R::in_t *x, typename R::out_t *y) {
  const int64_t so = plan.kept.inner_stride(0), si = plan.kept.inner_stride(1);
  parallel_for(pool, plan.outputs, std::max<int64_t>(plan.count, 1), [&](int64_t begin, int64_t end) {
    walk(plan.kept, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      for (int64_t i = 0; i < n; ++i)
        y[off[0] + i * so] = R::finish(reduce_range<R>(plan, x + off[1] + i * si, 0, plan.count), plan.divisor);
    });
  });
}

template <class R>
void chunked(ThreadPool &pool, const Plan &plan, const typename R::in_t *x, typename R::out_t *y) {
  const int64_t chunks = (plan.count + kChunk - 1) / kChunk;
  std::vector<int64_t> in_offset(plan.outputs), out_offset(plan.outputs);
  const int64_t so = plan.kept.inner_stride(0), si = plan.kept.inner_stride(1);
  walk(plan.kept, 0, plan.outputs, [&](const int64_t *off, int64_t n, int64_t pos) {
    for (int64_t i = 0; i < n; ++i) {
      out_offset[pos + i] = off[0] + i * so;
      in_offset[pos + i] = off[1] + i * si;
    }
  });
  std::vector<typename R::acc_t> partial(plan.outputs * chunks);
  parallel_for(pool, plan.outputs * chunks, kChunk, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / chunks, c = t % chunks;
      partial[t] = reduce_range<R>(plan, x + in_offset[o], c * kChunk, std::min(plan.count, (c + 1) * kChunk));
    }
  });
  for (int64_t o = 0; o < plan.outputs; ++o) {
    typename R::acc_t acc = partial[o * chunks];
    for (int64_t c = 1; c < chunks; ++c) acc = R::merge(acc, partial[o * chunks + c]);
    y[out_offset[o]] = R::finish(acc, plan.divisor);
  }
}

// For kept axes whose innermost has input stride 1: up to kBlock outputs
// advance together through the reduced positions, so each input row is
// read contiguously and the inner loop vectorises across outputs.
template <class R>
void blocked(ThreadPool &pool, const Plan &plan, const typename R::in_t *x, typename R::out_t *y) {
  const int64_t so = plan.kept.inner_stride(0), rs = plan.reduced.inner_stride(0);
  parallel_for(pool, plan.outputs, plan.count, [&](int64_t begin, int64_t end) {
    walk(plan.kept, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
        const int64_t m = std::min(kBlock, n - j0);
        typename R::acc_t acc[kBlock];
        for (int64_t j = 0; j < m; ++j) acc[j] = R::init();
        const typename R::in_t *base = x + off[1] + j0;
        walk(plan.reduced, 0, plan.count, [&](const int64_t *roff, int64_t rn, int64_t pos) {
          for (int64_t i = 0; i < rn; ++i) {
            const typename R::in_t *row = base + roff[0] + i * rs;
            for (int64_t j = 0; j < m; ++j) acc[j] = R::step(acc[j], row[j], pos + i);
          }
        });
        typename R::out_t *po = y + off[0] + j0 * so;
        for (int64_t j = 0; j < m; ++j) po[j * so] = R::finish(acc[j], plan.divisor);
      }
    });
  });
}

template <class R>
void run(ThreadPool &pool, const Plan &plan, const View &in, const View &out) {
  const auto *x = in.data<typename R::in_t>();
  auto *y = out.data<typename R::out_t>();
  const int last = plan.kept.rank - 1;
  if (plan.outputs < kFewOutputs && plan.count >= 2 * kChunk)
    chunked<R>(pool, plan, x, y);
  else if (plan.count > 1 && plan.kept.inner_stride(1) == 1 && plan.kept.shape[last] >= 16 &&
           plan.reduced.inner_stride(0) != 1)
    blocked<R>(pool, plan, x, y);
  else
    each_output<R>(pool, plan, x, y);
}

template <template <class> class R, class... Ts>
void reduce_as(ThreadPool &pool, const Plan &plan, const View &in, const View &out) {
  dispatch<Ts...>(in.dtype, [&](auto tag) { run<R<typename decltype(tag)::type>>(pool, plan, in, out); });
}


// The wide type a reduction of T accumulates in: halves sum in float64 and
// round once at the end, keep MAX/MIN/ARG* in float32; small integers sum
// and multiply in int64 (wrapping) and compare in int32.
template <template <class> class R, class T, bool exact_compare>
using WidenedReducer =
    Widened<R<std::conditional_t<is_half<T>, std::conditional_t<exact_compare, float, double>,
                                 std::conditional_t<exact_compare, int32_t, int64_t>>>,
            T>;

// Reduction R of the 1.4 dtypes; exact_compare for MAX, MIN, ARGMAX, ARGMIN.
template <template <class> class R, bool exact_compare, class... Ts>
void reduce_small(ThreadPool &pool, const Plan &plan, const View &in, const View &out) {
  dispatch<Ts...>(in.dtype, [&](auto tag) {
    run<WidenedReducer<R, typename decltype(tag)::type, exact_compare>>(pool, plan, in, out);
  });
}

// MEAN in float64 whose mean of nothing is the positive NaN the reference
// writes (0.0 / 0.0 is x86's negative one, which a 16-bit float keeps).
template <class T>
struct MeanOfNoneNan : bk::MeanReducer<T> {
  static T finish(double a, int64_t count) { return count > 0 ? static_cast<T>(a / static_cast<double>(count)) : T(NAN); }
};

bool is_small_dtype(int32_t dtype) {
  return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16 || dtype == BP_INT8 || dtype == BP_UINT8 || dtype == BP_INT16;
}

void reduce_small_kernel(ThreadPool &pool, int32_t op, const Plan &plan, const View &in, const View &out) {
  switch (op) {
    case BP_OP_SUM: return reduce_small<bk::SumReducer, false, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_MEAN: return reduce_small<MeanOfNoneNan, false, BP_HALF_TYPES>(pool, plan, in, out);
    case BP_OP_MAX: return reduce_small<bk::MaxReducer, true, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_MIN: return reduce_small<bk::MinReducer, true, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_ARGMAX:
      return reduce_small<bk::ArgmaxReducer, true, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_ARGMIN:
      return reduce_small<bk::ArgminReducer, true, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_PROD: return reduce_small<bk::ProdReducer, false, BP_HALF_TYPES, BP_SMALL_INT_TYPES>(pool, plan, in, out);
    case BP_OP_NORM: return reduce_small<bk::NormReducer, false, BP_HALF_TYPES>(pool, plan, in, out);
    case BP_OP_LOGSUMEXP: return reduce_small<bk::LogSumExpReducer, false, BP_HALF_TYPES>(pool, plan, in, out);
    case BP_OP_VAR: return reduce_small<bk::VarReducer, false, BP_HALF_TYPES>(pool, plan, in, out);
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: reduce_kernel got op %d", op);
  }
}

}  // namespace

void reduce_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out, int64_t correction) {
  if (out.numel == 0) return;
  const Plan plan = make_plan(in, out, correction);
  if (is_small_dtype(in.dtype)) return reduce_small_kernel(pool, op, plan, in, out);
  switch (op) {
    case BP_OP_SUM: return reduce_as<bk::SumReducer, BP_ALL_TYPES>(pool, plan, in, out);
    case BP_OP_MEAN: return reduce_as<bk::MeanReducer, BP_FLOAT_TYPES>(pool, plan, in, out);
    case BP_OP_MAX: return reduce_as<bk::MaxReducer, BP_NUMERIC_TYPES>(pool, plan, in, out);
    case BP_OP_MIN: return reduce_as<bk::MinReducer, BP_NUMERIC_TYPES>(pool, plan, in, out);
    case BP_OP_ARGMAX: return reduce_as<bk::ArgmaxReducer, BP_NUMERIC_TYPES>(pool, plan, in, out);
    case BP_OP_ARGMIN: return reduce_as<bk::ArgminReducer, BP_NUMERIC_TYPES>(pool, plan, in, out);
    case BP_OP_PROD: return reduce_as<bk::ProdReducer, BP_NUMERIC_TYPES>(pool, plan, in, out);
    case BP_OP_NORM: return reduce_as<bk::NormReducer, BP_FLOAT_TYPES>(pool, plan, in, out);
    case BP_OP_LOGSUMEXP: return reduce_as<bk::LogSumExpReducer, BP_FLOAT_TYPES>(pool, plan, in, out);
    case BP_OP_VAR: return reduce_as<bk::VarReducer, BP_FLOAT_TYPES>(pool, plan, in, out);
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: reduce_kernel got op %d", op);
  }
}

}  // namespace cpu_backend
