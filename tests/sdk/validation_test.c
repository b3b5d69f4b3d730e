/*
 * validation_test.c — the plugin SDK's argument validation at its edges:
 * bp_sdk_check_execute, bp_sdk_check_view, bp_sdk_check_collective and
 * BP_SDK_FITS, called directly with two fake buffers. Every plugin relies on
 * these rules (plugin.h, "Errors", and bp_collective_args), so each rule is
 * pinned here once. Prints every failed check and exits 1 if there was one.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backplane/plugin_sdk.h"
#include "sdk_checks.h"

/* Two buffers the fake plugin owns, of 64 bytes each. */
static struct bp_buffer_s {
  uint64_t bytes;
} g_buffers[2] = {{64}, {64}};
static struct bp_buffer_s g_foreign = {1024};

static int32_t bytes_of(void *context, bp_buffer buffer, uint64_t *bytes) {
  (void)context;
  if (buffer != &g_buffers[0] && buffer != &g_buffers[1]) return 0;
  *bytes = buffer->bytes;
  return 1;
}

/* A dense view of `rank` extents (strides computed) at offset 0 of buffer b. */
static bp_plugin_tensor dense(int32_t dtype, int b, int32_t rank, const int64_t *shape) {
  return bp_test_dense_view(&g_buffers[b], dtype, rank, shape);
}

static bp_op_attrs attrs_of(int32_t scalar_mode) {
  bp_op_attrs a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.scalar_mode = scalar_mode;
  return a;
}

static bp_sdk_execute_info g_info;

static bp_status run(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in, int32_t n,
                     const bp_plugin_tensor *out, bp_sdk_check *c) {
  return bp_sdk_check_execute(op, attrs, in, n, out, bytes_of, NULL, &g_info, c);
}

#define EXPECT(call, want)                                                                   \
  do {                                                                                       \
    bp_sdk_check c_;                                                                         \
    const bp_status got_ = (call)(&c_);                                                      \
    ++g_checks;                                                                              \
    if (got_ != (want)) {                                                                    \
      ++g_failed;                                                                            \
      printf("FAILED %s:%d: %s gave %s, expected %s (message: %s)\n", __FILE__, __LINE__,    \
             #call, bp_vocab_status_name(got_), bp_vocab_status_name(want),                  \
             got_ == BP_OK ? "" : c_.message);                                               \
    }                                                                                        \
  } while (0)

/* The cases, each a function of the check struct so EXPECT can name it. */
static const int64_t k23[2] = {2, 3}, k13[2] = {1, 3}, k32[2] = {3, 2}, k22[2] = {2, 2};
static bp_op_attrs g_attrs, g_rhs, g_bad_mode;
static bp_plugin_tensor a, b, o, o_bool, o_i64, cond;

