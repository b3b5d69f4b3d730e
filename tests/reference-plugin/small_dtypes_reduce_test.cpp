// Reductions, scans, MATMUL, the index operators, WHERE and fused programs
// in the 8- and 16-bit dtypes: integer SUM, PROD and CUMSUM into int64;
// float16 and bfloat16 sums, products and dot products accumulated in
// float32 or wider and rounded once (each case below is one whose answer a
// running sum kept in the half itself would get wrong); elements moved by
// GATHER, SCATTER and WHERE unchanged, bit for bit.
#include "small_dtypes.hpp"

using namespace ref_test;

namespace {

// `op` over all of a 1-D tensor, into a [1] output.
template <class R, class T>
std::vector<R> reduce(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x, bp_dtype out_dtype) {
  return run_into<R>(b, op, {row(b, dtype, x)}, out_dtype, {1});
}
template <class T>
std::vector<T> reduce_same(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x) {
  return reduce<T>(b, op, dtype, x, dtype);
}
template <class T>
std::vector<int64_t> reduce_int64(Buffers &b, int32_t op, bp_dtype dtype, const std::vector<T> &x) {
  return reduce<int64_t>(b, op, dtype, x, BP_INT64);
}

constexpr uint16_t kF16One = 0x3c00, kF16NaN = 0x7e00, kBF16One = 0x3f80;

}  // namespace

TEST_CASE("SUM, PROD and CUMSUM of int8, uint8 and int16 write int64", "[small-dtypes][reduce]") {
  Reference ref;
  CHECK(reduce_int64(ref, BP_OP_SUM, BP_INT16, std::vector<int16_t>{32767, 32767, 32767}) == std::vector<int64_t>{98301});
  CHECK(reduce_int64(ref, BP_OP_SUM, BP_INT8, std::vector<int8_t>{-128, -128, -128}) == std::vector<int64_t>{-384});
  CHECK(reduce_int64(ref, BP_OP_SUM, BP_UINT8, std::vector<uint8_t>{255, 255}) == std::vector<int64_t>{510});
  CHECK(reduce_int64(ref, BP_OP_PROD, BP_INT8, std::vector<int8_t>{100, 100, 100}) == std::vector<int64_t>{1000000});
  CHECK(reduce_int64(ref, BP_OP_PROD, BP_UINT8, std::vector<uint8_t>{255, 255}) == std::vector<int64_t>{65025});
  CHECK(reduce_int64(ref, BP_OP_PROD, BP_INT16, std::vector<int16_t>{-32768, -32768}) ==
        std::vector<int64_t>{int64_t(1) << 30});
  CHECK(elementwise<int64_t>(ref, BP_OP_CUMSUM, {row(ref, BP_UINT8, std::vector<uint8_t>{200, 100, 255})}, BP_INT64) ==
        std::vector<int64_t>{200, 300, 555});
  CHECK(elementwise<int64_t>(ref, BP_OP_CUMSUM, {row(ref, BP_INT8, std::vector<int8_t>{-128, -128})}, BP_INT64) ==
        std::vector<int64_t>{-128, -256});
}

TEST_CASE("SUM, MEAN, NORM, PROD and LOGSUMEXP of halves accumulate wide and round once",
          "[small-dtypes][reduce]") {
  Reference ref;
  // 1000 x bfloat16(0.01) = 1000 x 0.010009765625 = 10.009765625, which
  // rounds to 10 (0x4120). A bfloat16 running sum stops at 4.
  CHECK(reduce_same(ref, BP_OP_SUM, BP_BFLOAT16, Bits(1000, 0x3c24)) == Bits{0x4120});
  // 3000 ones: 3000 is a float16 (0x69dc); a float16 running sum stops at 2048.
  CHECK(reduce_same(ref, BP_OP_SUM, BP_FLOAT16, Bits(3000, kF16One)) == Bits{0x69dc});
  // Per row of a [2, 3] input: 1 + 2^-11 + 2^-11 = 1 + 2^-10 (a running sum
  // ties back to 1 twice); 65504 + 65504 - 65504 = 65504 (a running sum overflows).
  CHECK(run_into<uint16_t>(ref, BP_OP_SUM, {make(ref, BP_FLOAT16, {2, 3}, Bits{kF16One, 0x1000, 0x1000, 0x7bff, 0x7bff, 0xfbff})},
                           BP_FLOAT16, {2, 1}) == Bits{0x3c01, 0x7bff});
  // (1 + 2 + 4) / 3 = 2.333..., 0x4015 in bfloat16; the mean of 65504 twice is 65504.
  CHECK(reduce_same(ref, BP_OP_MEAN, BP_BFLOAT16, Bits{kBF16One, 0x4000, 0x4080}) == Bits{0x4015});
  CHECK(reduce_same(ref, BP_OP_MEAN, BP_FLOAT16, Bits{0x7bff, 0x7bff}) == Bits{0x7bff});
  // sqrt(3^2 + 4^2) = 5; sqrt(3 x 300^2) = 519.6..., 0x600f (300^2 alone overflows float16).
  CHECK(reduce_same(ref, BP_OP_NORM, BP_FLOAT16, Bits{0x4200, 0x4400}) == Bits{0x4500});
  CHECK(reduce_same(ref, BP_OP_NORM, BP_FLOAT16, Bits{0x5cb0, 0x5cb0, 0x5cb0}) == Bits{0x600f});
  // 256 x 256 x 2^-10 = 64 (256 x 256 alone overflows float16).
  CHECK(reduce_same(ref, BP_OP_PROD, BP_FLOAT16, Bits{0x5c00, 0x5c00, 0x1400}) == Bits{0x5400});
  // log(e^0 + e^0) = log 2 = 0.693..., 0x398c in float16.
  CHECK(reduce_same(ref, BP_OP_LOGSUMEXP, BP_FLOAT16, Bits{0x0000, 0x0000}) == Bits{0x398c});
  check_bits(BP_FLOAT16, reduce_same(ref, BP_OP_LOGSUMEXP, BP_FLOAT16, Bits{kF16NaN, 0x0000}), {kF16NaN});
}

