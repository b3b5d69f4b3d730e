#include "host_results.hpp"

#include <cmath>
#include <cstring>

#include "backplane/half.h"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

bool new_in_1_4(int32_t dtype) {
  return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16 || dtype == BP_INT8 || dtype == BP_UINT8 || dtype == BP_INT16;
}

// A source element: a float's value (exact in a double: every float dtype
// widens exactly), or an integer's or bool's.
struct Number {
  bool is_float = false;
  double d = 0;
  int64_t i = 0;
};

Number number_at(int32_t dtype, const uint8_t *p) {
  Number n;
  n.is_float = is_float(dtype);
  if (n.is_float)
    n.d = load_double(dtype, p);
  else
    n.i = load_int(dtype, p);
  return n;
}

template <class T>
void put(uint8_t *p, T x) {
  std::memcpy(p, &x, sizeof x);
}

// plugin.h's float-to-integer rule: toward zero, saturating, NaN to 0.
int64_t saturate(double d, int32_t dtype) {
  const int bits = 8 * bp_vocab_dtype_size(dtype);
  const bool is_signed = bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_SIGNED_INT;
  if (std::isnan(d)) return 0;
  const double t = std::trunc(d);
  const double top = std::ldexp(1.0, is_signed ? bits - 1 : bits);  // one past the maximum
  if (t >= top) return bits == 64 ? INT64_MAX : int64_t(top) - 1;
  if (is_signed ? t < -top : t < 0) return is_signed ? (bits == 64 ? INT64_MIN : -int64_t(top)) : 0;
  return int64_t(t);
}

// One element converted as plugin.h's COPY converts it.
void convert(const Number &n, int32_t dtype, uint8_t *out) {
  switch (dtype) {
    case BP_FLOAT16: put(out, n.is_float ? bp_f16_from_f64(n.d) : bp_f16_from_i64(n.i)); return;
    case BP_BFLOAT16: put(out, n.is_float ? bp_bf16_from_f64(n.d) : bp_bf16_from_i64(n.i)); return;
    case BP_FLOAT32: put(out, n.is_float ? float(n.d) : float(n.i)); return;
    case BP_FLOAT64: put(out, n.is_float ? n.d : double(n.i)); return;
    case BP_BOOL: *out = uint8_t(n.is_float ? n.d != 0 : n.i != 0); return;
    default: break;
  }
  // Integers: a float saturates, an integer keeps its low bytes (wraps).
  store(dtype, out, Val{0, n.is_float ? saturate(n.d, dtype) : n.i});
}

uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// RANDOM_UNIFORM's float32 value of element i (plugin.h), each operation
// rounded on its own: volatile keeps the compiler from contracting the
// multiply and the add into one fused operation.
float uniform32(const bp_op_attrs &a, int64_t i) {
  const uint64_t r = splitmix64(a.seed + 0x9E3779B97F4A7C15ull * (uint64_t(i) + 1));
  const float u = float(r >> 40) * 0x1p-24f;
  const float lo = float(a.scalar), hi = float(a.scalar2);
  volatile float span = hi - lo;
  volatile float step = span * u;
  return lo + step;
}

}  // namespace

bool has_host_result(const Case &c) {
  const int32_t out = c.output.dtype;
  switch (c.op) {
    case BP_OP_COPY: return c.inputs.size() == 1 && (new_in_1_4(c.inputs[0].dtype) || new_in_1_4(out));
    case BP_OP_FILL: case BP_OP_ARANGE: return new_in_1_4(out);
    case BP_OP_RANDOM_UNIFORM: return out == BP_FLOAT16 || out == BP_BFLOAT16;
    default: return false;
  }
}

std::vector<uint8_t> host_result(const Case &c) {
  const ViewDesc &o = c.output;
  std::vector<uint8_t> out = c.storages[size_t(o.storage)];
  if (c.op == BP_OP_COPY) {
    const ViewDesc &in = c.inputs[0];
    // In place (the same storage) reads the input before anything is written.
    const std::vector<uint8_t> src = c.storages[size_t(in.storage)];
    for_each_index(o, [&](const int64_t *idx, int64_t) {
      convert(number_at(in.dtype, src.data() + byte_at(in, idx)), o.dtype, out.data() + byte_at(o, idx));
    });
    return out;
  }
  for_each_index(o, [&](const int64_t *idx, int64_t i) {
    Number n;
    n.is_float = true;
    if (c.op == BP_OP_FILL) n.d = c.attrs.scalar;
    if (c.op == BP_OP_ARANGE) {
      volatile double step = double(i) * c.attrs.scalar2;  // rounded on its own, as plugin.h computes it
      n.d = c.attrs.scalar + step;
    }
    if (c.op == BP_OP_RANDOM_UNIFORM) n.d = double(uniform32(c.attrs, i));
    convert(n, o.dtype, out.data() + byte_at(o, idx));
  });
  return out;
}

}  // namespace bpcheck