static bp_status add_ok(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, b};
  return run(BP_OP_ADD, &g_attrs, in, 2, &o, c);
}
static bp_status add_scalar_ok(bp_sdk_check *c) { return run(BP_OP_MUL, &g_rhs, &a, 1, &o, c); }
static bp_status compare_ok(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, b};
  return run(BP_OP_LT, &g_attrs, in, 2, &o_bool, c);
}
static bp_status where_ok(bp_sdk_check *c) {
  const bp_plugin_tensor in[3] = {cond, a, b};
  return run(BP_OP_WHERE, &g_attrs, in, 3, &o, c);
}
static bp_status where_cond_not_bool(bp_sdk_check *c) {
  const bp_plugin_tensor in[3] = {a, a, b};
  return run(BP_OP_WHERE, &g_attrs, in, 3, &o, c);
}
static bp_status reduce_ok(bp_sdk_check *c) {
  const bp_plugin_tensor out = dense(BP_FLOAT32, 1, 2, k13);
  return run(BP_OP_SUM, &g_attrs, &a, 1, &out, c);
}
static bp_status reduce_bad_extent(bp_sdk_check *c) {
  const int64_t s[2] = {2, 2};
  const bp_plugin_tensor out = dense(BP_FLOAT32, 1, 2, s);
  return run(BP_OP_SUM, &g_attrs, &a, 1, &out, c);
}
static bp_status matmul_ok(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, dense(BP_FLOAT32, 1, 2, k32)};
  const bp_plugin_tensor out = dense(BP_FLOAT32, 1, 2, k22);
  return run(BP_OP_MATMUL, &g_attrs, in, 2, &out, c);
}
static bp_status matmul_k_mismatch(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, dense(BP_FLOAT32, 1, 2, k22)};
  const bp_plugin_tensor out = dense(BP_FLOAT32, 1, 2, k22);
  return run(BP_OP_MATMUL, &g_attrs, in, 2, &out, c);
}
static bp_status copy_ok(bp_sdk_check *c) { return run(BP_OP_COPY, &g_attrs, &a, 1, &o_i64, c); }
static bp_status create_ok(bp_sdk_check *c) { return run(BP_OP_FILL, &g_attrs, NULL, 0, &o, c); }
static bp_status unknown_op(bp_sdk_check *c) { return run(999, &g_attrs, &a, 1, &o, c); }
static bp_status null_attrs(bp_sdk_check *c) { return run(BP_OP_NEG, NULL, &a, 1, &o, c); }
static bp_status negative_count(bp_sdk_check *c) { return run(BP_OP_NEG, &g_attrs, &a, -1, &o, c); }
static bp_status too_many(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, b};
  return run(BP_OP_NEG, &g_attrs, in, 2, &o, c);
}
static bp_status too_few(bp_sdk_check *c) { return run(BP_OP_ADD, &g_attrs, &a, 1, &o, c); }
static bp_status null_inputs(bp_sdk_check *c) { return run(BP_OP_NEG, &g_attrs, NULL, 1, &o, c); }
static bp_status null_output(bp_sdk_check *c) { return run(BP_OP_NEG, &g_attrs, &a, 1, NULL, c); }
static bp_status bad_scalar_mode(bp_sdk_check *c) { return run(BP_OP_ADD, &g_bad_mode, &a, 1, &o, c); }
static bp_status short_attrs_two_inputs(bp_sdk_check *c) {
  /* scalar_mode lies past struct_size: it reads as NONE, so two inputs. */
  bp_op_attrs short_attrs = attrs_of(BP_SCALAR_RHS);
  const bp_plugin_tensor in[2] = {a, b};
  short_attrs.struct_size = sizeof(uint32_t);
  return run(BP_OP_ADD, &short_attrs, in, 2, &o, c);
}
static bp_status mixed_dtypes(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, dense(BP_INT32, 1, 2, k23)};
  return run(BP_OP_ADD, &g_attrs, in, 2, &o, c);
}
static bp_status undefined_pair_div_int(bp_sdk_check *c) {
  const bp_plugin_tensor x = dense(BP_INT32, 0, 2, k23), y = dense(BP_INT32, 1, 2, k23);
  const bp_plugin_tensor in[2] = {x, x};
  return run(BP_OP_DIV, &g_attrs, in, 2, &y, c);
}
static bp_status undefined_pair_add_widens(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, b};
  return run(BP_OP_ADD, &g_attrs, in, 2, &o_i64, c);
}
static bp_status elementwise_shape_mismatch(bp_sdk_check *c) {
  const bp_plugin_tensor in[2] = {a, dense(BP_FLOAT32, 1, 2, k32)};
  return run(BP_OP_ADD, &g_attrs, in, 2, &o, c);
}

/* Views, through bp_sdk_check_view. */
static bp_plugin_tensor g_view;
static int32_t g_is_output;
static int64_t g_numel;
static bp_status view(bp_sdk_check *c) {
  return bp_sdk_check_view("op", "view", &g_view, g_is_output, bytes_of, NULL, &g_numel, c);
}

