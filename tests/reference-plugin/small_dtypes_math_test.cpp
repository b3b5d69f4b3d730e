// Elementwise arithmetic and comparisons in the 8- and 16-bit dtypes:
// float16 and bfloat16 compute in float32 and round the result once (so
// ADD..DIV, SQUARE and SQRT are correctly rounded in the dtype), keep
// subnormals and -0 and propagate NaN through MAXIMUM and MINIMUM; int8,
// uint8 and int16 wrap in their own width.
#include "small_dtypes.hpp"

using namespace ref_test;

namespace {

// op(a, b) on two 1-D tensors of one dtype.
template <class R, class T>
std::vector<R> binary(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x, const std::vector<T> &y) {
  return elementwise<R>(b, op, {row(b, dtype, x), row(b, dtype, y)}, dtype);
}
template <class T>
std::vector<T> unary(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x) {
  return elementwise<T>(b, op, {row(b, dtype, x)}, dtype);
}
// op with a scalar operand on the right (RHS) or left (LHS).
template <class T>
std::vector<T> with_scalar(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x, double scalar,
                           int32_t mode) {
  return elementwise<T>(b, op, {row(b, dtype, x)}, dtype, attrs_with(scalar, 0, 0, mode));
}
template <class T>
std::vector<uint8_t> compare(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x, const std::vector<T> &y) {
  return elementwise<uint8_t>(b, op, {row(b, dtype, x), row(b, dtype, y)}, BP_BOOL);
}

// Half bits of some values used below.
constexpr uint16_t kF16One = 0x3c00, kF16Two = 0x4000, kF16Three = 0x4200, kF16NaN = 0x7e00, kF16Inf = 0x7c00;
constexpr uint16_t kBF16One = 0x3f80, kBF16NaN = 0x7fc0;

}  // namespace

TEST_CASE("float16 ADD, SUB and MUL round the float32 result once, overflow to inf, keep subnormals and -0",
          "[small-dtypes][elementwise]") {
  Reference ref;
  // 65504 + 16 = 65520 rounds (a tie, to even) to inf; 65504 + 15 to 65504;
  // subnormal 2^-24 + 2^-24 = 2^-23; 1 + 2^-11 is a tie, to 1.
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_ADD, BP_FLOAT16, Bits{0x7bff, 0x7bff, 0x0001, kF16One},
                                          Bits{0x4c00, 0x4b80, 0x0001, 0x1000}),
             {kF16Inf, 0x7bff, 0x0002, kF16One});
  // 1 - 1 = +0, -0 - +0 = -0, -0 - -0 = +0.
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_SUB, BP_FLOAT16, Bits{kF16One, 0x8000, 0x8000},
                                          Bits{kF16One, 0x0000, 0x8000}),
             {0x0000, 0x8000, 0x0000});
  // 2^-15 * 0.5 = 2^-16 (a subnormal, kept); 256 * 256 = inf; -0 * 3 = -0.
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_MUL, BP_FLOAT16, Bits{0x0200, 0x5c00, 0x8000},
                                          Bits{0x3800, 0x5c00, kF16Three}),
             {0x0100, kF16Inf, 0x8000});
  // 1/3, 1/0 = inf, 0/0 = NaN, 1/-0 = -inf.
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_DIV, BP_FLOAT16, Bits{kF16One, kF16One, 0x0000, kF16One},
                                          Bits{kF16Three, 0x0000, 0x0000, 0x8000}),
             {0x3555, kF16Inf, kF16NaN, 0xfc00});
}

TEST_CASE("bfloat16 arithmetic rounds the float32 result once", "[small-dtypes][elementwise]") {
  Reference ref;
  // 1 + 2^-8 is a tie, to 1; 1 + 3 * 2^-8 a tie, to 1 + 2^-6; subnormals add.
  check_bits(BP_BFLOAT16, binary<uint16_t>(ref, BP_OP_ADD, BP_BFLOAT16, Bits{kBF16One, kBF16One, 0x0001},
                                           Bits{0x3b80, 0x3c40, 0x0001}),
             {0x3f80, 0x3f82, 0x0002});
  // 1/3 in bfloat16 is 0x3eab; 1/0 = inf.
  check_bits(BP_BFLOAT16, binary<uint16_t>(ref, BP_OP_DIV, BP_BFLOAT16, Bits{kBF16One, kBF16One},
                                           Bits{0x4040, 0x0000}),
             {0x3eab, 0x7f80});
  // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14, which rounds to 1 + 2^-6.
  check_bits(BP_BFLOAT16, unary(ref, BP_OP_SQUARE, BP_BFLOAT16, Bits{0x3f81}), {0x3f82});
}

