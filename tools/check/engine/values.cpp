#include "values.hpp"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <limits>

#include "backplane/half.h"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

template <class T>
void put(uint8_t *p, T x) {
  std::memcpy(p, &x, sizeof x);
}

template <class T>
T get(const uint8_t *p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

// Integers of `size` bytes, signed or not, widened to 64 bits.
int64_t get_int(const uint8_t *p, int32_t size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? int64_t(get<int8_t>(p)) : int64_t(*p);
    case 2: return is_signed ? int64_t(get<int16_t>(p)) : int64_t(get<uint16_t>(p));
    case 4: return is_signed ? int64_t(get<int32_t>(p)) : int64_t(get<uint32_t>(p));
    case 8: return get<int64_t>(p);
    default: return 0;
  }
}

}  // namespace

void store(int32_t dtype, uint8_t *p, Val v) {
  const int32_t size = bp_vocab_dtype_size(dtype);
  switch (bp_vocab_dtype_kind(dtype)) {
    case BP_DTYPE_KIND_FLOAT:
      // A value goes into a 16-bit float as plugin.h's COPY from float64 puts it.
      if (dtype == BP_FLOAT16) put(p, bp_f16_from_f64(v.d));
      if (dtype == BP_BFLOAT16) put(p, bp_bf16_from_f64(v.d));
      if (size == 4) put(p, float(v.d));
      if (size == 8) put(p, v.d);
      break;
    case BP_DTYPE_KIND_BOOL: *p = v.i ? 1 : 0; break;
    case BP_DTYPE_KIND_SIGNED_INT:
    case BP_DTYPE_KIND_UNSIGNED_INT: {
      const uint64_t bits = uint64_t(v.i);  // the low bytes, two's complement
      for (int32_t b = 0; b < size; ++b) p[b] = uint8_t(bits >> (8 * b));
      break;
    }
    default: break;
  }
}

double load_double(int32_t dtype, const uint8_t *p) {
  const int32_t size = bp_vocab_dtype_size(dtype);
  switch (bp_vocab_dtype_kind(dtype)) {
    case BP_DTYPE_KIND_FLOAT:
      if (dtype == BP_FLOAT16) return double(bp_f32_from_f16(get<uint16_t>(p)));
      if (dtype == BP_BFLOAT16) return double(bp_f32_from_bf16(get<uint16_t>(p)));
      return size == 4 ? double(get<float>(p)) : size == 8 ? get<double>(p) : 0.0;
    case BP_DTYPE_KIND_UNSIGNED_INT:
      return size == 8 ? double(get<uint64_t>(p)) : double(get_int(p, size, false));
    default: return double(load_int(dtype, p));
  }
}

int64_t load_int(int32_t dtype, const uint8_t *p) {
  const int32_t size = bp_vocab_dtype_size(dtype);
  switch (bp_vocab_dtype_kind(dtype)) {
    case BP_DTYPE_KIND_SIGNED_INT: return get_int(p, size, true);
    case BP_DTYPE_KIND_UNSIGNED_INT: return get_int(p, size, false);
    case BP_DTYPE_KIND_BOOL: return *p;
    default: return int64_t(load_double(dtype, p));
  }
}

std::string value_text(int32_t dtype, const uint8_t *p) {
  // A 16-bit float with its bits: two results one ulp apart look alike in decimal.
  if (is_float(dtype) && bp_vocab_dtype_size(dtype) == 2)
    return format("%.9g (0x%04x)", load_double(dtype, p), unsigned(get<uint16_t>(p)));
  if (is_float(dtype)) return format("%.9g", load_double(dtype, p));
  if (is_bool(dtype)) return format("%u", unsigned(*p));
  return format("%" PRId64, load_int(dtype, p));
}

Val draw(std::mt19937_64 &rng, int32_t dtype, const Domain &dom) {
  Val v;
  if (dom.kind == Domain::boolean || is_bool(dtype)) {
    v.i = int64_t(rng() & 1);
    v.d = double(v.i);
    return v;
  }
  if (dom.kind == Domain::full || dom.kind == Domain::full32) {
    uint64_t bits = rng();
    if ((is_integer(dtype) && bp_vocab_dtype_size(dtype) == 4) || dom.kind == Domain::full32) bits = uint64_t(int64_t(int32_t(uint32_t(bits))));
    v.i = int64_t(bits);
    v.d = double(v.i);
    return v;
  }
  if (is_integer(dtype) || dom.kind == Domain::ints) {
    std::uniform_int_distribution<int64_t> dist(int64_t(dom.lo), int64_t(dom.hi));
    v.i = dist(rng);
    v.d = double(v.i);  // integral values, also for float dtypes
    return v;
  }
  std::uniform_real_distribution<double> dist(dom.lo, dom.hi);
  v.d = dist(rng);
  if (dom.kind == Domain::nonzero && std::fabs(v.d) < 0.5) v.d = v.d < 0 ? v.d - 0.5 : v.d + 0.5;
  v.i = int64_t(v.d);
  return v;
}

