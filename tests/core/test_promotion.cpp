// Dtype promotion (backplane.h, "Dtypes (promotion)"): the category table of
// bp_vocab_promote for two tensors, and the scalar-kind table of
// bp_binary_scalar_kind, on every host device and opencl:0.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "backplane/half.h"
#include "runtime_fixture.hpp"

namespace {

// A rank-1 tensor of `dtype` from raw elements of type T.
template <class T>
bp_tensor make(bp_device d, int32_t dtype, const std::vector<T> &values) {
  REQUIRE(sizeof(T) == size_t(bp_vocab_dtype_size(dtype)));
  const int64_t shape[] = {int64_t(values.size())};
  bp_tensor t = 0;
  REQUIRE(bp_from_host(d, dtype, 1, shape, values.data(), &t) == BP_OK);
  return t;
}

template <class T>
std::vector<T> read(bp_tensor t, size_t n) {
  std::vector<T> out(n);
  REQUIRE(bp_to_host(t, out.data(), n * sizeof(T)) == BP_OK);
  return out;
}

int32_t dtype_of(bp_tensor t) {
  int32_t dtype = 0;
  REQUIRE(bp_tensor_dtype(t, &dtype) == BP_OK);
  return dtype;
}

// The table written in types.h, row by row, in the order of kOrder.
const int32_t kOrder[] = {BP_BOOL, BP_UINT8, BP_INT8, BP_INT16, BP_INT32,
                          BP_INT64, BP_FLOAT16, BP_BFLOAT16, BP_FLOAT32, BP_FLOAT64};
const char *const kTable[10][10] = {
    {"b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},
    {"u8", "u8", "i16", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},
    {"i8", "i16", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},
    {"i16", "i16", "i16", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"},
    {"i32", "i32", "i32", "i32", "i32", "i64", "f16", "bf16", "f32", "f64"},
    {"i64", "i64", "i64", "i64", "i64", "i64", "f16", "bf16", "f32", "f64"},
    {"f16", "f16", "f16", "f16", "f16", "f16", "f16", "f32", "f32", "f64"},
    {"bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "f32", "bf16", "f32", "f64"},
    {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64"},
    {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
};

int32_t short_name(const std::string &s) {
  const char *const names[] = {"b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  for (int i = 0; i < 10; ++i)
    if (s == names[i]) return kOrder[i];
  return BP_DTYPE_INVALID;
}

}  // namespace

TEST_CASE("bp_vocab_promote gives the symmetric table types.h writes") {
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) {
      INFO(bp_vocab_dtype_name(kOrder[i]) << " with " << bp_vocab_dtype_name(kOrder[j]));
      CHECK(bp_vocab_promote(kOrder[i], kOrder[j]) == short_name(kTable[i][j]));
      CHECK(bp_vocab_promote(kOrder[j], kOrder[i]) == short_name(kTable[i][j]));
    }
  CHECK(bp_vocab_promote(BP_DTYPE_INVALID, BP_FLOAT32) == BP_DTYPE_INVALID);
  CHECK(bp_vocab_promote(BP_FLOAT32, 99) == BP_DTYPE_INVALID);
}

TEST_CASE("two tensors of different dtypes meet in the promoted dtype on every backend") {
  const bp_device d = bp_test::each_host_or_opencl_device().id();
  SECTION("int8 with uint8 is int16, holding both ranges") {
    bp_tensor a = make<int8_t>(d, BP_INT8, {-1, -128, 127});
    bp_tensor b = make<uint8_t>(d, BP_UINT8, {255, 255, 255});
    bp_tensor c = 0;
    REQUIRE(bp_binary(BP_OP_ADD, a, b, &c) == BP_OK);
    CHECK(dtype_of(c) == BP_INT16);
    CHECK(read<int16_t>(c, 3) == std::vector<int16_t>{254, 127, 382});
    for (bp_tensor t : {a, b, c}) bp_tensor_release(t);
  }
  SECTION("float16 with bfloat16 is float32") {
    bp_tensor a = make<uint16_t>(d, BP_FLOAT16, {bp_f16_from_f32(1.5f), bp_f16_from_f32(65504.f)});
    bp_tensor b = make<uint16_t>(d, BP_BFLOAT16, {bp_bf16_from_f32(0.25f), bp_bf16_from_f32(1e30f)});
    bp_tensor c = 0;
    REQUIRE(bp_binary(BP_OP_MUL, a, b, &c) == BP_OK);
    CHECK(dtype_of(c) == BP_FLOAT32);
    const std::vector<float> got = read<float>(c, 2);
    CHECK(got[0] == 0.375f);
    CHECK(got[1] == 65504.f * bp_f32_from_bf16(bp_bf16_from_f32(1e30f)));
    for (bp_tensor t : {a, b, c}) bp_tensor_release(t);
  }
  SECTION("int64 with float16 is float16, by category") {
    bp_tensor a = make<int64_t>(d, BP_INT64, {3, 70000});
    bp_tensor b = make<uint16_t>(d, BP_FLOAT16, {bp_f16_from_f32(0.5f), bp_f16_from_f32(0.f)});
    bp_tensor c = 0;
    REQUIRE(bp_binary(BP_OP_ADD, a, b, &c) == BP_OK);
    CHECK(dtype_of(c) == BP_FLOAT16);
    // 70000 is past float16's largest finite value: the conversion gives inf.
    CHECK(read<uint16_t>(c, 2) == std::vector<uint16_t>{bp_f16_from_f32(3.5f), 0x7c00});
    for (bp_tensor t : {a, b, c}) bp_tensor_release(t);
  }
}

TEST_CASE("the kind of a scalar and not its value decides the dtype on every backend") {
  const bp_device d = bp_test::each_host_or_opencl_device().id();
  bp_tensor i64 = make<int64_t>(d, BP_INT64, {3, -4});
  bp_tensor out = 0;
  SECTION("int64 with a FLOAT scalar is float64, whether or not the value is whole") {
    for (double s : {2.0, 0.5}) {
      INFO(s);
      REQUIRE(bp_binary_scalar_kind(BP_OP_MUL, i64, s, BP_SCALAR_KIND_FLOAT, 0, &out) == BP_OK);
      CHECK(dtype_of(out) == BP_FLOAT64);
      CHECK(read<double>(out, 2) == std::vector<double>{3 * s, -4 * s});
      bp_tensor_release(out);
    }
  }
  SECTION("int64 with an INT scalar stays int64") {
    REQUIRE(bp_binary_scalar_kind(BP_OP_MUL, i64, 2.0, BP_SCALAR_KIND_INT, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_INT64);
    CHECK(read<int64_t>(out, 2) == std::vector<int64_t>{6, -8});
    bp_tensor_release(out);
  }
  SECTION("bp_binary_scalar keeps 1.0's value-based rule") {
    REQUIRE(bp_binary_scalar(BP_OP_MUL, i64, 2.0, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_INT64);
    bp_tensor_release(out);
    REQUIRE(bp_binary_scalar(BP_OP_MUL, i64, 0.5, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_FLOAT64);
    bp_tensor_release(out);
  }
  SECTION("bfloat16 with a FLOAT scalar stays bfloat16, the scalar rounded to it") {
    bp_tensor h = make<uint16_t>(d, BP_BFLOAT16, {bp_bf16_from_f32(1.0f), bp_bf16_from_f32(-3.0f)});
    // 0.1 rounds to bfloat16 first (0.10009765625), then 1 + that rounds again.
    REQUIRE(bp_binary_scalar_kind(BP_OP_ADD, h, 0.1, BP_SCALAR_KIND_FLOAT, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_BFLOAT16);
    const float s = bp_f32_from_bf16(bp_bf16_from_f64(0.1));
    CHECK(read<uint16_t>(out, 2) == std::vector<uint16_t>{bp_bf16_from_f32(1.0f + s), bp_bf16_from_f32(-3.0f + s)});
    bp_tensor_release(out);
    bp_tensor_release(h);
  }
  SECTION("bool with an INT scalar is int64; with a BOOL scalar it stays bool") {
    bp_tensor b = make<uint8_t>(d, BP_BOOL, {1, 0});
    REQUIRE(bp_binary_scalar_kind(BP_OP_ADD, b, 5.0, BP_SCALAR_KIND_INT, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_INT64);
    CHECK(read<int64_t>(out, 2) == std::vector<int64_t>{6, 5});
    bp_tensor_release(out);
    REQUIRE(bp_binary_scalar_kind(BP_OP_BITWISE_AND, b, 1.0, BP_SCALAR_KIND_BOOL, 0, &out) == BP_OK);
    CHECK(dtype_of(out) == BP_BOOL);
    CHECK(read<uint8_t>(out, 2) == std::vector<uint8_t>{1, 0});
    bp_tensor_release(out);
    bp_tensor_release(b);
  }
  SECTION("an INT scalar the tensor's dtype cannot hold is refused, naming both") {
    bp_tensor i8 = make<int8_t>(d, BP_INT8, {1, 2});
    CHECK(bp_binary_scalar_kind(BP_OP_ADD, i8, 300.0, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_INVALID_ARGUMENT);
    const std::string message = bp_last_error();
    CHECK(message.find("300") != std::string::npos);
    CHECK(message.find("int8") != std::string::npos);
    REQUIRE(bp_binary_scalar_kind(BP_OP_ADD, i8, 127.0, BP_SCALAR_KIND_INT, 0, &out) == BP_OK);
    CHECK(read<int8_t>(out, 2) == std::vector<int8_t>{-128, -127});  // wraps, as ADD does
    bp_tensor_release(out);
    bp_tensor_release(i8);
  }
  SECTION("a kind the value does not have, or no kind, is refused") {
    CHECK(bp_binary_scalar_kind(BP_OP_ADD, i64, 2.5, BP_SCALAR_KIND_INT, 0, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(bp_last_error()).find("add: the scalar 2.5 is of kind INT") != std::string::npos);
    CHECK(bp_binary_scalar_kind(BP_OP_ADD, i64, 2.0, BP_SCALAR_KIND_BOOL, 0, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(bp_last_error()).find("the scalar 2 is of kind BOOL") != std::string::npos);
    CHECK(bp_binary_scalar_kind(BP_OP_ADD, i64, 1.0, 0, 0, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(bp_binary_scalar_kind(BP_OP_ADD, i64, 1.0, 7, 0, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(std::string(bp_last_error()).find("scalar_kind") != std::string::npos);
  }
  SECTION("the _out form writes into an existing tensor") {
    bp_tensor dst = make<double>(d, BP_FLOAT64, {0, 0});
    REQUIRE(bp_binary_scalar_kind_out(BP_OP_SUB, i64, 1.0, BP_SCALAR_KIND_FLOAT, 1, dst) == BP_OK);
    CHECK(read<double>(dst, 2) == std::vector<double>{-2, 5});
    bp_tensor_release(dst);
  }
  bp_tensor_release(i64);
}