TEST_CASE("MAXIMUM and MINIMUM of halves propagate NaN", "[small-dtypes][elementwise]") {
  Reference ref;
  const Bits a = {kF16NaN, kF16One, kF16Two, 0xbc00}, b = {kF16One, kF16NaN, kF16Three, 0x0001};
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_MAXIMUM, BP_FLOAT16, a, b), {kF16NaN, kF16NaN, kF16Three, 0x0001});
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_MINIMUM, BP_FLOAT16, a, b), {kF16NaN, kF16NaN, kF16Two, 0xbc00});
  const Bits c = {kBF16NaN, kBF16One, 0x0001}, d = {kBF16One, kBF16NaN, 0x0002};
  check_bits(BP_BFLOAT16, binary<uint16_t>(ref, BP_OP_MAXIMUM, BP_BFLOAT16, c, d), {kBF16NaN, kBF16NaN, 0x0002});
  check_bits(BP_BFLOAT16, binary<uint16_t>(ref, BP_OP_MINIMUM, BP_BFLOAT16, c, d), {kBF16NaN, kBF16NaN, 0x0001});
}

TEST_CASE("FLOOR_DIVIDE, REMAINDER, POW and scalar operands of halves", "[small-dtypes][elementwise]") {
  Reference ref;
  // 7 // 2 = 3, -7 // 2 = -4; -7 % 3 = 2, 7 % -3 = -2; 2 ** 10 = 1024.
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_FLOOR_DIVIDE, BP_FLOAT16, Bits{0x4700, 0xc700},
                                          Bits{kF16Two, kF16Two}),
             {kF16Three, 0xc400});
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_REMAINDER, BP_FLOAT16, Bits{0xc700, 0x4700},
                                          Bits{kF16Three, 0xc200}),
             {kF16Two, 0xc000});
  check_bits(BP_FLOAT16, binary<uint16_t>(ref, BP_OP_POW, BP_FLOAT16, Bits{kF16Two}, Bits{0x4900}), {0x6400});
  // The scalar converts to float16 first: 0.1 is 0x2e66, and 1 + that
  // rounds to 0x3c66; 65520 converts to inf.
  check_bits(BP_FLOAT16, with_scalar(ref, BP_OP_ADD, BP_FLOAT16, Bits{kF16One}, 0.1, BP_SCALAR_RHS), {0x3c66});
  check_bits(BP_FLOAT16, with_scalar(ref, BP_OP_SUB, BP_FLOAT16, Bits{kF16One}, 65520.0, BP_SCALAR_LHS), {kF16Inf});
  check_bits(BP_BFLOAT16, with_scalar(ref, BP_OP_MUL, BP_BFLOAT16, Bits{0x4040}, 0.1, BP_SCALAR_RHS),
             {0x3e9a});  // 3 * 0x3dcd (0.10009765625) = 0.30029296875, rounded to 0.30078125
}