void fill_random(Case &c, const ViewDesc &v, std::mt19937_64 &rng, const Domain &dom) {
  fill(c, v, [&](const int64_t *, int64_t) { return draw(rng, v.dtype, dom); });
}

Domain domain_for(int32_t op, int input, int32_t dtype, int32_t out_dtype) {
  Domain d;
  if (is_bool(dtype)) return {Domain::boolean, 0, 1};
  if (is_float(dtype)) {
    switch (op) {
      case BP_OP_LOG: case BP_OP_SQRT: return {Domain::uniform, 0.01, 100};
      case BP_OP_POW: return input == 0 ? Domain{Domain::uniform, 0.1, 4} : Domain{Domain::uniform, -3, 3};
      case BP_OP_DIV: case BP_OP_FLOOR_DIVIDE: case BP_OP_REMAINDER:
        return input == 1 ? Domain{Domain::nonzero, -10, 10} : d;
      // Near 1, so that a product of hundreds of terms neither overflows nor
      // underflows in any order (plugin.h leaves that unspecified).
      case BP_OP_PROD: return {Domain::uniform, 0.7, 1.4};
      case BP_OP_MATMUL: return {Domain::uniform, -1, 1};
      case BP_OP_CONV: case BP_OP_CONV_TRANSPOSE: case BP_OP_CONV_WEIGHT_GRAD: return {Domain::uniform, -1, 1};
      case BP_OP_COPY: return {Domain::uniform, -1000, 1000};
      // A normalisation's weight and bias (inputs 1 and 2): scales near 1, small shifts.
      case BP_OP_LAYER_NORM: case BP_OP_RMS_NORM:
        return input == 1 ? Domain{Domain::uniform, -2, 2} : input == 2 ? Domain{Domain::uniform, -1, 1} : d;
      default: return d;
    }
  }
  // integers
  // Every bit in play where an operator works on the bits (those defined for
  // integers and bool only) or moves elements (gathers and scatters).
  if (bp_vocab_op_dtypes(op) == BP_DTYPE_SET_INTEGRAL || op_family(op) == BP_OP_FAMILY_GATHER ||
      op_family(op) == BP_OP_FAMILY_SCATTER)
    return {Domain::full, 0, 0};
  switch (op) {
    case BP_OP_POW: return input == 0 ? Domain{Domain::ints, -6, 6} : Domain{Domain::ints, -3, 12};
    case BP_OP_MATMUL: return {Domain::ints, -20, 20};
    case BP_OP_COPY:
      if (bp_vocab_dtype_size(out_dtype) == 4 && is_integer(out_dtype) && bp_vocab_dtype_size(dtype) == 8)
        return {Domain::full32, 0, 0};
      // Into float16, most of the full range is past 65504: finite values
      // and infinities both.
      if (out_dtype == BP_FLOAT16) return {Domain::ints, -70000, 70000};
      if (is_float(out_dtype)) return {Domain::full, 0, 0};
      return {Domain::ints, -1000, 1000};
    default: return {Domain::ints, -1000, 1000};
  }
}

namespace {

// The special values of a dtype's kind: NaN, infinities, signed zeros and
// extreme magnitudes for floats; the limits of the type for integers. A
// 16-bit float adds its own edges: the largest finite value, the smallest
// and largest subnormals, the smallest normal, and a power of two whose
// sum with 1 or 3 is a tie (2048 + 1 rounds to 2048, 2048 + 3 to 2052 in
// float16) and one that carries the largest value to a tie with infinity.
std::vector<Val> specials(int32_t dtype) {
  std::vector<Val> v;
  if (is_float(dtype)) {
    const double inf = std::numeric_limits<double>::infinity();
    for (double d : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e30, 3.0})
      v.push_back({d, 0});
    if (dtype == BP_FLOAT16)
      for (double d : {65504.0, -65504.0, 0x1p-24, -0x1p-24, 1023 * 0x1p-24, 0x1p-14, 2048.0, 16.0}) v.push_back({d, 0});
    if (dtype == BP_BFLOAT16)
      for (double d : {0x1.fep127, -0x1.fep127, 0x1p-133, -0x1p-133, 127 * 0x1p-133, 0x1p-126, 256.0, 0x1p119})
        v.push_back({d, 0});
    return v;
  }
  if (is_integer(dtype)) {
    const int bits = 8 * bp_vocab_dtype_size(dtype);
    const bool is_signed = bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_SIGNED_INT;
    const int64_t max = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - (is_signed ? 1 : 0))) - 1;
    const int64_t min = is_signed ? -max - 1 : 0;
    for (int64_t i : {min, max, int64_t(-1), int64_t(0), int64_t(1), int64_t(2), int64_t(-2), int64_t(1000)})
      v.push_back({double(i), i});
    return v;
  }
  return {{0, 0}, {1, 1}};
}