TEST_CASE("MAX, MIN, ARGMAX and ARGMIN of the small dtypes", "[small-dtypes][reduce]") {
  Reference ref;
  check_bits(BP_FLOAT16, reduce_same(ref, BP_OP_MAX, BP_FLOAT16, Bits{kF16One, kF16NaN, 0x4200}), {kF16NaN});
  CHECK(reduce_int64(ref, BP_OP_ARGMAX, BP_FLOAT16, Bits{kF16One, kF16NaN, 0x4200}) == std::vector<int64_t>{1});
  CHECK(reduce_same(ref, BP_OP_MIN, BP_FLOAT16, Bits{0x0001, 0x8001, 0x0000}) == Bits{0x8001});
  CHECK(reduce_int64(ref, BP_OP_ARGMIN, BP_FLOAT16, Bits{0x0001, 0x8001, 0x0000}) == std::vector<int64_t>{1});
  // A subnormal is above +0 and -0; equal values keep the first position.
  CHECK(reduce_int64(ref, BP_OP_ARGMAX, BP_BFLOAT16, Bits{0x8000, 0x0000, 0x0001}) == std::vector<int64_t>{2});
  CHECK(reduce_int64(ref, BP_OP_ARGMAX, BP_BFLOAT16, Bits{kBF16One, kBF16One}) == std::vector<int64_t>{0});
  CHECK(reduce_int64(ref, BP_OP_ARGMAX, BP_UINT8, std::vector<uint8_t>{1, 255, 7}) == std::vector<int64_t>{1});
  check_values(reduce_same(ref, BP_OP_MAX, BP_UINT8, std::vector<uint8_t>{1, 255, 7}), std::vector<uint8_t>{255});
  CHECK(reduce_int64(ref, BP_OP_ARGMIN, BP_INT8, std::vector<int8_t>{5, -128, -128}) == std::vector<int64_t>{1});
  check_values(reduce_same(ref, BP_OP_MIN, BP_INT8, std::vector<int8_t>{5, -128, -128}), std::vector<int8_t>{-128});
  check_values(reduce_same(ref, BP_OP_MAX, BP_INT16, std::vector<int16_t>{-32768, -1}), std::vector<int16_t>{-1});
}

TEST_CASE("CUMSUM of halves rounds each exact prefix sum once", "[small-dtypes][reduce]") {
  Reference ref;
  // 1, 1 + 2^-8 (a tie, to 1), 1 + 2^-7: a bfloat16 running sum stays at 1.
  CHECK(elementwise<uint16_t>(ref, BP_OP_CUMSUM, {row(ref, BP_BFLOAT16, Bits{kBF16One, 0x3b80, 0x3b80})}, BP_BFLOAT16) ==
        Bits{0x3f80, 0x3f80, 0x3f81});
  CHECK(elementwise<uint16_t>(ref, BP_OP_CUMSUM, {row(ref, BP_FLOAT16, Bits{kF16One, 0x1000, 0x1000})}, BP_FLOAT16) ==
        Bits{0x3c00, 0x3c00, 0x3c01});
}

