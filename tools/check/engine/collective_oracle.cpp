// The host's side of collectives (collective_oracle.hpp): the cases, the
// inputs, and the values every output must hold, from plugin.h's semantics.
#include "collective_oracle.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#include "text.hpp"
#include "tolerances.hpp"
#include "values.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

using Shape = Coll::Shape;
using Bytes = std::vector<uint8_t>;

// Calls f(T{}) with the host type of `dtype` (by its kind and size; bool
// as a byte, whose MAX and MIN of 0 and 1 are or and and); false for a
// dtype the kit has no host type for.
template <class F>
bool with_host_type(int32_t dtype, F &&f) {
  const int32_t size = bp_vocab_dtype_size(dtype);
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  if (kind == BP_DTYPE_KIND_FLOAT && size == 4) return f(float{}), true;
  if (kind == BP_DTYPE_KIND_FLOAT && size == 8) return f(double{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 1) return f(int8_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 2) return f(int16_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 4) return f(int32_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 8) return f(int64_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 1) return f(uint8_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 2) return f(uint16_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 4) return f(uint32_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 8) return f(uint64_t{}), true;
  if (kind == BP_DTYPE_KIND_BOOL && size == 1) return f(uint8_t{}), true;
  return false;
}

// float16 and bfloat16: no host type; their values go through half.h
// (store, load_double) and reduce in float32 or wider, rounded once.
bool is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }


template <class T>
T get(const Bytes &b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + size_t(i) * sizeof(T), sizeof v);
  return v;
}
template <class T>
void put(Bytes &b, int64_t i, T v) {
  std::memcpy(b.data() + size_t(i) * sizeof(T), &v, sizeof v);
}

// plugin.h: SUM adds (integers wrap as ADD does), MAX and MIN elementwise
// (on bool: or, and), MEAN the sum divided by n (integers truncated toward
// zero, as C divides).
template <class T>
T combine(int32_t reduce_op, T a, T b) {
  if (reduce_op == BP_REDUCE_MAX) return b > a ? b : a;
  if (reduce_op == BP_REDUCE_MIN) return b < a ? b : a;
  if constexpr (std::is_floating_point<T>::value) {
    return a + b;
  } else {
    using U = typename std::make_unsigned<T>::type;
    return T(U(U(a) + U(b)));
  }
}
template <class T>
T finish(int32_t reduce_op, T acc, int32_t n) {
  return reduce_op == BP_REDUCE_MEAN ? T(acc / T(n)) : acc;
}

}  // namespace

std::vector<int32_t> vocab_collectives() {
  std::vector<int32_t> out;
#define BPCHECK_COLLECTIVE_(id, value, name) out.push_back(value);
  BP_COLLECTIVE_LIST(BPCHECK_COLLECTIVE_)
#undef BPCHECK_COLLECTIVE_
  return out;
}

std::vector<int32_t> vocab_reduce_ops() {
  std::vector<int32_t> out;
#define BPCHECK_REDUCE_(id, value, name, dtypes) out.push_back(value);
  BP_REDUCE_OP_LIST(BPCHECK_REDUCE_)
#undef BPCHECK_REDUCE_
  return out;
}

bool reduces(int32_t collective) {
  return collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_REDUCE_SCATTER;
}

