/*
 * conv_validation_test.c — the SDK's rules for the CONV family (since 1.6):
 * bp_sdk_check_execute with a bp_window_params, bp_sdk_conv_geometry's
 * parts and extents, and each refusal plugin.h names (the window missing or
 * short, fields out of range, ranks, channels, groups, kernel, bias,
 * extents, absent views where none may be, dtypes). Prints every failed
 * check and exits 1 if there was one.
 */
#include <stdio.h>
#include <string.h>

#include "backplane/plugin_sdk.h"
#include "sdk_checks.h"

/* One large buffer the fake plugin owns: every view of the tests fits. */
static struct bp_buffer_s {
  uint64_t bytes;
} g_buffer = {1 << 20};

static int32_t bytes_of(void *context, bp_buffer buffer, uint64_t *bytes) {
  (void)context;
  if (buffer != &g_buffer) return 0;
  *bytes = buffer->bytes;
  return 1;
}

static bp_plugin_tensor view(int32_t dtype, int32_t rank, const int64_t *shape) {
  return bp_test_dense_view(&g_buffer, dtype, rank, shape);
}

static bp_plugin_tensor absent(void) {
  bp_plugin_tensor t;
  memset(&t, 0, sizeof t);
  return t;
}

/* A 2-D problem: x [2, 4, 6, 5], weight [6, 2, 3, 3] (groups 2), padding 1,
 * stride 1: y [2, 6, 6, 5]. */
typedef struct {
  bp_plugin_tensor in[3], out;
  bp_window_params window;
  bp_op_attrs attrs;
} Call;

static void conv_call(Call *c, int32_t op) {
  const int64_t xs[4] = {2, 4, 6, 5}, ws[4] = {6, 2, 3, 3}, ys[4] = {2, 6, 6, 5}, bs[1] = {6}, bt[1] = {4};
  memset(c, 0, sizeof *c);
  c->window.struct_size = sizeof c->window;
  c->window.spatial_rank = 2;
  c->window.groups = 2;
  c->window.kernel[0] = c->window.kernel[1] = 3;
  c->window.stride[0] = c->window.stride[1] = 1;
  c->window.dilation[0] = c->window.dilation[1] = 1;
  c->window.pad_begin[0] = c->window.pad_begin[1] = c->window.pad_end[0] = c->window.pad_end[1] = 1;
  c->attrs.struct_size = sizeof c->attrs;
  c->attrs.params = &c->window;
  if (op == BP_OP_CONV) {
    c->in[0] = view(BP_FLOAT32, 4, xs), c->in[1] = view(BP_FLOAT32, 4, ws), c->in[2] = view(BP_FLOAT32, 1, bs);
    c->out = view(BP_FLOAT32, 4, ys);
  } else if (op == BP_OP_CONV_TRANSPOSE) {
    c->in[0] = view(BP_FLOAT32, 4, ys), c->in[1] = view(BP_FLOAT32, 4, ws), c->in[2] = view(BP_FLOAT32, 1, bt);
    c->out = view(BP_FLOAT32, 4, xs);
  } else {
    c->in[0] = view(BP_FLOAT32, 4, xs), c->in[1] = view(BP_FLOAT32, 4, ys), c->in[2] = absent();
    c->out = view(BP_FLOAT32, 4, ws);
  }
}

static bp_status run(int32_t op, const Call *c, bp_sdk_check *check) {
  bp_sdk_execute_info info;
  return bp_sdk_check_execute(op, &c->attrs, c->in, 3, &c->out, bytes_of, NULL, &info, check);
}

#define EXPECT(op, mutate, want)                                                                       \
  do {                                                                                                 \
    Call c_;                                                                                           \
    bp_sdk_check k_;                                                                                   \
    bp_status got_;                                                                                    \
    conv_call(&c_, op);                                                                                \
    mutate;                                                                                            \
    got_ = run(op, &c_, &k_);                                                                          \
    ++g_checks;                                                                                        \
    if (got_ != (want)) {                                                                              \
      ++g_failed;                                                                                      \
      printf("FAILED %s:%d: %s with %s gave %s, expected %s (%s)\n", __FILE__, __LINE__,               \
             bp_vocab_op_name(op), #mutate, bp_vocab_status_name(got_), bp_vocab_status_name(want),    \
             got_ == BP_OK ? "" : k_.message);                                                         \
    }                                                                                                  \
  } while (0)