TEST_CASE("MATMUL of halves accumulates in float32 or wider, of small integers wraps", "[small-dtypes][matmul]") {
  Reference ref;
  auto matmul = [&](bp_dtype dtype, auto a, auto b, int64_t m, int64_t k, int64_t n) {
    using T = typename decltype(a)::value_type;
    return run_into<T>(ref, BP_OP_MATMUL, {make(ref, dtype, {m, k}, a), make(ref, dtype, {k, n}, b)}, dtype, {m, n});
  };
  // 3000 products 1 x 1: 3000 (a float16 accumulator stops at 2048).
  CHECK(matmul(BP_FLOAT16, Bits(3000, kF16One), Bits(3000, kF16One), 1, 3000, 1) == Bits{0x69dc});
  // 300 products 1 x 1: 300 (a bfloat16 accumulator stops at 256).
  CHECK(matmul(BP_BFLOAT16, Bits(300, kBF16One), Bits(300, kBF16One), 1, 300, 1) == Bits{0x4396});
  // [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
  CHECK(matmul(BP_FLOAT16, Bits{0x3c00, 0x4000, 0x4200, 0x4400}, Bits{0x4500, 0x4600, 0x4700, 0x4800}, 2, 2, 2) ==
        Bits{0x4cc0, 0x4d80, 0x5160, 0x5240});
  check_values(matmul(BP_INT8, std::vector<int8_t>{100, 100}, std::vector<int8_t>{1, 1}, 1, 2, 1),
               std::vector<int8_t>{-56});
  check_values(matmul(BP_UINT8, std::vector<uint8_t>{16, 1}, std::vector<uint8_t>{16, 255}, 1, 2, 1),
               std::vector<uint8_t>{255});
  check_values(matmul(BP_INT16, std::vector<int16_t>{200}, std::vector<int16_t>{200}, 1, 1, 1),
               std::vector<int16_t>{-25536});
}

TEST_CASE("GATHER_ND, SCATTER_ND and WHERE move 8- and 16-bit elements unchanged", "[small-dtypes][indexing]") {
  Reference ref;
  // Rows 2 and 1 of a [3, 2] float16 tensor holding a signalling NaN, -0, subnormals, inf.
  const bp_plugin_tensor data = make(ref, BP_FLOAT16, {3, 2}, Bits{0x0001, 0x8000, 0x7d01, 0x7bff, 0x3c00, 0xfc00});
  CHECK(run_into<uint16_t>(ref, BP_OP_GATHER_ND, {data, ref.tensor<int64_t>({2, 1}, {2, 1})}, BP_FLOAT16, {2, 2}) ==
        Bits{0x3c00, 0xfc00, 0x7d01, 0x7bff});
  check_values(run_into<int8_t>(ref, BP_OP_GATHER_ND,
                                {row(ref, BP_INT8, std::vector<int8_t>{-128, 127, 0, -1}),
                                 ref.tensor<int64_t>({3, 1}, {3, 0, 3})},
                                BP_INT8, {3}),
               std::vector<int8_t>{-1, -128, -1});

  const bp_plugin_tensor out = row(ref, BP_INT16, std::vector<int16_t>{1, 2, 3});
  ref.exec(BP_OP_SCATTER_ND, {ref.tensor<int64_t>({2, 1}, {2, 0}), row(ref, BP_INT16, std::vector<int16_t>{-32768, 32767})},
           out);
  check_values(ref.values<int16_t>(out), std::vector<int16_t>{32767, 2, -32768});

  const bp_plugin_tensor condition = ref.tensor<uint8_t>({3}, {1, 0, 1});
  CHECK(elementwise<uint16_t>(ref, BP_OP_WHERE,
                              {condition, row(ref, BP_FLOAT16, Bits{0x7d01, kF16One, 0x8000}),
                               row(ref, BP_FLOAT16, Bits{0x4000, 0xfc00, 0x4200})},
                              BP_FLOAT16) == Bits{0x7d01, 0xfc00, 0x8000});
  check_values(elementwise<uint8_t>(ref, BP_OP_WHERE,
                                    {condition, row(ref, BP_UINT8, std::vector<uint8_t>{200, 1, 255}),
                                     row(ref, BP_UINT8, std::vector<uint8_t>{0, 7, 9})},
                                    BP_UINT8),
               std::vector<uint8_t>{200, 7, 255});
}

