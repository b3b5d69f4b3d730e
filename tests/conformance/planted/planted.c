/*
 * planted.c — the reference plugin with one bug planted (PLANT_<bug>): a
 * wrapper that loads the real reference plugin (REFERENCE_PATH), copies its
 * table, and replaces one entry (the collective and fused variants replace
 * or add one, on top of alloc and free that track buffer sizes). Each variant is a case `bp
 * check` once passed and must now fail (tests/conformance/CMakeLists.txt).
 */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backplane/half.h"
#include "backplane/plugin_sdk.h"
#include "host_view_walk.h"

/* The variants with an execute_fused of their own. */
#if defined(PLANT_FUSED_SKIPS_LAST) || defined(PLANT_FUSED_DOUBLE) || defined(PLANT_FUSED_ACCEPTS_OVERLAP) || \
    defined(PLANT_FUSED_DECLINES_LATE)
#define PLANT_FUSED
#endif

static bp_plugin_api g_api;
static const bp_plugin_api *g_real;

/* Address of element idx of a view whose buffer is host memory. */
static unsigned char *element(const bp_plugin_tensor *t, const int64_t *idx) {
  void *base = NULL;
  g_real->host_address(t->buffer, &base);
  return bp_test_element_at(base, t, idx, bp_vocab_dtype_size(t->dtype));
}

#include "planted_moments.h" /* the bugs of VAR, LAYER_NORM and RMS_NORM */

/* Calls f with element idx of `in` and of `out`, for every idx of out's shape. */
static void each_element(const bp_plugin_tensor *in, const bp_plugin_tensor *out,
                         void (*f)(const unsigned char *from, unsigned char *to)) {
  int64_t idx[BP_MAX_RANK] = {0}, numel = 1;
  int32_t d;
  for (d = 0; d < out->rank; ++d) numel *= out->shape[d];
  if (numel == 0) return;
  do {
    f(element(in, idx), element(out, idx));
  } while (bp_test_next_index(idx, out->shape, out->rank));
}

#if defined(PLANT_CONV_PADDING_OFF_BY_ONE) || defined(PLANT_CONV_GROUPS_INTERLEAVED) || defined(PLANT_CONV_HALF_IN_HALF)
#include "planted_conv.h"
#endif

#ifdef PLANT_F16_FLUSHES_SUBNORMALS
/* A subnormal float16 keeps only its sign. */
static void flush_subnormal(const unsigned char *from, unsigned char *to) {
  uint16_t h;
  memcpy(&h, from, 2);
  if ((h & 0x7c00u) == 0) h &= 0x8000u;
  memcpy(to, &h, 2);
}
#endif

#ifdef PLANT_BF16_TRUNCATES
/* float32 to bfloat16 by dropping the low 16 bits; NaN stays the reference's. */
static void truncate_to_bf16(const unsigned char *from, unsigned char *to) {
  uint32_t u;
  memcpy(&u, from, 4);
  if ((u & 0x7fffffffu) <= 0x7f800000u) {
    const uint16_t h = (uint16_t)(u >> 16);
    memcpy(to, &h, 2);
  }
}
#endif

#ifdef PLANT_F64_DOUBLE_ROUNDS
/* float64 to float16 through a float32: two roundings. */
static void round_twice_to_f16(const unsigned char *from, unsigned char *to) {
  double x;
  uint16_t h;
  memcpy(&x, from, 8);
  h = bp_f16_from_f32((float)x);
  memcpy(to, &h, 2);
}
#endif

#ifdef PLANT_CUMSUM_FIRST_AXIS
/* Exchanges axes a and b of a view. */
static void swap_axes(bp_plugin_tensor *t, int32_t a, int32_t b) {
  const int64_t shape = t->shape[a], stride = t->strides[a];
  t->shape[a] = t->shape[b];
  t->strides[a] = t->strides[b];
  t->shape[b] = shape;
  t->strides[b] = stride;
}
#endif

#include "planted_softmax.h"

#if defined(PLANT_TOPK_UNSTABLE_TIES) || defined(PLANT_TOPK_NAN_SMALLEST)
/* Calls f(view, idx, count, extra) with idx the index of each row of a TOPK
 * output of k > 0 elements (idx's last entry 0) and k. */
