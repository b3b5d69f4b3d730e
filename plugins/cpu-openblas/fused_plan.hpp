// How execute_fused runs a validated program, decided once per call and
// read by every thread: where each value lives while a tile of elements is
// computed (read straight from its input, computed straight into its
// output, or a tile buffer), which instructions matter, and the tile size.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "fused_kernels.hpp"
#include "layout.hpp"

namespace cpu_backend {

constexpr int kFusedMaxValues = BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS;

// Tile buffers of one thread live on its stack in this many bytes; each
// holds a tile of 8-byte elements (the widest dtype). Tiles of 512 elements
// ran the x**2 - 0.5, **3 - 0.2 chain fastest (1024 and 2048 were 10 and
// 25% slower: the input's, the buffers' and the output's tiles then crowd
// L1); the most a program can keep alive at once (every input and
// instruction) still gets tiles of 64 elements.
constexpr int64_t kFusedScratchBytes = 64 * 1024;
constexpr int64_t kFusedSlotElementBytes = 8;
constexpr int64_t kFusedMaxTile = 512;

// Where a value's element e of the current tile [tb, tb + n) is: a tile
// buffer (slot >= 0) holds it at index e - tb; otherwise it is at
// base + e * element_bytes (a C-order contiguous input or a dense output).
struct FusedHome {
  int32_t value;
  int32_t slot;
  char *base;
  int64_t element_bytes;
};

// An input that is not contiguous in C order, copied run by run through its
// strides into its tile buffer at the start of each tile.
struct FusedGather {
  using Loader = void (*)(const Layout<1> &layout, const char *base, void *dst, int64_t begin, int64_t end);
  Loader load;
  int32_t value;
  const char *base;
  Layout<1> layout;
};

// One instruction whose result is needed, or a pair (fused_pairs.hpp), with
// its value numbers resolved at run time: the kernel's operands in order,
// -1 - s for scalars[s] (a single instruction's scalar is the kernel's first
// operand for BP_SCALAR_LHS, its second for RHS; a pair's are its second and
// third), -1 past the arity.
struct FusedStep {
  FusedKernel kernel;
  int32_t dst;
  int32_t args[3];
  alignas(8) unsigned char scalars[2][8];
};

// An output that is not its value's home, written at the end of each tile.
struct FusedCopy {
  char *base;
  int64_t element_bytes;
  int32_t value;
};

struct FusedPlan {
  FusedHome homes[kFusedMaxValues];
  FusedGather gathers[BP_FUSED_MAX_INPUTS];
  FusedStep steps[BP_FUSED_MAX_INSTRS];
  FusedCopy copies[BP_FUSED_MAX_OUTPUTS];
  int32_t n_homes = 0, n_gathers = 0, n_steps = 0, n_copies = 0;
  int32_t n_slots = 0;
  int64_t tile = kFusedMaxTile;
  int64_t cost = 0;  // per element, in parallel_for's units
};

// The plan of a program that check_fused has accepted, into `plan` (a few
// kilobytes: the caller's stack, not a copy).
void plan_fused(const bp_fused_program &program, FusedPlan &plan);

}  // namespace cpu_backend