int main(void) {
  const int32_t ops[3] = {BP_OP_CONV, BP_OP_CONV_TRANSPOSE, BP_OP_CONV_WEIGHT_GRAD};
  int i;
  for (i = 0; i < 3; ++i) {
    const int32_t op = ops[i];
    EXPECT(op, (void)0, BP_OK);
    EXPECT(op, c_.attrs.params = NULL, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.struct_size = 16, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.attrs.struct_size = BP_OP_ATTRS_SIZE_1_3, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.spatial_rank = 0, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.spatial_rank = 3, BP_ERR_SHAPE);
    EXPECT(op, c_.window.groups = 0, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.groups = 3, BP_ERR_SHAPE);
    EXPECT(op, c_.window.stride[1] = 0, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.dilation[0] = -1, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.pad_begin[0] = -1, BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.window.kernel[1] = 2, BP_ERR_SHAPE);
    EXPECT(op, c_.in[1] = absent(), BP_ERR_INVALID_ARGUMENT);
    EXPECT(op, c_.in[0].dtype = BP_FLOAT64, BP_ERR_DTYPE);
    /* Too much padding for the extents: the relation breaks. */
    EXPECT(op, c_.window.pad_end[0] = 3, BP_ERR_SHAPE);
  }
  /* CONV: the bias is optional and [C_out]; the output's extents follow. */
  EXPECT(BP_OP_CONV, c_.in[2] = absent(), BP_OK);
  EXPECT(BP_OP_CONV, c_.in[2].shape[0] = 4, BP_ERR_SHAPE);
  EXPECT(BP_OP_CONV, c_.in[2].dtype = BP_FLOAT64, BP_ERR_DTYPE);
  EXPECT(BP_OP_CONV, c_.out.shape[2] = 5, BP_ERR_SHAPE);
  EXPECT(BP_OP_CONV, c_.out.shape[1] = 4, BP_ERR_SHAPE);
  EXPECT(BP_OP_CONV, (c_.in[0].dtype = c_.in[1].dtype = c_.in[2].dtype = c_.out.dtype = BP_INT32), BP_ERR_UNSUPPORTED);
  EXPECT(BP_OP_CONV, c_.out = absent(), BP_ERR_INVALID_ARGUMENT);
  /* CONV_TRANSPOSE: x may be longer by less than max(stride, dilation)
   * (output padding); stride 2 makes x [.., 6, 5] from y [.., 3, 3]. */
  EXPECT(BP_OP_CONV_TRANSPOSE, (c_.window.stride[0] = c_.window.stride[1] = 2, c_.in[0].shape[2] = 3, c_.in[0].shape[3] = 3),
         BP_OK);
  {
    /* x one past the output padding max(stride, dilation) allows: 7 where 5 and 6 fit. */
    static const int64_t longer[4] = {2, 4, 7, 5};
    EXPECT(BP_OP_CONV_TRANSPOSE, (c_.window.stride[0] = 2, c_.in[0].shape[2] = 3, c_.out = view(BP_FLOAT32, 4, longer)),
           BP_ERR_SHAPE);
  }
  EXPECT(BP_OP_CONV_TRANSPOSE, c_.in[2].shape[0] = 6, BP_ERR_SHAPE);
  EXPECT(BP_OP_CONV_TRANSPOSE, c_.in[2] = absent(), BP_OK);
  /* CONV_WEIGHT_GRAD takes no bias. */
  EXPECT(BP_OP_CONV_WEIGHT_GRAD, c_.in[2] = c_.in[0], BP_ERR_INVALID_ARGUMENT);
  {
    /* The geometry a kernel gets: the parts and extents, axes past the
     * window's rank 1 (kernel, stride, dilation, extents) and 0 (padding). */
    Call c;
    bp_sdk_conv g;
    char message[256];
    conv_call(&c, BP_OP_CONV_WEIGHT_GRAD);
    CHECK(bp_sdk_conv_geometry(BP_OP_CONV_WEIGHT_GRAD, &c.window, c.in, &c.out, &g, message, sizeof message) == BP_OK);
    CHECK(g.x == &c.in[0] && g.y == &c.in[1] && g.w == &c.out && g.bias == NULL);
    CHECK(g.rank == 2 && g.groups == 2 && g.n == 2 && g.c_in == 4 && g.c_out == 6);
    CHECK(g.in[0] == 6 && g.in[1] == 5 && g.in[2] == 1 && g.out[0] == 6 && g.kernel[2] == 1 && g.pad_begin[2] == 0);
    CHECK(bp_sdk_conv_out_extent(6, 3, 1, 1, 1, 1) == 6 && bp_sdk_conv_out_extent(7, 3, 2, 1, 0, 0) == 3);
    CHECK(bp_sdk_conv_out_extent(2, 3, 1, 2, 0, 0) == 0);
    CHECK(bp_sdk_conv_geometry(BP_OP_ADD, &c.window, c.in, &c.out, &g, message, sizeof message) ==
          BP_ERR_INVALID_ARGUMENT);
  }
  printf("%d of %d checks failed\n", g_failed, g_checks);
  return g_failed ? 1 : 0;
}