static void each_topk_row(const bp_plugin_tensor *t, void (*f)(const bp_plugin_tensor *, int64_t *, int64_t, void *),
                          void *extra) {
  int64_t idx[BP_MAX_RANK] = {0}, outer[BP_MAX_RANK] = {0}, rows = 1;
  const int32_t last = t->rank - 1;
  int32_t d;
  for (d = 0; d < t->rank; ++d) rows *= t->shape[d];
  if (rows == 0) return;
  do {
    for (d = 0; d < last; ++d) idx[d] = outer[d];
    idx[last] = 0;
    f(t, idx, t->shape[last], extra);
  } while (bp_test_next_index(outer, t->shape, last));
}
#endif

#ifdef PLANT_TOPK_UNSTABLE_TIES
/* Reverses each run of equal values (the same bits) in a row of the values
 * and, with them, their positions: ties out of position order, as an
 * unstable sort leaves them. */
static void reverse_ties(const bp_plugin_tensor *values, int64_t *idx, int64_t k, void *extra) {
  const bp_plugin_tensor *indices = (const bp_plugin_tensor *)extra;
  const int32_t last = values->rank - 1;
  const size_t size = (size_t)bp_vocab_dtype_size(values->dtype);
  int64_t start = 0, end, a, b;
  while (start < k) {
    unsigned char first[8];
    idx[last] = start;
    memcpy(first, element(values, idx), size);
    for (end = start + 1; end < k; ++end) {
      idx[last] = end;
      if (memcmp(first, element(values, idx), size) != 0) break;
    }
    for (a = start, b = end - 1; a < b; ++a, --b) {
      int64_t pa, pb;
      idx[last] = a;
      memcpy(&pa, element(indices, idx), 8);
      idx[last] = b;
      memcpy(&pb, element(indices, idx), 8);
      memcpy(element(indices, idx), &pa, 8);
      idx[last] = a;
      memcpy(element(indices, idx), &pb, 8);
    }
    start = end;
  }
}
#endif

#ifdef PLANT_TOPK_NAN_SMALLEST
/* The row of a float32 or float64 TOPK sorted again by a stable insertion
 * sort that takes NaN for the smallest value (before -inf), not for the
 * largest as NumPy's sort and plugin.h do. */
typedef struct nan_smallest {
  const bp_plugin_tensor *input, *indices;
  int largest;
} nan_smallest;

/* 1 when a comes strictly before b. */
static int nan_smallest_before(double a, double b, int largest) {
  if (isnan(a) || isnan(b)) return largest ? isnan(b) && !isnan(a) : isnan(a) && !isnan(b);
  return largest ? a > b : a < b;
}

static void resort_nan_smallest(const bp_plugin_tensor *values, int64_t *idx, int64_t k, void *extra) {
  const nan_smallest *c = (const nan_smallest *)extra;
  const int32_t last = values->rank - 1;
  const int64_t n = c->input->shape[last];
  const size_t size = (size_t)bp_vocab_dtype_size(values->dtype);
  int64_t order[4096], i, j;
  if (n > 4096) return;
  for (i = 0; i < n; ++i) {
    double x;
    idx[last] = i;
    x = bp_test_load_float(element(c->input, idx), values->dtype);
    for (j = i; j > 0; --j) {
      double y;
      idx[last] = order[j - 1];
      y = bp_test_load_float(element(c->input, idx), values->dtype);
      if (!nan_smallest_before(x, y, c->largest)) break;
      order[j] = order[j - 1];
    }
    order[j] = i;
  }
  for (j = 0; j < k; ++j) {
    unsigned char v[8];
    idx[last] = order[j];
    memcpy(v, element(c->input, idx), size);
    idx[last] = j;
    memcpy(element(values, idx), v, size);
    memcpy(element(c->indices, idx), &order[j], 8);
  }
}
#endif

#ifdef PLANT_POOL_TIES_LAST
/* MAX_POOL's indices rewritten to the last tap of each window that holds
 * the maximum (bit for bit), where plugin.h says the first. */