int64_t elements(const Shape &s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

// Whether the kit can compute a collective's results in `dtype`.
bool computable(int32_t dtype) { return is_half(dtype) || with_host_type(dtype, [](auto) {}); }

Coll::Shape Coll::in_shape() const {
  Shape s = share;
  if (collective == BP_COLLECTIVE_REDUCE_SCATTER) s.insert(s.begin(), n());
  return s;
}

Coll::Shape Coll::out_shape() const {
  Shape s = share;
  if (collective == BP_COLLECTIVE_ALL_GATHER) s.insert(s.begin(), n());
  return s;
}

std::string Coll::name(const Plugin &p) const {
  std::string s = bp_vocab_collective_name(collective);
  if (reduces(collective)) s += std::string(" ") + bp_vocab_reduce_op_name(reduce_op);
  if (collective == BP_COLLECTIVE_BROADCAST) s += format(" from participant %d", int(root));
  s += std::string(" ") + dtype_name(dtype) + " S " + shape_text(int32_t(share.size()), share.data()) + " on ";
  for (size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + p.device_name(devices[i]);
  if (group) s += format(" in group %llu (one rank)", (unsigned long long)group);
  return s + (in_place ? ", in place" : "");
}

// Every collective, reduction, root and in-place variant of one dtype on
// one device list, with S = `share`.
std::vector<Coll> cases_for(int32_t dtype, const std::vector<int32_t> &devices, const Shape &share) {
  std::vector<Coll> out;
  for (int32_t collective : vocab_collectives()) {
    std::vector<int32_t> ops = {0};
    if (reduces(collective)) {
      ops.clear();
      for (int32_t op : vocab_reduce_ops())
        if (bp_vocab_dtype_in_set(dtype, bp_vocab_reduce_op_dtypes(op))) ops.push_back(op);
    }
    std::vector<int32_t> roots = {0};
    if (collective == BP_COLLECTIVE_BROADCAST && devices.size() > 1) roots.push_back(int32_t(devices.size()) - 1);
    const bool may_be_in_place = collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_BROADCAST;
    for (int32_t op : ops)
      for (int32_t root : roots)
        for (bool in_place : {false, true}) {
          if (in_place && !may_be_in_place) continue;
          Coll c;
          c.collective = collective;
          c.reduce_op = op;
          c.root = root;
          c.dtype = dtype;
          c.devices = devices;
          c.in_place = in_place;
          c.share = share;
          out.push_back(c);
        }
  }
  return out;
}

// Participant j's input: floats in [-4, 4]; integers in [-100, 100] with
// the extremes first (SUM wraps; MEAN of negative sums truncates toward
// zero); bools 0 or 1.
Bytes input_values(const Coll &c, int32_t j) {
  std::mt19937_64 rng(uint64_t(31 * c.collective + 7 * c.reduce_op + 1000 * c.dtype + j + 1));
  const int64_t count = elements(c.in_shape());
  Bytes b(size_t(count * bp_vocab_dtype_size(c.dtype)));
  const bool is_bool_dtype = is_bool(c.dtype);
  if (is_half(c.dtype))
    for (int64_t e = 0; e < count; ++e)
      store(c.dtype, b.data() + e * 2, Val{std::uniform_real_distribution<double>(-4, 4)(rng), 0});
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < count; ++e) {
      T v;
      if constexpr (std::is_floating_point<T>::value) {
        v = T(std::uniform_real_distribution<double>(-4, 4)(rng));
      } else {
        if (is_bool_dtype)
          v = T(rng() & 1);
        else if (e == 0)
          v = T(std::numeric_limits<T>::max() - T(j));
        else if (e == 1 && std::is_signed<T>::value)
          v = T(std::numeric_limits<T>::min() + T(j));
        else
          v = T(std::uniform_int_distribution<int64_t>(std::is_signed<T>::value ? -100 : 0, 100)(rng));
      }
      put(b, e, v);
    }
  });
  return b;
}