// What COPY into float16 or bfloat16 must round right: ties (to even), the
// values on either side of the tie past the largest finite value (that one
// and beyond give infinity), half the smallest subnormal (a tie with 0), a
// tie between the largest subnormal and the smallest normal; from float64
// and int64, values a float32 rounded on the way would turn into a tie
// (1 + 2^-11 + 2^-40 is 1 + 2^-10 in float16, not 1), which is
// double rounding. Each is stored in the source dtype (a narrow integer
// wraps it, a float32 rounds it: harmless repeats).
std::vector<Val> conversion_specials(int32_t dtype, int32_t out_dtype) {
  std::vector<Val> v;
  if (out_dtype != BP_FLOAT16 && out_dtype != BP_BFLOAT16) return v;
  const bool f16 = out_dtype == BP_FLOAT16;
  if (is_float(dtype)) {
    const std::vector<double> to_f16 = {65519.99609375, 65520, -65520, 65536, 0x1p-25, 0x1.000002p-25, 0x1.8p-24,
                                        0x1.4p-23, 1023.5 * 0x1p-24, 1 + 0x1p-11, 1 + 3 * 0x1p-11, -(1 + 3 * 0x1p-11),
                                        2049, 2051, 0x1p-30, 1 + 0x1p-11 + 0x1p-40, -(1 + 0x1p-11 + 0x1p-40),
                                        65520 - 0x1p-30, 0x1p-25 + 0x1p-60};
    const std::vector<double> to_bf16 = {0x1.fefffep127, 0x1.ffp127, -0x1.ffp127, 0x1p-134, 0x1.8p-133,
                                         127.5 * 0x1p-133, 1 + 0x1p-8, 1 + 3 * 0x1p-8, -(1 + 3 * 0x1p-8), 257, 259,
                                         0x1.fffffep127, 0x1p-149, 1 + 0x1p-8 + 0x1p-40, -(1 + 0x1p-8 + 0x1p-40),
                                         0x1.fefffffffffffp127, 0x1p-134 + 0x1p-170};
    for (double d : f16 ? to_f16 : to_bf16) v.push_back({d, 0});
  } else if (is_integer(dtype)) {
    std::vector<int64_t> ints = f16 ? std::vector<int64_t>{2049, 2051, -2049, 4097, 65504, 65519, 65520, -65520}
                                    : std::vector<int64_t>{257, 259, -257, 16842753, -16842753, 1077936129};
    // 2^62 + 2^54 + 1 is 2^62 + 2^55 in bfloat16; through float32 it would be 2^62.
    if (bp_vocab_dtype_size(dtype) == 8 && !f16) {
      const int64_t x = (int64_t(1) << 62) + (int64_t(1) << 54) + 1;
      ints.push_back(x);
      ints.push_back(-x);
    }
    for (int64_t i : ints) v.push_back({double(i), i});
  }
  return v;
}

}  // namespace

bool specials_apply(int32_t op, int32_t dtype) {
  const bool f = is_float(dtype);
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_MAXIMUM: case BP_OP_MINIMUM: return !is_bool(dtype);
    case BP_OP_DIV: return f;
    case BP_OP_POW: return false;  // integer exponents that large would loop for ever
    case BP_OP_NEG: case BP_OP_RELU: return !is_bool(dtype);
    case BP_OP_ABS: return !is_bool(dtype);  // INT_MIN is left out below
    case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT: case BP_OP_TANH: case BP_OP_SIGMOID: return f;
    case BP_OP_SUM: case BP_OP_MEAN: case BP_OP_CUMSUM: case BP_OP_LOGSUMEXP: return f;
    case BP_OP_ISNAN: case BP_OP_ISINF: return f;  // the values they tell apart
    case BP_OP_VAR: case BP_OP_LAYER_NORM: case BP_OP_RMS_NORM: return f;
    case BP_OP_MAX: case BP_OP_MIN: case BP_OP_ARGMAX: case BP_OP_ARGMIN: return !is_bool(dtype);
    case BP_OP_SQUARE: return !is_bool(dtype);
    case BP_OP_COPY: return true;  // float to int of NaN, inf and beyond the range saturates (plugin.h)
    default: {
      // Comparisons, WHERE, gathers and scatters are defined for every value,
      // and so are the operators on the bits of integers and bool.
      const int32_t family = op_family(op);
      return family == BP_OP_FAMILY_COMPARE || family == BP_OP_FAMILY_WHERE || family == BP_OP_FAMILY_GATHER ||
             family == BP_OP_FAMILY_SCATTER || bp_vocab_op_dtypes(op) == BP_DTYPE_SET_INTEGRAL;
    }
  }
}

std::vector<Val> specials_for(int32_t op, int32_t dtype, int32_t out_dtype) {
  std::vector<Val> v = specials(dtype);
  if (op == BP_OP_ABS && is_integer(dtype)) v.erase(v.begin());  // abs(INT_MIN) is undefined
  if (op == BP_OP_COPY) {
    const std::vector<Val> more = conversion_specials(dtype, out_dtype);
    v.insert(v.end(), more.begin(), more.end());
  }
  return v;
}

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

}  // namespace bpcheck