TEST_CASE("SCATTER_ADD_ND wraps small integers and sums halves wide", "[small-dtypes][indexing]") {
  Reference ref;
  auto scatter_add = [&](bp_dtype dtype, auto start, std::vector<int64_t> index, auto values) {
    using T = typename decltype(start)::value_type;
    const bp_plugin_tensor out = row(ref, dtype, start);
    ref.exec(BP_OP_SCATTER_ADD_ND, {ref.tensor<int64_t>({int64_t(index.size()), 1}, index), row(ref, dtype, values)}, out);
    return ref.values<T>(out);
  };
  // 127 + 1 = -128; 0 - 128 - 128 = -256, which wraps to 0; 250 + 3 + 3 = 256, to 0.
  check_values(scatter_add(BP_INT8, std::vector<int8_t>{127, 0}, {0, 1, 1}, std::vector<int8_t>{1, -128, -128}),
               std::vector<int8_t>{-128, 0});
  check_values(scatter_add(BP_UINT8, std::vector<uint8_t>{250}, {0, 0}, std::vector<uint8_t>{3, 3}),
               std::vector<uint8_t>{0});
  // The reference rounds each element's exact sum once (plugin.h also lets
  // a backend round after each term): 1 + 2^-8 + 2^-8 = 1 + 2^-7, and
  // 65504 + 16 - 16 = 65504, 1 + 2^-24 = 1.
  CHECK(scatter_add(BP_BFLOAT16, Bits{kBF16One}, {0, 0}, Bits{0x3b80, 0x3b80}) == Bits{0x3f81});
  CHECK(scatter_add(BP_FLOAT16, Bits{0x7bff, kF16One}, {0, 0, 1}, Bits{0x4c00, 0xcc00, 0x0001}) == Bits{0x7bff, 0x3c00});
}

TEST_CASE("a fused program over halves, small integers and bool gives the values execute gives",
          "[small-dtypes][fused]") {
  Reference ref;
  const std::vector<bp_plugin_tensor> inputs = {row(ref, BP_FLOAT16, Bits{0x7bff, kF16One, kF16NaN, 0x0001}),
                                                row(ref, BP_FLOAT16, Bits{0x4c00, 0x1000, kF16One, 0x0001})};
  const std::vector<bp_fused_instr> instrs = {
      fused_instr(BP_OP_ADD, BP_FLOAT16, BP_FLOAT16, {0, 1}),                  // v2: 65504 + 16 = inf, 1 + 2^-11 = 1, NaN, 2^-23
      fused_instr(BP_OP_COPY, BP_FLOAT16, BP_INT8, {2}),                      // v3: saturates; NaN gives 0
      fused_instr(BP_OP_ADD, BP_INT8, BP_INT8, {3}, BP_SCALAR_RHS, 1),        // v4: 127 + 1 wraps
      fused_instr(BP_OP_LT, BP_INT8, BP_BOOL, {4}, BP_SCALAR_RHS, 0),         // v5
      fused_instr(BP_OP_WHERE, BP_FLOAT16, BP_FLOAT16, {5, 0, 1}),            // v6
      fused_instr(BP_OP_COPY, BP_BOOL, BP_BFLOAT16, {5}),                     // v7
      fused_instr(BP_OP_MUL, BP_BFLOAT16, BP_BFLOAT16, {7}, BP_SCALAR_LHS, 3),  // v8
  };
  const std::vector<bp_dtype> out_dtypes = {BP_FLOAT16, BP_INT8, BP_INT8, BP_BOOL, BP_FLOAT16, BP_BFLOAT16, BP_BFLOAT16};
  std::vector<bp_plugin_tensor> outputs;
  std::vector<int32_t> output_values;
  for (size_t k = 0; k < instrs.size(); ++k) {
    outputs.push_back(ref.empty(out_dtypes[k], {4}));
    output_values.push_back(int32_t(2 + k));
  }
  const bp_fused_program program = fused_program(inputs, instrs, outputs, output_values);
  const bp_status status = ref.api().execute_fused(0, &program);
  INFO("execute_fused: " << (status == BP_OK ? "" : ref.error()));
  REQUIRE(status == BP_OK);

  check_bits(BP_FLOAT16, ref.values<uint16_t>(outputs[0]), {0x7c00, 0x3c00, kF16NaN, 0x0002});
  check_values(ref.values<int8_t>(outputs[1]), std::vector<int8_t>{127, 1, 0, 0});
  check_values(ref.values<int8_t>(outputs[2]), std::vector<int8_t>{-128, 2, 1, 1});
  check_values(ref.values<uint8_t>(outputs[3]), std::vector<uint8_t>{1, 0, 0, 0});
  CHECK(ref.values<uint16_t>(outputs[4]) == Bits{0x7bff, 0x1000, kF16One, 0x0001});
  CHECK(ref.values<uint16_t>(outputs[5]) == Bits{0x3f80, 0x0000, 0x0000, 0x0000});
  CHECK(ref.values<uint16_t>(outputs[6]) == Bits{0x4040, 0x0000, 0x0000, 0x0000});
}
