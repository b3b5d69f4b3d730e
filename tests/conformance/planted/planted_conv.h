/*
 * planted_conv.h — the convolution bugs of planted.c (included there, after
 * g_real and element()): the reference's CONV family run with one mistake.
 *   PLANT_CONV_PADDING_OFF_BY_ONE: the window starts one position late along
 *     spatial axis 0 wherever it has padding before (pad_begin - 1 is read
 *     as the padding, the output extents unchanged), for all three operators.
 *   PLANT_CONV_GROUPS_INTERLEAVED: CONV's group g reads input channels g,
 *     g + G, g + 2G, ... instead of the block [g C_in/G, (g+1) C_in/G).
 *   PLANT_CONV_HALF_IN_HALF: CONV of float16 and bfloat16 adds each product
 *     to a sum kept in the dtype, rounding after every term, instead of in
 *     float32 rounded once.
 */
#define PLANT_CONV

/* The caller's attrs with params pointing at *window (a copy it may change). */
static int planted_window(const bp_op_attrs *attrs, bp_op_attrs *copy, bp_window_params *window) {
  const bp_window_params *w = bp_sdk_window_params(attrs);
  if (w == NULL) return 0;
  memcpy(copy, attrs, attrs->struct_size < sizeof *copy ? attrs->struct_size : sizeof *copy);
  *window = *w;
  copy->params = window;
  return 1;
}

#ifdef PLANT_CONV_HALF_IN_HALF
static float planted_half_value(const bp_plugin_tensor *t, const int64_t *idx) {
  uint16_t h;
  memcpy(&h, element(t, idx), 2);
  return t->dtype == BP_FLOAT16 ? bp_f32_from_f16(h) : bp_f32_from_bf16(h);
}

static uint16_t planted_half_round(float x, int32_t dtype) {
  return dtype == BP_FLOAT16 ? bp_f16_from_f32(x) : bp_bf16_from_f32(x);
}

/* y by plugin.h's formula, the sum rounded to the dtype after each term. */
static void planted_conv_in_half(const bp_sdk_conv *g) {
  const int64_t in_g = g->c_in / g->groups, out_g = g->c_out / g->groups;
  int64_t yi[BP_MAX_RANK] = {0}, xi[BP_MAX_RANK], wi[BP_MAX_RANK], numel = 1, k[BP_WINDOW_MAX_RANK];
  int32_t d;
  for (d = 0; d < g->y->rank; ++d) numel *= g->y->shape[d];
  if (numel == 0) return;
  do {
    const int64_t co = yi[1], first = co / out_g * in_g;
    uint16_t acc = planted_half_round(g->bias ? planted_half_value(g->bias, &yi[1]) : 0.0f, g->y->dtype);
    int64_t c;
    for (c = 0; c < in_g; ++c) {
      memset(k, 0, sizeof k);
      for (;;) {
        int inside = 1;
        int32_t i;
        xi[0] = yi[0], xi[1] = first + c, wi[0] = co, wi[1] = c;
        for (i = 0; i < g->rank; ++i) {
          xi[2 + i] = yi[2 + i] * g->stride[i] - g->pad_begin[i] + k[i] * g->dilation[i];
          wi[2 + i] = k[i];
          inside = inside && xi[2 + i] >= 0 && xi[2 + i] < g->in[i];
        }
        if (inside) {
          const float acc_f = g->y->dtype == BP_FLOAT16 ? bp_f32_from_f16(acc) : bp_f32_from_bf16(acc);
          acc = planted_half_round(acc_f + planted_half_value(g->x, xi) * planted_half_value(g->w, wi), g->y->dtype);
        }
        for (i = g->rank - 1; i >= 0; --i) {
          if (++k[i] < g->kernel[i]) break;
          k[i] = 0;
        }
        if (i < 0) break;
      }
    }
    memcpy(element(g->y, yi), &acc, 2);
  } while (bp_test_next_index(yi, g->y->shape, g->y->rank));
}
#endif

static bp_status planted_conv_execute(int32_t device, int32_t op, const bp_op_attrs *attrs,
                                      const bp_plugin_tensor *in, int32_t n_in, const bp_plugin_tensor *out) {
  bp_op_attrs copy;
  bp_window_params window;
  bp_status s;
#ifdef PLANT_CONV_PADDING_OFF_BY_ONE
  if (planted_window(attrs, &copy, &window) && window.pad_begin[0] > 0) {
    --window.pad_begin[0];
    ++window.pad_end[0];
    return g_real->execute(device, op, &copy, in, n_in, out);
  }
#endif
#ifdef PLANT_CONV_GROUPS_INTERLEAVED
  if (op == BP_OP_CONV && n_in == 3 && in && out && planted_window(attrs, &copy, &window) && window.groups > 1 &&
      in[0].rank >= 3 && in[0].rank == out->rank && in[1].rank == out->rank) {
    const int32_t groups = window.groups;
    const int64_t in_g = in[0].shape[1] / groups, out_g = out->shape[1] / groups;
    int32_t g;
    /* The reference checks the whole call first: a refusal stays one. */
    s = g_real->execute(device, op, attrs, in, n_in, out);
    if (s != BP_OK) return s;
    window.groups = 1;
    for (g = 0; g < groups; ++g) {
      bp_plugin_tensor part[3], y = *out;
      const uint64_t size = (uint64_t)bp_vocab_dtype_size(out->dtype);
      part[0] = in[0], part[1] = in[1], part[2] = in[2];
      part[0].offset += (uint64_t)(g * in[0].strides[1]) * size;
      part[0].strides[1] *= groups;
      part[0].shape[1] = in_g;
      part[1].offset += (uint64_t)(g * out_g * in[1].strides[0]) * size;
      part[1].shape[0] = out_g;
      if (!bp_sdk_absent(&in[2])) {
        part[2].offset += (uint64_t)(g * out_g * in[2].strides[0]) * size;
        part[2].shape[0] = out_g;
      }
      y.offset += (uint64_t)(g * out_g * out->strides[1]) * size;
      y.shape[1] = out_g;
      s = g_real->execute(device, op, &copy, part, n_in, &y);
      if (s != BP_OK) return s;
    }
    return BP_OK;
  }
#endif
  s = g_real->execute(device, op, attrs, in, n_in, out);
#ifdef PLANT_CONV_HALF_IN_HALF
  if (s == BP_OK && op == BP_OP_CONV && (out->dtype == BP_FLOAT16 || out->dtype == BP_BFLOAT16)) {
    bp_sdk_conv g;
    char message[512];
    g_real->synchronize(device);
    if (bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), in, out, &g, message, sizeof message) == BP_OK)
      planted_conv_in_half(&g);
  }
#endif
  (void)copy;
  (void)window;
  return s;
}
