// Block conversions between float32 and the 16-bit floats (float16,
// bfloat16), giving exactly the bits of backplane/half.h. Each instruction
// set has its own table; converters() is the best one this CPU runs, picked
// once at load time. The scalar table is the portable fallback and the
// yardstick the tests hold the others to.
#pragma once

#include <cstdint>

namespace cpu_backend {

enum class Isa { scalar, avx2, avx512 };

// ADD, SUB, MUL and DIV of two contiguous runs of 16-bit floats, widened,
// computed in float32 and rounded once, all in registers: the blocks of
// half_block.hpp cost a store and a reload per operand, which kept add
// well short of memory speed.
enum HalfBinaryOp { kHalfAdd, kHalfSub, kHalfMul, kHalfDiv, kHalfBinaryOps };
using HalfBinaryFn = void (*)(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n);

struct HalfConverters {
  void (*f16_to_f32)(const uint16_t *in, float *out, int64_t n);
  void (*f32_to_f16)(const float *in, uint16_t *out, int64_t n);
  void (*bf16_to_f32)(const uint16_t *in, float *out, int64_t n);
  void (*f32_to_bf16)(const float *in, uint16_t *out, int64_t n);
  HalfBinaryFn f16_binary[kHalfBinaryOps];
  HalfBinaryFn bf16_binary[kHalfBinaryOps];
};

// Whether this CPU runs `isa`'s table (avx2 also needs F16C).
bool isa_supported(Isa isa);
// The table of `isa`, which must be supported.
const HalfConverters &half_converters(Isa isa);
// The best supported table, and its instruction set's name.
const HalfConverters &converters();
const char *isa_name(Isa isa);
Isa best_isa();

}  // namespace cpu_backend
