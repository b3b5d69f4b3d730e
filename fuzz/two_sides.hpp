// What the targets that compare two sides share (fuzz-ops, fuzz-conv): each
// call runs on cpu:0 (side 0) and on reference:0 (side 1, the oracle), both
// found once the host runtime is up (two_sides.cpp, LLVMFuzzerInitialize).
#pragma once

#include "backplane/backplane.h"

namespace bp_fuzz {

constexpr int kSides = 2;
extern bp_device g_sides[kSides];

}  // namespace bp_fuzz