/* Collectives, through bp_sdk_check_collective: two participants on
 * devices 0 and 1, float32 [4] inputs at the start of buffers 0 and 1,
 * outputs right after them; each case changes a copy. */
static const int64_t k4_[1] = {4}, k24[2] = {2, 4}, k34[2] = {3, 4};
static int32_t g_devices[2] = {0, 1};
static bp_plugin_tensor g_in[2], g_out[2];
static bp_collective_args g_coll;
static int32_t g_group_size;
static bp_sdk_collective_info g_coll_info;

static void collective_reset(void) {
  int i;
  for (i = 0; i < 2; ++i) {
    g_in[i] = dense(BP_FLOAT32, i, 1, k4_);
    g_out[i] = dense(BP_FLOAT32, i, 1, k4_);
    g_out[i].offset = 16;
  }
  g_devices[0] = 0;
  g_devices[1] = 1;
  memset(&g_coll, 0, sizeof g_coll);
  g_coll.struct_size = sizeof g_coll;
  g_coll.collective = BP_COLLECTIVE_ALL_REDUCE;
  g_coll.reduce_op = BP_REDUCE_SUM;
  g_coll.count = 2;
  g_coll.devices = g_devices;
  g_coll.inputs = g_in;
  g_coll.outputs = g_out;
  g_group_size = 0;
}

/* ATTENTION (since 1.6): q [2, 3], k [2, 3], v [2, 2] -> [2, 2]; input 3,
 * the mask, absent or [Lq, Lk] = [2, 2] of q's dtype. */
static bp_status attention_with(const bp_plugin_tensor *mask, const bp_plugin_tensor *v, bp_sdk_check *c) {
  bp_plugin_tensor in[4];
  const bp_plugin_tensor out = dense(BP_FLOAT32, 1, 2, k22);
  in[0] = a;
  in[1] = dense(BP_FLOAT32, 0, 2, k23);
  in[2] = *v;
  if (mask) {
    in[3] = *mask;
  } else {
    memset(&in[3], 0, sizeof in[3]);
  }
  return run(BP_OP_ATTENTION, &g_attrs, in, 4, &out, c);
}
static bp_status attention_ok(bp_sdk_check *c) {
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k22);
  return attention_with(NULL, &v, c);
}
static bp_status attention_masked_ok(bp_sdk_check *c) {
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k22), m = dense(BP_FLOAT32, 0, 2, k22);
  return attention_with(&m, &v, c);
}
static bp_status attention_mask_other_dtype(bp_sdk_check *c) {
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k22), m = dense(BP_FLOAT64, 0, 2, k22);
  return attention_with(&m, &v, c);
}
static bp_status attention_mask_shape(bp_sdk_check *c) {
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k22), m = dense(BP_FLOAT32, 0, 2, k23);
  return attention_with(&m, &v, c);
}
static bp_status attention_v_keys(bp_sdk_check *c) {
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k32); /* 3 keys, not 2 */
  return attention_with(NULL, &v, c);
}
static bp_status attention_absent_with_rank(bp_sdk_check *c) {
  bp_plugin_tensor m;
  const bp_plugin_tensor v = dense(BP_FLOAT32, 1, 2, k22);
  memset(&m, 0, sizeof m);
  m.rank = 2;
  return attention_with(&m, &v, c);
}
/* The unmasked call with every view of `dtype`, q absent unless `with_q`. */
static bp_status attention_of(int32_t dtype, int with_q, bp_sdk_check *c) {
  bp_plugin_tensor in[4];
  const bp_plugin_tensor out = dense(dtype, 1, 2, k22);
  memset(in, 0, sizeof in);
  if (with_q) in[0] = dense(dtype, 0, 2, k23);
  in[1] = dense(dtype, 0, 2, k23);
  in[2] = dense(dtype, 1, 2, k22);
  return run(BP_OP_ATTENTION, &g_attrs, in, 4, &out, c);
}
static bp_status attention_absent_q(bp_sdk_check *c) { return attention_of(BP_FLOAT32, 0, c); }
static bp_status attention_integers(bp_sdk_check *c) { return attention_of(BP_INT32, 1, c); }