TEST_CASE("unary operators of halves", "[small-dtypes][elementwise]") {
  Reference ref;
  check_bits(BP_FLOAT16, unary(ref, BP_OP_NEG, BP_FLOAT16, Bits{0x0000, 0x8000, 0x0001}), {0x8000, 0x0000, 0x8001});
  check_bits(BP_FLOAT16, unary(ref, BP_OP_ABS, BP_FLOAT16, Bits{0xbc00, 0x8000, 0xfc00}), {kF16One, 0x0000, kF16Inf});
  // RELU(x) = x > 0 ? x : 0: -0, NaN and -1 give +0, a subnormal stays.
  check_bits(BP_FLOAT16, unary(ref, BP_OP_RELU, BP_FLOAT16, Bits{0x8000, kF16NaN, 0xbc00, 0x0001}),
             {0x0000, 0x0000, 0x0000, 0x0001});
  // sqrt(2) = 1.41421..., 0x3da8 in float16; sqrt(-1) = NaN.
  check_bits(BP_FLOAT16, unary(ref, BP_OP_SQRT, BP_FLOAT16, Bits{kF16Two, 0xbc00}), {0x3da8, kF16NaN});
  check_bits(BP_FLOAT16, unary(ref, BP_OP_SQUARE, BP_FLOAT16, Bits{0x5c00, 0x8001}), {kF16Inf, 0x0000});
  check_bits(BP_FLOAT16, unary(ref, BP_OP_EXP, BP_FLOAT16, Bits{0x0000, 0xfc00}), {kF16One, 0x0000});
  check_bits(BP_FLOAT16, unary(ref, BP_OP_LOG, BP_FLOAT16, Bits{kF16One, 0x0000}), {0x0000, 0xfc00});
  check_bits(BP_FLOAT16, unary(ref, BP_OP_SIGMOID, BP_FLOAT16, Bits{0x0000}), {0x3800});
  check_bits(BP_BFLOAT16, unary(ref, BP_OP_TANH, BP_BFLOAT16, Bits{0x8000, 0x7f80}), {0x8000, kBF16One});
  check_bits(BP_BFLOAT16, unary(ref, BP_OP_SIN, BP_BFLOAT16, Bits{0x0000}), {0x0000});
  check_bits(BP_BFLOAT16, unary(ref, BP_OP_COS, BP_BFLOAT16, Bits{0x0000}), {kBF16One});
}

TEST_CASE("comparisons of halves follow IEEE, of small integers their signedness", "[small-dtypes][elementwise]") {
  Reference ref;
  // NaN vs NaN, -0 vs +0, 1 vs 1 + 2^-10, subnormal 1 vs 2.
  const Bits a = {kF16NaN, 0x8000, kF16One, 0x0001}, b = {kF16NaN, 0x0000, 0x3c01, 0x0002};
  check_values(compare(ref, BP_OP_EQ, BP_FLOAT16, a, b), std::vector<uint8_t>{0, 1, 0, 0});
  check_values(compare(ref, BP_OP_NE, BP_FLOAT16, a, b), std::vector<uint8_t>{1, 0, 1, 1});
  check_values(compare(ref, BP_OP_LT, BP_FLOAT16, a, b), std::vector<uint8_t>{0, 0, 1, 1});
  check_values(compare(ref, BP_OP_GE, BP_BFLOAT16, Bits{kBF16NaN, 0x8000}, Bits{kBF16One, 0x0000}),
               std::vector<uint8_t>{0, 1});
  check_values(compare(ref, BP_OP_LT, BP_INT8, std::vector<int8_t>{-128, 127}, std::vector<int8_t>{127, -128}),
               std::vector<uint8_t>{1, 0});
  check_values(compare(ref, BP_OP_GT, BP_UINT8, std::vector<uint8_t>{255, 0}, std::vector<uint8_t>{0, 255}),
               std::vector<uint8_t>{1, 0});
  check_values(compare(ref, BP_OP_LE, BP_INT16, std::vector<int16_t>{-32768, 32767}, std::vector<int16_t>{-32768, 0}),
               std::vector<uint8_t>{1, 0});
}