static void last_ties(const bp_window_params *w, const bp_plugin_tensor *x, const bp_plugin_tensor *y,
                      const bp_plugin_tensor *indices) {
  const int32_t r = w->spatial_rank;
  const size_t size = (size_t)bp_vocab_dtype_size(x->dtype);
  int64_t o[BP_MAX_RANK] = {0}, numel = 1;
  int32_t d;
  for (d = 0; d < y->rank; ++d) numel *= y->shape[d];
  if (numel == 0) return;
  do {
    int64_t k[BP_WINDOW_MAX_RANK] = {0}, p[BP_MAX_RANK], last = -1;
    const unsigned char *best = element(y, o);
    p[0] = o[0];
    p[1] = o[1];
    for (;;) {
      int inside = 1;
      int64_t flat = 0;
      for (d = 0; d < r; ++d) {
        p[2 + d] = o[2 + d] * w->stride[d] - w->pad_begin[d] + k[d] * w->dilation[d];
        inside = inside && p[2 + d] >= 0 && p[2 + d] < x->shape[2 + d];
        flat = flat * x->shape[2 + d] + p[2 + d];
      }
      if (inside && memcmp(element(x, p), best, size) == 0) last = flat;
      for (d = r - 1; d >= 0 && ++k[d] == w->kernel[d]; --d) k[d] = 0;
      if (d < 0) break;
    }
    if (last >= 0) memcpy(element(indices, o), &last, sizeof last);
  } while (bp_test_next_index(o, y->shape, y->rank));
}
#endif

