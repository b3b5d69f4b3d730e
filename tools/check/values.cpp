#include "values.hpp"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <limits>

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
    case BP_DTYPE_KIND_FLOAT: return size == 4 ? double(get<float>(p)) : size == 8 ? get<double>(p) : 0.0;
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
      case BP_OP_COPY: return {Domain::uniform, -1000, 1000};
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
      if (is_float(out_dtype)) return {Domain::full, 0, 0};
      return {Domain::ints, -1000, 1000};
    default: return {Domain::ints, -1000, 1000};
  }
}

namespace {

// The special values of a dtype's kind: NaN, infinities, signed zeros and
// extreme magnitudes for floats; the limits of the type for integers.
std::vector<Val> specials(int32_t dtype) {
  std::vector<Val> v;
  if (is_float(dtype)) {
    const double inf = std::numeric_limits<double>::infinity();
    for (double d : {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e30, 3.0})
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

std::vector<Val> specials_for(int32_t op, int32_t dtype) {
  std::vector<Val> v = specials(dtype);
  if (op == BP_OP_ABS && is_integer(dtype)) v.erase(v.begin());  // abs(INT_MIN) is undefined
  return v;
}

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(rng());
  return v;
}

}  // namespace bpcheck