// A float16 or bfloat16 output: moved elements keep their bits; MAX and MIN
// pick one (exact); SUM and MEAN are the float32 sum rounded once, so within
// one ulp of the half (eps |result|, plus the smallest subnormal) and the
// float32 sum's n + 1 roundings of the sum of magnitudes.
static void expected_half(const Coll &c, const std::vector<Bytes> &inputs, int32_t i, Expected &x) {
  const int32_t n = c.n();
  const int64_t share = elements(c.share), count = elements(c.out_shape());
  for (int64_t e = 0; e < count; ++e) {
    uint8_t *out = x.values.data() + e * 2;
    if (c.collective == BP_COLLECTIVE_BROADCAST) {
      std::memcpy(out, inputs[size_t(c.root)].data() + e * 2, 2);
    } else if (c.collective == BP_COLLECTIVE_ALL_GATHER) {
      std::memcpy(out, inputs[size_t(e / share)].data() + (e % share) * 2, 2);
    } else {
      const int64_t at = c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? i * share + e : e;
      double acc = load_double(c.dtype, inputs[0].data() + at * 2), magnitude = std::fabs(acc);
      for (int32_t j = 1; j < n; ++j) {
        const double v = load_double(c.dtype, inputs[size_t(j)].data() + at * 2);
        acc = combine(c.reduce_op, acc, v);
        magnitude += std::fabs(v);
      }
      if (c.reduce_op == BP_REDUCE_MEAN) {
        acc /= n;
        magnitude /= n;
      }
      store(c.dtype, out, Val{acc, 0});
      if (c.reduce_op == BP_REDUCE_SUM || c.reduce_op == BP_REDUCE_MEAN) {
        const Bound b = test_bound(TestBound::collective_sum, c.dtype, (n + 1) * magnitude);
        x.tolerance[size_t(e)] = b.rtol * std::fabs(acc) + b.atol;
      }
    }
  }
}

Expected expected_output(const Coll &c, const std::vector<Bytes> &inputs, int32_t i) {
  const int32_t n = c.n();
  const int64_t share = elements(c.share), count = elements(c.out_shape());
  Expected x{Bytes(size_t(count * bp_vocab_dtype_size(c.dtype))), std::vector<double>(size_t(count), 0.0)};
  if (is_half(c.dtype)) expected_half(c, inputs, i, x);
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < count; ++e) {
      if (c.collective == BP_COLLECTIVE_BROADCAST) {
        put(x.values, e, get<T>(inputs[size_t(c.root)], e));
      } else if (c.collective == BP_COLLECTIVE_ALL_GATHER) {
        put(x.values, e, get<T>(inputs[size_t(e / share)], e % share));
      } else {
        const int64_t at = c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? i * share + e : e;
        T acc = get<T>(inputs[0], at);
        double magnitude = std::fabs(double(acc));
        for (int32_t j = 1; j < n; ++j) {
          const T v = get<T>(inputs[size_t(j)], at);
          acc = combine(c.reduce_op, acc, v);
          magnitude += std::fabs(double(v));
        }
        put(x.values, e, finish(c.reduce_op, acc, n));
        if (std::is_floating_point<T>::value && (c.reduce_op == BP_REDUCE_SUM || c.reduce_op == BP_REDUCE_MEAN))
          x.tolerance[size_t(e)] =
              test_bound(TestBound::collective_sum, c.dtype, (n + 1) * magnitude / (c.reduce_op == BP_REDUCE_MEAN ? n : 1))
                  .atol;
      }
    }
  });
  return x;
}

// "" when `got` holds what is expected, else the first element that differs.
std::string compare(const Coll &c, const Bytes &got, const Expected &want) {
  const int32_t size = bp_vocab_dtype_size(c.dtype);
  const Shape shape = c.out_shape();
  int64_t wrong = 0;
  std::string first;
  for (int64_t e = 0; e < int64_t(want.tolerance.size()); ++e) {
    const uint8_t *g = got.data() + e * size, *w = want.values.data() + e * size;
    const bool ok = want.tolerance[size_t(e)] > 0
                        ? std::fabs(load_double(c.dtype, g) - load_double(c.dtype, w)) <= want.tolerance[size_t(e)]
                        : std::memcmp(g, w, size_t(size)) == 0;
    if (ok || wrong++) continue;
    Shape idx(shape.size());
    for (int64_t d = int64_t(shape.size()) - 1, rest = e; d >= 0; --d) {
      idx[size_t(d)] = rest % shape[size_t(d)];
      rest /= shape[size_t(d)];
    }
    first = "at " + shape_text(int32_t(idx.size()), idx.data()) + " it gives " + value_text(c.dtype, g) + " where " +
            value_text(c.dtype, w) + " was expected";
  }
  return wrong ? first + format(" (%lld of %lld elements differ)", (long long)wrong, (long long)want.tolerance.size())
               : "";
}

}  // namespace bpcheck