static bp_status planted_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                                 int32_t n_in, const bp_plugin_tensor *out) {
  bp_status s;
#if defined(PLANT_SOFTMAX_UNSTABLE) || defined(PLANT_LOG_SOFTMAX_OF_SOFTMAX)
  if (planted_softmax_applies(op, in, n_in, out)) return planted_softmax(device, op, attrs, in, out);
#endif
#ifdef PLANT_CONV
  if (bp_vocab_op_family(op) == BP_OP_FAMILY_CONV) return planted_conv_execute(device, op, attrs, in, n_in, out);
#endif
#ifdef PLANT_POOL_COUNT_FLIPPED
  /* AVG_POOL and AVG_POOL_GRAD divide by the other count: the
   * count-include-pad flag flipped. */
  if ((op == BP_OP_AVG_POOL || op == BP_OP_AVG_POOL_GRAD) && bp_sdk_window_params(attrs)) {
    bp_op_attrs flipped = *attrs; /* params fits: the whole 1.6 struct is there */
    bp_window_params w = *bp_sdk_window_params(attrs);
    w.flags ^= BP_WINDOW_COUNT_INCLUDE_PAD;
    flipped.params = &w;
    return g_real->execute(device, op, &flipped, in, n_in, out);
  }
#endif
#ifdef PLANT_EXECUTE_UNKNOWN_INVALID
  if (!bp_vocab_op_name(op)) return BP_ERR_INVALID_ARGUMENT;
#endif
#ifdef PLANT_CUMSUM_FIRST_AXIS
  /* The scan runs along the first axis: axes 0 and last of both views swapped. */
  if (op == BP_OP_CUMSUM && n_in == 1 && in && out && out->rank >= 2 && out->rank <= BP_MAX_RANK &&
      in[0].rank == out->rank) {
    bp_plugin_tensor a = in[0], o = *out;
    swap_axes(&a, 0, a.rank - 1);
    swap_axes(&o, 0, o.rank - 1);
    return g_real->execute(device, op, attrs, &a, 1, &o);
  }
#endif
#ifdef PLANT_HALF_SCALAR_VIA_F32
  /* A float16/bfloat16 scalar operand converted through a float32 rounded
   * on the way: two roundings. */
  if (attrs && in && n_in == 1 && (in[0].dtype == BP_FLOAT16 || in[0].dtype == BP_BFLOAT16)) {
    bp_op_attrs twice;
    const size_t size = attrs->struct_size < sizeof twice ? attrs->struct_size : sizeof twice;
    memset(&twice, 0, sizeof twice);
    memcpy(&twice, attrs, size); /* the kit also passes shorter attrs */
    if (size >= offsetof(bp_op_attrs, scalar) + sizeof twice.scalar && twice.scalar_mode != BP_SCALAR_NONE) {
      twice.scalar = (double)(float)twice.scalar;
      return g_real->execute(device, op, &twice, in, n_in, out);
    }
  }
#endif
#ifdef PLANT_ATTENTION_IGNORES_MASK_COLUMN
  /* ATTENTION reads +0 for the mask's last column, whatever the mask holds
   * there (-inf included): the last key always takes part, unshifted. The
   * mask goes through a dense copy with that column zeroed. */
  if (op == BP_OP_ATTENTION && n_in == 4 && in && out && in[3].dtype != BP_DTYPE_INVALID && in[3].rank >= 2 &&
      in[3].rank <= BP_MAX_RANK) {
    const bp_plugin_tensor *m = &in[3];
    const int32_t r = m->rank;
    const int64_t size = bp_vocab_dtype_size(m->dtype);
    int64_t numel = 1, idx[BP_MAX_RANK] = {0}, pos = 0, stride = 1;
    bp_plugin_tensor masked[4];
    bp_buffer copy;
    void *base = NULL;
    int32_t d;
    for (d = 0; d < r; ++d) numel *= m->shape[d];
    if (numel > 0 && size > 0 && g_real->alloc(device, (uint64_t)(numel * size), &copy) == BP_OK) {
      g_real->host_address(copy, &base);
      memcpy(masked, in, sizeof masked);
      masked[3].buffer = copy;
      masked[3].offset = 0;
      for (d = r - 1; d >= 0; --d) {
        masked[3].strides[d] = stride;
        stride *= m->shape[d];
      }
      do {
        unsigned char *to = (unsigned char *)base + pos * size;
        if (idx[r - 1] == m->shape[r - 1] - 1)
          memset(to, 0, (size_t)size);
        else
          memcpy(to, element(m, idx), (size_t)size);
        ++pos;
      } while (bp_test_next_index(idx, m->shape, r));
      s = g_real->execute(device, op, attrs, masked, n_in, out);
      g_real->free(copy);
      return s;
    }
  }
#endif
  s = g_real->execute(device, op, attrs, in, n_in, out);
#ifdef PLANT_SCATTER_CLEARS
  /* Once the reference has accepted the call: the output zeroed, then
   * scattered into again, so the elements no index row names lose their
   * values. */
  if (s == BP_OK && op == BP_OP_SCATTER_ND) {
    int64_t idx[BP_MAX_RANK] = {0}, numel = 1;
    int32_t d;
    g_real->synchronize(device);
    for (d = 0; d < out->rank; ++d) numel *= out->shape[d];
    if (numel > 0) {
      do {
        memset(element(out, idx), 0, (size_t)bp_vocab_dtype_size(out->dtype));
      } while (bp_test_next_index(idx, out->shape, out->rank));
    }
    s = g_real->execute(device, op, attrs, in, n_in, out);
  }
#endif
#ifdef PLANT_INDEX_UNCHECKED
  /* An index outside its axis said to be fine (the reference wrote nothing). */
  if (s == BP_ERR_INDEX) return BP_OK;
#endif
  if (s != BP_OK || !out) return s;
  g_real->synchronize(device);
#ifdef PLANT_TOPK_UNSTABLE_TIES
  if (op == BP_OP_TOPK) each_topk_row(&out[0], reverse_ties, (void *)&out[1]);
#endif
#ifdef PLANT_TOPK_NAN_SMALLEST
  if (op == BP_OP_TOPK && (in[0].dtype == BP_FLOAT32 || in[0].dtype == BP_FLOAT64)) {
    nan_smallest c;
    c.input = &in[0];
    c.indices = &out[1];
    c.largest = attrs->struct_size >= offsetof(bp_op_attrs, option) + sizeof attrs->option &&
                (attrs->option & BP_OPTION_LARGEST) != 0;
    each_topk_row(&out[0], resort_nan_smallest, &c);
  }
#endif
#ifdef PLANT_MOMENTS
  plant_moments(op, attrs, in, n_in, out);
#endif
#ifdef PLANT_ARGMAX_LAST_NAN
  /* The last NaN of each reduced set instead of the first. */
  if (op == BP_OP_ARGMAX && n_in == 1 && (in[0].dtype == BP_FLOAT32 || in[0].dtype == BP_FLOAT64)) {
    int64_t idx[BP_MAX_RANK] = {0}, oidx[BP_MAX_RANK];
    int32_t d;
    int64_t numel = 1;
    for (d = 0; d < in[0].rank; ++d) numel *= in[0].shape[d];
    if (numel == 0) return s;
    do {
      int64_t pos = 0;
      for (d = 0; d < in[0].rank; ++d) {
        const int reduced = out->shape[d] == 1;
        oidx[d] = reduced ? 0 : idx[d];
        if (reduced) pos = pos * in[0].shape[d] + idx[d];
      }
      if (isnan(bp_test_load_float(element(&in[0], idx), in[0].dtype))) memcpy(element(out, oidx), &pos, 8);
    } while (bp_test_next_index(idx, in[0].shape, in[0].rank));
  }
#endif
#ifdef PLANT_POOL_TIES_LAST
  if (op == BP_OP_MAX_POOL && n_in == 1 && !bp_sdk_absent(&out[1]))
    last_ties(bp_sdk_window_params(attrs), &in[0], &out[0], &out[1]);
#endif
#ifdef PLANT_F16_FLUSHES_SUBNORMALS
  /* A float16 conversion that flushes subnormal results to zero (as a
   * denormals-are-zero mode would): they keep only their sign. */
  if (op == BP_OP_COPY && out->dtype == BP_FLOAT16) each_element(out, out, flush_subnormal);
#endif
#ifdef PLANT_BF16_TRUNCATES
  /* float32 to bfloat16 by dropping the low 16 bits (rounding toward zero)
   * instead of rounding to nearest even. */
  if (op == BP_OP_COPY && n_in == 1 && in[0].dtype == BP_FLOAT32 && out->dtype == BP_BFLOAT16)
    each_element(&in[0], out, truncate_to_bf16);
#endif
#ifdef PLANT_F64_DOUBLE_ROUNDS
  /* float64 to float16 through a float32 rounded on the way: two roundings. */
  if (op == BP_OP_COPY && n_in == 1 && in[0].dtype == BP_FLOAT64 && out->dtype == BP_FLOAT16)
    each_element(&in[0], out, round_twice_to_f16);
#endif
#ifdef PLANT_HALF_SUM_IN_HALF
  /* SUM of float16 or bfloat16 accumulated in the dtype itself, rounded
   * after every term, instead of in float32 and rounded once. */
  if (op == BP_OP_SUM && n_in == 1 && out->dtype == in[0].dtype &&
      (in[0].dtype == BP_FLOAT16 || in[0].dtype == BP_BFLOAT16)) {
    const int f16 = in[0].dtype == BP_FLOAT16;
    int64_t idx[BP_MAX_RANK] = {0}, oidx[BP_MAX_RANK] = {0}, numel = 1, out_numel = 1;
    const uint16_t zero = 0;
    int32_t d;
    for (d = 0; d < in[0].rank; ++d) numel *= in[0].shape[d];
    for (d = 0; d < out->rank; ++d) out_numel *= out->shape[d];
    if (out_numel == 0) return s;
    do {
      memcpy(element(out, oidx), &zero, 2);
    } while (bp_test_next_index(oidx, out->shape, out->rank));
    if (numel == 0) return s;
    do {
      uint16_t acc, x;
      float sum;
      for (d = 0; d < in[0].rank; ++d) oidx[d] = out->shape[d] == 1 ? 0 : idx[d];
      memcpy(&acc, element(out, oidx), 2);
      memcpy(&x, element(&in[0], idx), 2);
      sum = f16 ? bp_f32_from_f16(acc) + bp_f32_from_f16(x) : bp_f32_from_bf16(acc) + bp_f32_from_bf16(x);
      acc = f16 ? bp_f16_from_f32(sum) : bp_bf16_from_f32(sum);
      memcpy(element(out, oidx), &acc, 2);
    } while (bp_test_next_index(idx, in[0].shape, in[0].rank));
  }
#endif
#ifdef PLANT_HALF_MATMUL_IN_HALF
  /* MATMUL of float16 or bfloat16 accumulated in the dtype itself: each
   * product is added to the sum so far and rounded, instead of the sum
   * kept in float32 and rounded once. */
  if (op == BP_OP_MATMUL && n_in == 2 && out->dtype == in[0].dtype && out->rank >= 2 &&
      (in[0].dtype == BP_FLOAT16 || in[0].dtype == BP_BFLOAT16)) {
    const int f16 = in[0].dtype == BP_FLOAT16;
    const int32_t r = out->rank;
    const int64_t k = in[0].shape[r - 1];
    int64_t idx[BP_MAX_RANK] = {0}, aidx[BP_MAX_RANK], bidx[BP_MAX_RANK], numel = 1, p;
    int32_t d;
    for (d = 0; d < r; ++d) numel *= out->shape[d];
    if (numel == 0) return s;
    do {
      uint16_t acc = 0, x, y;
      memcpy(aidx, idx, sizeof aidx);
      memcpy(bidx, idx, sizeof bidx);
      for (p = 0; p < k; ++p) {
        float sum;
        aidx[r - 1] = p;
        bidx[r - 2] = p;
        memcpy(&x, element(&in[0], aidx), 2);
        memcpy(&y, element(&in[1], bidx), 2);
        sum = f16 ? bp_f32_from_f16(acc) + bp_f32_from_f16(x) * bp_f32_from_f16(y)
                  : bp_f32_from_bf16(acc) + bp_f32_from_bf16(x) * bp_f32_from_bf16(y);
        acc = f16 ? bp_f16_from_f32(sum) : bp_bf16_from_f32(sum);
      }
      memcpy(element(out, idx), &acc, 2);
    } while (bp_test_next_index(idx, out->shape, r));
  }
#endif
#ifdef PLANT_ARANGE_IN_DTYPE
  /* ARANGE float32 computed in float32 (start, step, product and sum each
   * rounded) instead of in float64 and rounded once. */
  if (op == BP_OP_ARANGE && out->dtype == BP_FLOAT32 && attrs &&
      attrs->struct_size >= offsetof(bp_op_attrs, scalar2) + sizeof attrs->scalar2) {
    const float start = (float)attrs->scalar, step = (float)attrs->scalar2;
    int64_t idx[BP_MAX_RANK] = {0}, k = 0, numel = 1;
    int32_t d;
    for (d = 0; d < out->rank; ++d) numel *= out->shape[d];
    if (numel == 0) return s;
    do {
      const float product = (float)k++ * step;
      const float f = start + product;
      memcpy(element(out, idx), &f, 4);
    } while (bp_test_next_index(idx, out->shape, out->rank));
  }
#endif
#ifdef PLANT_RANDOM_OFF_BY_ONE_ULP
  /* 42 of every 100 float32 values one ulp up. */
  if (op == BP_OP_RANDOM_UNIFORM && out->dtype == BP_FLOAT32) {
    int64_t idx[BP_MAX_RANK] = {0}, k = 0, numel = 1;
    int32_t d;
    for (d = 0; d < out->rank; ++d) numel *= out->shape[d];
    if (numel == 0) return s;
    do {
      if (k++ % 100 < 42) {
        float f;
        memcpy(&f, element(out, idx), 4);
        f = nextafterf(f, INFINITY);
        memcpy(element(out, idx), &f, 4);
      }
    } while (bp_test_next_index(idx, out->shape, out->rank));
  }
#endif
  return s;
}

