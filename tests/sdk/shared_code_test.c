/*
 * shared_code_test.c — what the SDK gives every backend besides validation
 * (since 1.4), called directly: coalescing, float-to-integer saturation,
 * the storage C types of the vocabulary's dtypes, and the liveness and
 * support checks of fused programs. Prints every failed check and exits 1
 * if there was one.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backplane/plugin_sdk.h"
#include "sdk_checks.h"

static void coalescing(void) {
  /* [2, 3, 4] dense, and a [2, 3, 4] view that broadcasts axis 1. */
  const int64_t shape[3] = {2, 3, 4}, dense[3] = {12, 4, 1}, broadcast[3] = {4, 0, 1};
  const int64_t *in[2];
  int64_t out_shape[3], s0[3], s1[3];
  int64_t *out[2];
  int32_t rank;
  out[0] = s0;
  out[1] = s1;

  in[0] = dense;
  rank = bp_sdk_coalesce(3, shape, 1, in, out_shape, out);
  CHECK(rank == 1 && out_shape[0] == 24 && s0[0] == 1); /* dense: one axis */

  in[1] = broadcast;
  rank = bp_sdk_coalesce(3, shape, 2, in, out_shape, out);
  /* Axis 0 and 1 cannot merge for the broadcast operand, nor 1 and 2. */
  CHECK(rank == 3 && out_shape[0] == 2 && out_shape[1] == 3 && out_shape[2] == 4);
  CHECK(s1[0] == 4 && s1[1] == 0 && s1[2] == 1 && s0[0] == 12);

  in[1] = NULL; /* a scalar operand: stride 0 everywhere, merges with anything */
  rank = bp_sdk_coalesce(3, shape, 2, in, out_shape, out);
  CHECK(rank == 1 && out_shape[0] == 24 && s0[0] == 1 && s1[0] == 0);

  {
    /* Extent-1 axes are dropped; a single element is rank 0. */
    const int64_t ones[3] = {1, 1, 1}, any[3] = {7, 5, 3};
    in[0] = any;
    CHECK(bp_sdk_coalesce(3, ones, 1, in, out_shape, out) == 0);
  }
  {
    /* A transposed [3, 2] view (strides 1, 3) stays two axes. */
    const int64_t t_shape[2] = {3, 2}, t_strides[2] = {1, 3};
    in[0] = t_strides;
    rank = bp_sdk_coalesce(2, t_shape, 1, in, out_shape, out);
    CHECK(rank == 2 && s0[0] == 1 && s0[1] == 3);
  }
  CHECK(bp_sdk_coalesce(3, shape, BP_SDK_COALESCE_MAX_OPERANDS + 1, in, out_shape, out) == -1);
  CHECK(bp_sdk_coalesce(3, shape, 0, in, out_shape, out) == 1 && out_shape[0] == 24);

  {
    /* Built axis by axis: a zero extent stays, so the space stays empty. */
    int64_t sh[2], st[2];
    int64_t *strides[1];
    const int64_t two = 2, zero_stride = 0;
    int32_t r = 0;
    strides[0] = st;
    bp_sdk_push_axis(&r, sh, strides, 1, 0, &zero_stride);
    bp_sdk_push_axis(&r, sh, strides, 1, 2, &two);
    CHECK(r == 2 && sh[0] == 0 && sh[1] == 2);
  }
}

static void density(void) {
  const int64_t shape[3] = {2, 1, 3};
  const int64_t dense[3] = {3, 99, 1};      /* the extent-1 axis's stride never matters */
  const int64_t transposed[3] = {1, 3, 2};  /* columns first */
  const int64_t broadcast[3] = {0, 0, 1};   /* a row read twice */
  const int64_t gapped[3] = {4, 4, 1};      /* rows 4 apart: one element skipped */
  const int64_t empty[2] = {0, 5}, any[2] = {7, 7};
  CHECK(bp_sdk_is_dense(3, shape, dense) == 1);
  CHECK(bp_sdk_is_dense(3, shape, transposed) == 0);
  CHECK(bp_sdk_is_dense(3, shape, broadcast) == 0);
  CHECK(bp_sdk_is_dense(3, shape, gapped) == 0);
  CHECK(bp_sdk_is_dense(2, empty, any) == 0);  /* axis 1's stride should be 1 */
  CHECK(bp_sdk_is_dense(0, shape, dense) == 1); /* a scalar */
}