TEST_CASE("int8, uint8 and int16 arithmetic wraps in its own width", "[small-dtypes][elementwise]") {
  Reference ref;
  using i8 = std::vector<int8_t>;
  using u8 = std::vector<uint8_t>;
  using i16 = std::vector<int16_t>;
  check_values(binary<int8_t>(ref, BP_OP_ADD, BP_INT8, i8{127, -128, 100}, i8{1, -1, 100}), i8{-128, 127, -56});
  check_values(binary<uint8_t>(ref, BP_OP_SUB, BP_UINT8, u8{0, 10}, u8{1, 20}), u8{255, 246});
  check_values(binary<uint8_t>(ref, BP_OP_ADD, BP_UINT8, u8{200}, u8{100}), u8{44});
  check_values(binary<int16_t>(ref, BP_OP_ADD, BP_INT16, i16{32767}, i16{1}), i16{-32768});
  // 90000 - 65536 = 24464.
  check_values(binary<int16_t>(ref, BP_OP_MUL, BP_INT16, i16{300, -300}, i16{300, 300}), i16{24464, -24464});
  check_values(binary<int8_t>(ref, BP_OP_MUL, BP_INT8, i8{16, -128}, i8{16, -1}), i8{0, -128});
  // The most negative value // -1 wraps to itself; b = 0 gives 0; quotients round toward -inf.
  check_values(binary<int8_t>(ref, BP_OP_FLOOR_DIVIDE, BP_INT8, i8{-128, -7, 7}, i8{-1, 2, 0}), i8{-128, -4, 0});
  check_values(binary<int8_t>(ref, BP_OP_REMAINDER, BP_INT8, i8{-128, -7, 7}, i8{-1, 3, 0}), i8{0, 2, 0});
  check_values(binary<uint8_t>(ref, BP_OP_FLOOR_DIVIDE, BP_UINT8, u8{255, 7}, u8{2, 0}), u8{127, 0});
  check_values(binary<uint8_t>(ref, BP_OP_REMAINDER, BP_UINT8, u8{255}, u8{7}), u8{3});
  // 3^5 = 243 wraps to -13, 2^7 to -128; (-1)^-3 = -1; 2^-1 = 0.
  check_values(binary<int8_t>(ref, BP_OP_POW, BP_INT8, i8{3, 2, -1, 2}, i8{5, 7, -3, -1}), i8{-13, -128, -1, 0});
  check_values(binary<uint8_t>(ref, BP_OP_POW, BP_UINT8, u8{2, 3}, u8{8, 5}), u8{0, 243});
  check_values(binary<uint8_t>(ref, BP_OP_MAXIMUM, BP_UINT8, u8{200, 1}, u8{100, 2}), u8{200, 2});
  check_values(binary<int8_t>(ref, BP_OP_MINIMUM, BP_INT8, i8{-128, 5}, i8{127, 4}), i8{-128, 4});
  check_values(binary<uint8_t>(ref, BP_OP_BITWISE_AND, BP_UINT8, u8{0xf0}, u8{0x3c}), u8{0x30});
  check_values(binary<int8_t>(ref, BP_OP_BITWISE_OR, BP_INT8, i8{-128}, i8{1}), i8{-127});
  check_values(binary<int16_t>(ref, BP_OP_BITWISE_XOR, BP_INT16, i16{-1}, i16{0x00ff}), i16{-256});
}

TEST_CASE("unary operators and scalar operands of int8, uint8 and int16", "[small-dtypes][elementwise]") {
  Reference ref;
  using i8 = std::vector<int8_t>;
  using u8 = std::vector<uint8_t>;
  using i16 = std::vector<int16_t>;
  check_values(unary(ref, BP_OP_NEG, BP_INT8, i8{-128, 5}), i8{-128, -5});
  check_values(unary(ref, BP_OP_ABS, BP_INT8, i8{-128, -5}), i8{-128, 5});
  check_values(unary(ref, BP_OP_NEG, BP_UINT8, u8{1, 0}), u8{255, 0});
  check_values(unary(ref, BP_OP_ABS, BP_UINT8, u8{200}), u8{200});
  check_values(unary(ref, BP_OP_SQUARE, BP_INT16, i16{200, -181}), i16{-25536, 32761});
  check_values(unary(ref, BP_OP_RELU, BP_INT8, i8{-5, 5}), i8{0, 5});
  check_values(unary(ref, BP_OP_BITWISE_NOT, BP_UINT8, u8{5, 0}), u8{250, 255});
  check_values(unary(ref, BP_OP_BITWISE_NOT, BP_INT16, i16{0, -32768}), i16{-1, 32767});
  check_values(with_scalar(ref, BP_OP_ADD, BP_INT8, i8{100}, 100, BP_SCALAR_RHS), i8{-56});
  check_values(with_scalar(ref, BP_OP_SUB, BP_UINT8, u8{1}, 0, BP_SCALAR_LHS), u8{255});
  // The scalar converts as COPY from float64 does: -1 saturates to uint8's 0.
  check_values(with_scalar(ref, BP_OP_ADD, BP_UINT8, u8{7}, -1, BP_SCALAR_RHS), u8{7});
  // 40000 saturates to 32767, and 2 * 32767 wraps to -2.
  check_values(with_scalar(ref, BP_OP_MUL, BP_INT16, i16{2}, 40000, BP_SCALAR_RHS), i16{-2});
}