#ifdef PLANT_SUPPORTS_ERROR
static bp_status planted_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  if (!bp_vocab_op_name(op)) return BP_ERR_INVALID_ARGUMENT;
  return g_real->supports(device, op, dtype, out_dtype, answer);
}
#endif

#ifdef PLANT_READ_NOTHING
/* Says it read, copies nothing. */
static bp_status planted_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  (void)src;
  (void)offset;
  (void)dst;
  (void)bytes;
  return BP_OK;
}
#endif

#ifdef PLANT_ZERO_ALLOC
/* 0 bytes: a NULL buffer, which free then refuses. */
static bp_status planted_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  if (bytes == 0 && out) {
    *out = NULL;
    return BP_OK;
  }
  return g_real->alloc(device, bytes, out);
}
static bp_status planted_free(bp_buffer b) {
  if (!b) return BP_ERR_INVALID_ARGUMENT;
  return g_real->free(b);
}
#endif

#if defined(PLANT_COLLECTIVE_PAST_END) || defined(PLANT_COLLECTIVE_DECLINES_LATE) || defined(PLANT_FUSED)
/* A collective or execute_fused entry on the reference's one device, where every collective
 * of one participant is a copy of its input's elements to its output. The
 * SDK validates the call, which needs the size of every live buffer: alloc
 * and free keep a table of them. */