static void saturation(void) {
  int64_t min, max;
  bp_sdk_int_range(1, 1, &min, &max);
  CHECK(min == -128 && max == 127);
  bp_sdk_int_range(1, 0, &min, &max);
  CHECK(min == 0 && max == 255);
  bp_sdk_int_range(8, 1, &min, &max);
  CHECK(min == INT64_MIN && max == INT64_MAX);

  CHECK(bp_sdk_saturate_to(2.9, BP_INT8) == 2);
  CHECK(bp_sdk_saturate_to(-2.9, BP_INT8) == -2); /* toward zero */
  CHECK(bp_sdk_saturate_to(1000.0, BP_INT8) == 127);
  CHECK(bp_sdk_saturate_to(-1000.0, BP_INT8) == -128);
  CHECK(bp_sdk_saturate_to(-1.0, BP_UINT8) == 0);
  CHECK(bp_sdk_saturate_to(255.9, BP_UINT8) == 255);
  CHECK(bp_sdk_saturate_to(70000.0, BP_INT16) == 32767);
  CHECK(bp_sdk_saturate_to(3e9, BP_INT32) == INT32_MAX);
  CHECK(bp_sdk_saturate_to(9.3e18, BP_INT64) == INT64_MAX); /* past 2^63 */
  CHECK(bp_sdk_saturate_to(-9.3e18, BP_INT64) == INT64_MIN);
  CHECK(bp_sdk_saturate_to(NAN, BP_INT32) == 0); /* NaN */
  CHECK(bp_sdk_saturate_to(INFINITY, BP_INT16) == 32767);
  CHECK(bp_sdk_saturate_to(5.0, BP_FLOAT32) == 0); /* no integer dtype */
}

/* Every dtype of the vocabulary has a storage C type of its size. */
static void storage_types(void) {
  int32_t covered = 0;
#define COUNT_(id, number, name, size, kind)                    \
  CHECK(sizeof(BP_SDK_CTYPE_##id) == (size_t)bp_vocab_dtype_size(number)); \
  ++covered;
  BP_DTYPE_LIST(COUNT_)
#undef COUNT_
  CHECK(covered == BP_DTYPE_COUNT - 1);
}

static int32_t only_add(void *context, int32_t op, int32_t dtype, int32_t out_dtype) {
  ++*(int *)context;
  return op == BP_OP_ADD && dtype == BP_FLOAT32 && out_dtype == BP_FLOAT32;
}

static void fused_programs(void) {
  /* v0, v1 inputs; v2 = v0 + v1 (dead); v3 = exp(v0); v4 = v3 * v3; output v4. */
  bp_fused_instr instrs[3];
  int32_t outputs[1] = {4};
  uint8_t live[BP_SDK_FUSED_MAX_VALUES];
  bp_fused_program p;
  int calls = 0;
  memset(instrs, 0, sizeof instrs);
  memset(&p, 0, sizeof p);
  instrs[0].op = BP_OP_ADD, instrs[0].args[0] = 0, instrs[0].args[1] = 1, instrs[0].args[2] = -1;
  instrs[1].op = BP_OP_EXP, instrs[1].args[0] = 0, instrs[1].args[1] = -1, instrs[1].args[2] = -1;
  instrs[2].op = BP_OP_MUL, instrs[2].args[0] = 3, instrs[2].args[1] = 3, instrs[2].args[2] = -1;
  instrs[0].dtype = instrs[1].dtype = instrs[2].dtype = BP_FLOAT32;
  instrs[0].out_dtype = instrs[1].out_dtype = instrs[2].out_dtype = BP_FLOAT32;
  p.n_inputs = 2;
  p.n_instrs = 3;
  p.instrs = instrs;
  p.n_outputs = 1;
  p.output_values = outputs;
  bp_sdk_fused_live(&p, live);
  CHECK(live[0] == 1 && live[1] == 0 && live[2] == 0 && live[3] == 1 && live[4] == 1);

  CHECK(bp_sdk_fused_first_unsupported(&p, only_add, &calls) == 1); /* EXP */
  CHECK(calls == 2);
  instrs[1].op = BP_OP_ADD, instrs[2].op = BP_OP_ADD;
  CHECK(bp_sdk_fused_first_unsupported(&p, only_add, &calls) == -1);
}

int main(void) {
  coalescing();
  density();
  saturation();
  storage_types();
  fused_programs();
  printf("%d passed, %d failed\n", g_checks - g_failed, g_failed);
  return g_failed ? 1 : 0;
}