/* The reset call made collective `which`, with the [4] views of `side` (g_in or
 * g_out) made [2, 4]: the side with one row per participant. */
static void collective_with_rows(int32_t which, bp_plugin_tensor *side) {
  collective_reset();
  g_coll.collective = which;
  side[0] = dense(BP_FLOAT32, 0, 2, k24);
  side[1] = dense(BP_FLOAT32, 1, 2, k24);
}
static bp_status collective(bp_sdk_check *c) {
  return bp_sdk_check_collective(&g_coll, g_group_size, bytes_of, NULL, &g_coll_info, c);
}
static bp_status collective_null(bp_sdk_check *c) {
  return bp_sdk_check_collective(NULL, 0, bytes_of, NULL, &g_coll_info, c);
}

int main(void) {
  const int64_t k16[1] = {16}, k17[1] = {17}, k4[1] = {4};
  g_attrs = attrs_of(BP_SCALAR_NONE);
  g_rhs = attrs_of(BP_SCALAR_RHS);
  g_bad_mode = attrs_of(7);
  a = dense(BP_FLOAT32, 0, 2, k23);
  b = dense(BP_FLOAT32, 1, 2, k13);
  b.shape[0] = 2; /* [2, 3] broadcast from one row: stride 0 on axis 0 */
  b.strides[0] = 0;
  o = dense(BP_FLOAT32, 1, 2, k23);
  o.buffer = &g_buffers[0];
  o_bool = dense(BP_BOOL, 1, 2, k23);
  o_i64 = dense(BP_INT64, 0, 2, k23);
  cond = dense(BP_BOOL, 1, 2, k23);

  /* A valid call of every family, and what it reports. */
  EXPECT(add_ok, BP_OK);
  CHECK(g_info.family == BP_OP_FAMILY_BINARY && g_info.dtype == BP_FLOAT32 && g_info.numel == 6);
  EXPECT(add_scalar_ok, BP_OK);
  CHECK(g_info.scalar_mode == BP_SCALAR_RHS);
  EXPECT(compare_ok, BP_OK);
  CHECK(g_info.family == BP_OP_FAMILY_COMPARE);
  EXPECT(where_ok, BP_OK);
  CHECK(g_info.dtype == BP_FLOAT32); /* the values' dtype, not the condition's */
  EXPECT(reduce_ok, BP_OK);
  EXPECT(matmul_ok, BP_OK);
  EXPECT(copy_ok, BP_OK);
  EXPECT(create_ok, BP_OK);
  CHECK(g_info.family == BP_OP_FAMILY_CREATE && g_info.dtype == BP_FLOAT32);

  /* The call itself. */
  EXPECT(unknown_op, BP_ERR_UNSUPPORTED);
  EXPECT(null_attrs, BP_ERR_INVALID_ARGUMENT);
  EXPECT(negative_count, BP_ERR_INVALID_ARGUMENT);
  EXPECT(too_many, BP_ERR_INVALID_ARGUMENT);
  EXPECT(too_few, BP_ERR_INVALID_ARGUMENT);
  EXPECT(null_inputs, BP_ERR_INVALID_ARGUMENT);
  EXPECT(null_output, BP_ERR_INVALID_ARGUMENT);
  EXPECT(bad_scalar_mode, BP_ERR_INVALID_ARGUMENT);
  EXPECT(short_attrs_two_inputs, BP_OK);

  /* Dtypes and shapes. */
  EXPECT(mixed_dtypes, BP_ERR_DTYPE);
  EXPECT(where_cond_not_bool, BP_ERR_DTYPE);
  EXPECT(undefined_pair_div_int, BP_ERR_UNSUPPORTED);
  EXPECT(undefined_pair_add_widens, BP_ERR_UNSUPPORTED);
  EXPECT(elementwise_shape_mismatch, BP_ERR_SHAPE);
  EXPECT(reduce_bad_extent, BP_ERR_SHAPE);
  EXPECT(matmul_k_mismatch, BP_ERR_SHAPE);

  /* ATTENTION: the mask (input 3) alone may be absent, and is of q's dtype and [..., Lq, Lk]. */
  EXPECT(attention_ok, BP_OK);
  CHECK(g_info.family == BP_OP_FAMILY_ATTENTION && g_info.dtype == BP_FLOAT32 && g_info.numel == 4);
  EXPECT(attention_masked_ok, BP_OK);
  EXPECT(attention_mask_other_dtype, BP_ERR_DTYPE);
  EXPECT(attention_mask_shape, BP_ERR_SHAPE);
  EXPECT(attention_v_keys, BP_ERR_SHAPE);
  EXPECT(attention_absent_with_rank, BP_ERR_INVALID_ARGUMENT);
  EXPECT(attention_absent_q, BP_ERR_INVALID_ARGUMENT);
  EXPECT(attention_integers, BP_ERR_UNSUPPORTED);

  /* One view: exactly filling its buffer, then one element past it. */
  g_view = dense(BP_FLOAT32, 0, 1, k16);
  EXPECT(view, BP_OK);
  CHECK(g_numel == 16);
  g_view = dense(BP_FLOAT32, 0, 1, k17);
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view = dense(BP_FLOAT32, 0, 1, k4);
  g_view.offset = 48; /* the last 4 floats */
  EXPECT(view, BP_OK);
  g_view.offset = 52;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view.offset = UINT64_MAX - 3; /* aligned, but the end overflows */
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view.offset = 2; /* half a float */
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view = dense(BP_FLOAT32, 0, 1, k4);
  g_view.strides[0] = INT64_MAX;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view = dense(BP_FLOAT32, 0, 1, k4);
  g_view.dtype = 42;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view.dtype = BP_FLOAT32;
  g_view.rank = BP_MAX_RANK + 1;
  EXPECT(view, BP_ERR_SHAPE);
  g_view.rank = -1;
  EXPECT(view, BP_ERR_SHAPE);
  g_view.rank = 1;
  g_view.shape[0] = -1;
  EXPECT(view, BP_ERR_SHAPE);
  g_view.shape[0] = 4;
  g_view.strides[0] = -1;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view.strides[0] = 1;
  g_view.buffer = NULL;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);
  g_view.buffer = &g_foreign;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT);

  /* A view without elements passes whatever its strides and buffer. */
  {
    const int64_t s[3] = {0, 3, 3};
    g_view = dense(BP_FLOAT32, 0, 3, s);
    g_view.strides[1] = g_view.strides[2] = INT64_MAX;
    g_view.buffer = NULL;
    g_is_output = 1;
    EXPECT(view, BP_OK);
    CHECK(g_numel == 0);
  }

  /* Outputs: distinct elements only. */
  g_is_output = 1;
  g_view = dense(BP_FLOAT32, 0, 2, k22);
  g_view.strides[0] = 0;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT); /* a broadcast output */
  g_view.strides[0] = 1;
  g_view.strides[1] = 1;
  EXPECT(view, BP_ERR_INVALID_ARGUMENT); /* [2, 2] on strides [1, 1]: elements 1 and 2 meet */
  g_view = dense(BP_FLOAT32, 0, 2, k23);
  g_view.strides[0] = 1;
  g_view.strides[1] = 2; /* a transposed (column-major) output */
  EXPECT(view, BP_OK);
  g_view = dense(BP_FLOAT32, 0, 2, k32);
  g_view.strides[0] = 3;
  g_view.strides[1] = 2; /* elements 0, 2, 3, 5, 6, 8: distinct, interleaved */
  EXPECT(view, BP_OK);
  g_is_output = 0;
  g_view.strides[0] = 1;
  g_view.strides[1] = 1;
  EXPECT(view, BP_OK); /* an input may repeat elements */

  /* BP_SDK_FITS reads a struct only as far as its producer built it. */
  {
    bp_op_attrs old = attrs_of(BP_SCALAR_NONE);
    old.struct_size = (uint32_t)offsetof(bp_op_attrs, seed);
    CHECK(BP_SDK_FITS(&old, scalar2));
    CHECK(!BP_SDK_FITS(&old, seed));
  }

  /* Collectives: valid calls of each collective, in place, with a group. */
  collective_reset();
  EXPECT(collective, BP_OK);
  CHECK(g_coll_info.dtype == BP_FLOAT32 && g_coll_info.participants == 2 && g_coll_info.numel == 4);
  g_out[0] = g_in[0];
  g_out[1] = g_in[1];
  EXPECT(collective, BP_OK); /* in place */
  collective_reset();
  g_coll.collective = BP_COLLECTIVE_BROADCAST;
  g_coll.reduce_op = 0;
  g_coll.root = 1;
  EXPECT(collective, BP_OK);
  g_coll.root = 2;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_with_rows(BP_COLLECTIVE_ALL_GATHER, g_out);
  g_out[0].offset = g_out[1].offset = 16;
  EXPECT(collective, BP_OK);
  CHECK(g_coll_info.numel == 4);
  g_out[1].shape[0] = 3;
  EXPECT(collective, BP_ERR_SHAPE);
  collective_with_rows(BP_COLLECTIVE_REDUCE_SCATTER, g_in);
  g_coll.reduce_op = BP_REDUCE_MAX;
  g_out[0].offset = g_out[1].offset = 32;
  EXPECT(collective, BP_OK);
  CHECK(g_coll_info.numel == 4);
  g_in[0].shape[0] = g_in[1].shape[0] = 1;
  EXPECT(collective, BP_ERR_SHAPE); /* the leading extent is not n */
  collective_reset();
  g_coll.collective = BP_COLLECTIVE_ALL_GATHER;
  g_coll.count = 1;
  g_coll.group = 9;
  g_group_size = 3;
  g_out[0] = dense(BP_FLOAT32, 0, 2, k34);
  g_out[0].offset = 16;
  EXPECT(collective, BP_OK);
  CHECK(g_coll_info.participants == 3);
  g_coll.count = 2;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT); /* a group's call has one participant */

  /* Collectives: the call. */
  collective_reset();
  EXPECT(collective_null, BP_ERR_INVALID_ARGUMENT);
  g_coll.struct_size = (uint32_t)offsetof(bp_collective_args, group);
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_coll.collective = 99;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_coll.reduce_op = 0;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_coll.count = 0;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_coll.devices = NULL;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_devices[1] = 0;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);

  /* Collectives: views, dtypes, shapes, overlaps. */
  collective_reset();
  g_in[1].shape[0] = 2;
  g_in[1].strides[0] = 2;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT); /* not contiguous */
  collective_reset();
  g_in[1].buffer = &g_foreign;
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_out[1].dtype = BP_INT32;
  EXPECT(collective, BP_ERR_DTYPE);
  collective_reset();
  g_in[0].dtype = g_in[1].dtype = g_out[0].dtype = g_out[1].dtype = BP_BOOL;
  EXPECT(collective, BP_ERR_DTYPE); /* SUM of bool */
  g_coll.reduce_op = BP_REDUCE_MAX;
  EXPECT(collective, BP_OK); /* MAX of bool is or */
  collective_reset();
  g_in[1].shape[0] = g_out[1].shape[0] = 3;
  EXPECT(collective, BP_ERR_SHAPE);
  collective_reset();
  g_out[0].offset = 8; /* half over its own input */
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_out[0] = g_in[1]; /* exactly another participant's input */
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);
  collective_reset();
  g_out[1] = g_out[0]; /* two outputs in one place */
  EXPECT(collective, BP_ERR_INVALID_ARGUMENT);

  printf("%d passed, %d failed\n", g_checks - g_failed, g_failed);
  return g_failed ? 1 : 0;
}