#define PLANTED_BUFFERS 4096
static struct {
  bp_buffer buffer;
  uint64_t bytes;
} g_sizes[PLANTED_BUFFERS];

static bp_status sized_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  const bp_status s = g_real->alloc(device, bytes, out);
  int i;
  for (i = 0; s == BP_OK && i < PLANTED_BUFFERS; ++i)
    if (!g_sizes[i].buffer) {
      g_sizes[i].buffer = *out;
      g_sizes[i].bytes = bytes;
      break;
    }
  return s;
}

static bp_status sized_free(bp_buffer b) {
  int i;
  for (i = 0; b && i < PLANTED_BUFFERS; ++i)
    if (g_sizes[i].buffer == b) g_sizes[i].buffer = NULL;
  return g_real->free(b);
}

static int32_t sized_bytes(void *context, bp_buffer b, uint64_t *bytes) {
  int i;
  (void)context;
  for (i = 0; b && i < PLANTED_BUFFERS; ++i)
    if (g_sizes[i].buffer == b) {
      *bytes = g_sizes[i].bytes;
      return 1;
    }
  return 0;
}
#endif

#if defined(PLANT_COLLECTIVE_PAST_END) || defined(PLANT_COLLECTIVE_DECLINES_LATE)
static bp_status planted_collective(const bp_collective_args *a) {
  bp_sdk_collective_info info;
  bp_sdk_check check;
  void *in = NULL, *out = NULL;
  size_t bytes;
  if (bp_sdk_check_collective(a, 0, sized_bytes, NULL, &info, &check) != BP_OK) return check.status;
  if (a->group != 0 || a->devices[0] != 0) return BP_ERR_INVALID_ARGUMENT;
  if (info.numel == 0) return BP_OK;
  g_real->synchronize(0);
  g_real->host_address(a->inputs[0].buffer, &in);
  g_real->host_address(a->outputs[0].buffer, &out);
  bytes = (size_t)info.numel * (size_t)bp_vocab_dtype_size(info.dtype);
#ifdef PLANT_COLLECTIVE_PAST_END
  /* One element more than the output holds. */
  bytes += (size_t)bp_vocab_dtype_size(info.dtype);
#endif
  memmove((unsigned char *)out + a->outputs[0].offset, (unsigned char *)in + a->inputs[0].offset, bytes);
#ifdef PLANT_COLLECTIVE_DECLINES_LATE
  /* Declines after writing: the core would then run it again, staged. */
  return BP_ERR_UNSUPPORTED;
#else
  return BP_OK;
#endif
}
#endif

