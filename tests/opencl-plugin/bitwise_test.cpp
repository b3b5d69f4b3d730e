// BITWISE_AND, _OR, _XOR and _NOT by known values: the bits of two's
// complement integers (sign bits and extremes included), logic on bool, and
// no float kernels claimed. elementwise_test.cpp compares them with the
// reference on every kind of view.
#include <cstdint>
#include <limits>

#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

template <class T>
void check_integer_bits() {
  Buffers b(ocl(), 1);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<T> x = {12, -1, lo, hi, 0, -6};
  const std::vector<T> y = {10, 5, -1, lo, 7, 3};
  check_values(b.apply<T, T>(BP_OP_BITWISE_AND, {x, y}), std::vector<T>{8, 5, lo, 0, 0, 2});
  check_values(b.apply<T, T>(BP_OP_BITWISE_OR, {x, y}), std::vector<T>{14, -1, -1, -1, 7, -5});
  check_values(b.apply<T, T>(BP_OP_BITWISE_XOR, {x, y}), std::vector<T>{6, -6, hi, -1, 7, -7});
  check_values(b.apply<T, T>(BP_OP_BITWISE_NOT, {x}), std::vector<T>{-13, 0, hi, lo, -1, 5});
}

}  // namespace

TEST_CASE("bitwise operators combine the bits of int32 and int64", "[bitwise]") {
  check_integer_bits<int32_t>();
  check_integer_bits<int64_t>();
}

TEST_CASE("bitwise operators on bool are logic and keep 0 or 1", "[bitwise]") {
  Buffers b(ocl());
  const std::vector<uint8_t> x = {0, 0, 1, 1}, y = {0, 1, 0, 1};
  check_values(b.apply<uint8_t, uint8_t>(BP_OP_BITWISE_AND, {x, y}), std::vector<uint8_t>{0, 0, 0, 1});
  check_values(b.apply<uint8_t, uint8_t>(BP_OP_BITWISE_OR, {x, y}), std::vector<uint8_t>{0, 1, 1, 1});
  check_values(b.apply<uint8_t, uint8_t>(BP_OP_BITWISE_XOR, {x, y}), std::vector<uint8_t>{0, 1, 1, 0});
  check_values(b.apply<uint8_t, uint8_t>(BP_OP_BITWISE_NOT, {x}), std::vector<uint8_t>{1, 1, 0, 0});
  // A scalar operand: x ^ true is not x.
  check_values(b.apply<uint8_t, uint8_t>(BP_OP_BITWISE_XOR, {x}, attrs_with(1, 0, 0, BP_SCALAR_RHS)),
               std::vector<uint8_t>{1, 1, 0, 0});
}

TEST_CASE("bitwise operators are not claimed for floats", "[bitwise]") {
  for (int32_t op : {BP_OP_BITWISE_AND, BP_OP_BITWISE_OR, BP_OP_BITWISE_XOR, BP_OP_BITWISE_NOT})
    for (int32_t dtype : kFloatTypes) {
      INFO(op_name(op) << " " << dtype_name(dtype));
      CHECK_FALSE(supported(ocl(), op, dtype, dtype));
    }
}