#ifdef PLANT_FUSED
/* The storage dtype of a value: float32 held in float64 when the bug is
 * to keep intermediates in double precision. */
static int32_t held_as(int32_t dtype) {
#ifdef PLANT_FUSED_DOUBLE
  if (dtype == BP_FLOAT32) return BP_FLOAT64;
#endif
  return dtype;
}

/* A dense temporary of the program's shape on device 0, into temps. */
static bp_status temporary(const bp_fused_program *p, int32_t dtype, bp_buffer *temps, int32_t *n_temps,
                           bp_plugin_tensor *view) {
  int64_t numel = 1;
  int32_t d;
  bp_status s;
  *view = p->outputs[0];
  view->dtype = dtype;
  view->offset = 0;
  for (d = 0; d < view->rank; ++d) numel *= view->shape[d];
  s = g_real->alloc(0, (uint64_t)numel * (uint64_t)bp_vocab_dtype_size(dtype), &view->buffer);
  if (s == BP_OK) temps[(*n_temps)++] = view->buffer;
  return s;
}

/* execute_fused as the core's fallback runs a program (each instruction
 * through execute into a temporary, then each output a COPY of its value),
 * with one bug (PLANT_FUSED_*). What the SDK refuses, and any device but
 * 0, goes to the reference's execute_fused, whose refusal leaves the
 * message last_error gives. */
static bp_status planted_execute_fused(int32_t device, const bp_fused_program *p) {
  bp_sdk_fused_info info;
  bp_sdk_check check;
  bp_plugin_tensor values[BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS];
  bp_buffer temps[BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS];
  int32_t n_temps = 0, i, k, j, n_run;
  bp_status s = bp_sdk_check_fused(p, sized_bytes, NULL, &info, &check);
#ifdef PLANT_FUSED_ACCEPTS_OVERLAP
  /* Overlapping outputs taken for fine. */
  if (s == BP_ERR_INVALID_ARGUMENT && strstr(check.message, "overlaps")) s = BP_OK;
#endif
  if (s != BP_OK || device != 0) return g_real->execute_fused(device, p);
  for (i = 0; s == BP_OK && i < p->n_inputs; ++i) {
    values[i] = p->inputs[i];
    if (held_as(p->inputs[i].dtype) != p->inputs[i].dtype) {
      bp_op_attrs attrs;
      memset(&attrs, 0, sizeof attrs);
      attrs.struct_size = sizeof attrs;
      s = temporary(p, held_as(p->inputs[i].dtype), temps, &n_temps, &values[i]);
      if (s == BP_OK) s = g_real->execute(0, BP_OP_COPY, &attrs, &p->inputs[i], 1, &values[i]);
    }
  }
  n_run = p->n_instrs;
#ifdef PLANT_FUSED_SKIPS_LAST
  n_run = p->n_instrs - 1;
#endif
  for (k = 0; s == BP_OK && k < p->n_instrs; ++k) {
    const bp_fused_instr *in = &p->instrs[k];
    bp_plugin_tensor args[3];
    bp_op_attrs attrs;
    int32_t n_args = 0;
    memset(&attrs, 0, sizeof attrs);
    attrs.struct_size = sizeof attrs;
    attrs.scalar_mode = in->scalar_mode;
    attrs.scalar = in->scalar;
    while (n_args < 3 && in->args[n_args] >= 0) {
      args[n_args] = values[in->args[n_args]];
      ++n_args;
    }
    s = temporary(p, held_as(in->out_dtype), temps, &n_temps, &values[p->n_inputs + k]);
    if (s == BP_OK && k < n_run) s = g_real->execute(0, in->op, &attrs, args, n_args, &values[p->n_inputs + k]);
  }
  for (j = 0; s == BP_OK && j < p->n_outputs; ++j) {
    bp_op_attrs attrs;
    memset(&attrs, 0, sizeof attrs);
    attrs.struct_size = sizeof attrs;
    s = g_real->execute(0, BP_OP_COPY, &attrs, &values[p->output_values[j]], 1, &p->outputs[j]);
  }
  for (i = 0; i < n_temps; ++i) g_real->free(temps[i]);
#ifdef PLANT_FUSED_DECLINES_LATE
  /* Declines after writing: the core would then run it again, op by op. */
  if (s == BP_OK) return BP_ERR_UNSUPPORTED;
#endif
  return s;
}
#endif

#ifdef PLANT_WRAP_RELEASES_EARLY
/* Hands the memory back at once, as if the wrap were a copy. */
static bp_status planted_wrap_host(int32_t device, void *data, uint64_t bytes, void (*release)(void *),
                                   void *context, bp_buffer *out) {
  bp_status s = g_real->wrap_host(device, data, bytes, NULL, NULL, out);
  if (s == BP_OK && release) release(context);
  return s;
}
#endif

#ifdef PLANT_WRAP_RELEASES_TWICE
/* Releases at free like the reference, then once more. One wrapped buffer
 * at a time is all the kit makes. */
static bp_buffer g_wrapped;
static void (*g_release)(void *);
static void *g_context;

static bp_status planted_wrap_host(int32_t device, void *data, uint64_t bytes, void (*release)(void *),
                                   void *context, bp_buffer *out) {
  bp_status s = g_real->wrap_host(device, data, bytes, release, context, out);
  if (s == BP_OK) {
    g_wrapped = *out;
    g_release = release;
    g_context = context;
  }
  return s;
}

static bp_status twice_free(bp_buffer b) {
  bp_status s = g_real->free(b);
  if (s == BP_OK && b == g_wrapped) {
    g_wrapped = NULL;
    if (g_release) g_release(g_context);
  }
  return s;
}
#endif

BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t major, uint32_t minor) {
  if (!g_real) {
    void *lib = dlopen(REFERENCE_PATH, RTLD_NOW | RTLD_LOCAL);
    const bp_plugin_api *(*get)(uint32_t, uint32_t) =
        lib ? (const bp_plugin_api *(*)(uint32_t, uint32_t))dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL) : NULL;
    if (!get || !(g_real = get(major, minor))) return NULL;
    memcpy(&g_api, g_real, sizeof g_api < g_real->struct_size ? sizeof g_api : g_real->struct_size);
    g_api.name = PLANTED_NAME;
    g_api.device_prefix = PLANTED_PREFIX;
    g_api.execute = planted_execute;
#ifdef PLANT_SUPPORTS_ERROR
    g_api.supports = planted_supports;
#endif
#ifdef PLANT_READ_NOTHING
    g_api.read = planted_read;
#endif
#ifdef PLANT_ZERO_ALLOC
    g_api.alloc = planted_alloc;
    g_api.free = planted_free;
#endif
#if defined(PLANT_COLLECTIVE_PAST_END) || defined(PLANT_COLLECTIVE_DECLINES_LATE)
    g_api.alloc = sized_alloc;
    g_api.free = sized_free;
    g_api.collective = planted_collective;
#endif
#ifdef PLANT_FUSED
    g_api.alloc = sized_alloc;
    g_api.free = sized_free;
    g_api.execute_fused = planted_execute_fused;
#endif
#if defined(PLANT_WRAP_RELEASES_EARLY) || defined(PLANT_WRAP_RELEASES_TWICE)
    g_api.wrap_host = planted_wrap_host;
#endif
#ifdef PLANT_WRAP_RELEASES_TWICE
    g_api.free = twice_free;
#endif
  }
  return &g_api;
}
