/*
 * reference.h — what the source files of the reference backend share.
 *
 * The reference backend is the simplest plugin that implements every
 * operator of backplane/plugin.h: plain C99, host memory, one device
 * ("reference:0"), every call synchronous, every loop written the naive way.
 * Other backends' tests compare against it, so when speed and obviousness
 * disagree, obviousness wins.
 *
 * Each .c file has one job; this header lists what each one offers, in the
 * order a reader meets them. Nothing here is exported from the .so: the
 * linker version script keeps bp_plugin_get_api as the only public symbol.
 */
#ifndef BP_REFERENCE_H
#define BP_REFERENCE_H

#include <stdint.h>

#include "backplane/plugin.h"
#include "backplane/plugin_sdk.h" /* errors, BP_SDK_FITS, execute() validation */

/* ------------------------------------------------------------------------
 * error.c — the thread-local message behind last_error() (plugin SDK).
 * ---------------------------------------------------------------------- */

/* Declares, from BP_SDK_DEFINE_ERRORS(ref) in error.c:
 *   bp_status ref_fail(bp_status status, const char *format, ...);
 *       records a printf-style message for the calling thread and returns
 *       `status`, so that a failure is one line:
 *       `return ref_fail(BP_ERR_..., "...", ...);`
 *   const char *ref_last_error(void);
 *       the message of the calling thread's last failure (the table's
 *       last_error). */
BP_SDK_DECLARE_ERRORS(ref)

/* ------------------------------------------------------------------------
 * plugin.c — the function table, the entry point and the backend's life.
 * ---------------------------------------------------------------------- */

/* Backend name and device prefix: devices are "reference:<index>". */
#define REF_NAME "reference"

/* BP_OK once init has run; otherwise BP_ERR_STATE naming `entry`. */
bp_status ref_check_initialized(const char *entry);

bp_status ref_init(const char *const *option_keys, const char *const *option_values,
                   int32_t option_count);
bp_status ref_synchronize(int32_t device);

/* ------------------------------------------------------------------------
 * device.c — the single host device: counting, describing, validating.
 * ---------------------------------------------------------------------- */

#define REF_DEVICE_COUNT 1

/* BP_OK when init has run and `device` is one of ours, else a named error. */
bp_status ref_check_device(const char *entry, int32_t device);

/* Bytes of physical memory of the host, 0 when the system will not say. */
uint64_t ref_host_memory_total(void);

bp_status ref_device_count(int32_t *count, const char **why_none);
bp_status ref_device_info(int32_t device, bp_plugin_device_info *info);
bp_status ref_device_properties(int32_t device, bp_property *props, int32_t capacity,
                                int32_t *count);

/* ------------------------------------------------------------------------
 * memory.c — buffers: host memory plus the facts needed to check accesses.
 * ---------------------------------------------------------------------- */

/* The definition behind the ABI's opaque bp_buffer. */
struct bp_buffer_s {
  uint64_t magic;      /* REF_BUFFER_MAGIC while alive; see ref_check_buffer */
  int32_t device;      /* the device index it was allocated on */
  uint64_t size;       /* bytes requested by alloc: every access is checked against it */
  /* Never NULL for alloc's buffers, even of 0 bytes; a wrapped 0-byte
   * buffer keeps the caller's pointer, which may be NULL (no element of it
   * is ever addressed: every view is checked to fit in `size`). */
  unsigned char *data;
  /* Set for wrap_host's borrowed memory, which free() must not free: it
   * calls release(release_context) instead, once (release may be NULL). */
  int borrowed;
  void (*release)(void *context);
  void *release_context;
};

#define REF_BUFFER_MAGIC 0x5245464255463031ull /* "REFBUF01" */

/* BP_OK when `buffer` looks like a live buffer of this plugin; `what` names
 * the argument in the message ("src", "dst", ...). */
bp_status ref_check_buffer(const char *entry, const char *what, bp_buffer buffer);

/* The SDK's bp_sdk_buffer_bytes_fn: 1 and the buffer's size in *bytes when
 * `buffer` is a live buffer of this plugin, else 0 (context is unused). */
int32_t ref_buffer_bytes(void *context, bp_buffer buffer, uint64_t *bytes);

/* Bytes currently held by live buffers (device_info's memory_in_use). */
uint64_t ref_memory_in_use(void);

bp_status ref_alloc(int32_t device, uint64_t bytes, bp_buffer *out);
bp_status ref_free(bp_buffer buffer);
bp_status ref_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes);
bp_status ref_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes);
bp_status ref_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                   uint64_t bytes);
bp_status ref_host_address(bp_buffer buffer, void **address);
/* wrap_host: a buffer over the caller's memory (see plugin.h). */
bp_status ref_wrap_host(int32_t device, void *data, uint64_t bytes, void (*release)(void *context),
                        void *context, bp_buffer *out);

/* ------------------------------------------------------------------------
 * dtype.c — element types: loading, storing and converting. Their names,
 * sizes and kinds come from the vocabulary (bp_vocab_dtype_* in types.h).
 * ---------------------------------------------------------------------- */

/* One element of any dtype, held in its own C type. Which member is live is
 * always known from a dtype travelling beside it. Bool is 0 or 1. float16
 * and bfloat16 are held as their bits (backplane/half.h converts them). */
typedef union ref_value {
  float f32;
  double f64;
  int32_t i32;
  int64_t i64;
  uint8_t b8;
  uint16_t f16;
  uint16_t bf16;
  int8_t i8;
  uint8_t u8;
  int16_t i16;
} ref_value;

int ref_dtype_is_float(int32_t dtype); /* the vocabulary's float kind: float16 to float64 */
/* float16 or bfloat16: computed in float32 and rounded once (plugin.h). */
int ref_dtype_is_half(int32_t dtype);
/* int8, uint8 or int16: computed in int64 and wrapped to their width. */
int ref_dtype_is_small_int(int32_t dtype);

/* Reads/writes one element at any address (no alignment assumed). */
ref_value ref_load(int32_t dtype, const unsigned char *at);
void ref_store(int32_t dtype, unsigned char *at, ref_value value);

/* COPY's conversion (plugin.h): a C cast, except that a bool result is
 * (x != 0), float to integer saturates (NaN gives 0), integer narrowing
 * wraps, and a float16 or bfloat16 result is rounded once from the source
 * value itself (backplane/half.h). */
ref_value ref_convert(ref_value value, int32_t from, int32_t to);

/* A half's value widened (exactly) to float32, and a float32 rounded once
 * to a half, for `dtype` float16 or bfloat16. */
float ref_half_to_f32(ref_value value, int32_t dtype);
ref_value ref_half_from_f32(float x, int32_t dtype);

/* Two's complement wrap-around from the unsigned result of integer
 * arithmetic, without C's implementation-defined unsigned-to-signed cast. */
int32_t ref_wrap_i32(uint32_t bits);
int64_t ref_wrap_i64(uint64_t bits);

/* Shorthands for converting from and to the two widest types. */
ref_value ref_from_f64(double x, int32_t to);
ref_value ref_from_i64(int64_t x, int32_t to);
double ref_to_f64(ref_value value, int32_t from);  /* exact for float dtypes */
int64_t ref_to_i64(ref_value value, int32_t from); /* exact for int and bool dtypes */
float ref_to_f32(ref_value value, int32_t from);   /* COPY to float32 */

/* ------------------------------------------------------------------------
 * index.c — walking every index of a shape in C order.
 * ---------------------------------------------------------------------- */

/* Usage:
 *   ref_walk w;
 *   for (ref_walk_start(&w, rank, shape); !w.done; ref_walk_next(&w))
 *     ... w.index[0..rank-1] ...
 * The last axis moves fastest. A rank-0 shape has one index (the empty one);
 * a shape with a zero extent has none. */
typedef struct ref_walk {
  int32_t rank;
  int64_t shape[BP_MAX_RANK];
  int64_t index[BP_MAX_RANK];
  int64_t position; /* how many indices came before this one: its C-order number */
  int done;         /* set once every index has been visited */
} ref_walk;

void ref_walk_start(ref_walk *walk, int32_t rank, const int64_t *shape);
void ref_walk_next(ref_walk *walk);

/* ------------------------------------------------------------------------
 * tensor.c — reaching the elements of a bp_plugin_tensor.
 * ---------------------------------------------------------------------- */

/* The views kernels get have passed bp_sdk_check_execute: well formed, every
 * element inside its live buffer. */
int64_t ref_numel(const bp_plugin_tensor *tensor);

/* Element access for an index inside a checked view. */
ref_value ref_get(const bp_plugin_tensor *tensor, const int64_t *index);
void ref_set(const bp_plugin_tensor *tensor, const int64_t *index, ref_value value);

/* ------------------------------------------------------------------------
 * supports.c — what this backend implements: every (op, dtype, out_dtype)
 * the ABI defines (bp_vocab_allows). Operator families, arities and names
 * come from the vocabulary too (bp_vocab_op_* in types.h).
 * ---------------------------------------------------------------------- */

bp_status ref_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype,
                       int32_t *answer);

/* ------------------------------------------------------------------------
 * execute.c — checks everything about a call (bp_sdk_check_execute), then
 * hands it to a kernel.
 * ---------------------------------------------------------------------- */

bp_status ref_execute(int32_t device, int32_t op, const bp_op_attrs *attrs,
                      const bp_plugin_tensor *inputs, int32_t n_inputs,
                      const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * fused.c — execute_fused: checks a program completely
 * (bp_sdk_check_fused, then supports() for every instruction), then runs
 * it one element at a time with the per-element functions of execute's
 * elementwise kernels.
 * ---------------------------------------------------------------------- */

bp_status ref_execute_fused(int32_t device, const bp_fused_program *program);

/* The kernels below run only on calls execute has fully checked: valid
 * views inside their buffers, shapes and dtypes as the operator requires. */

/* ------------------------------------------------------------------------
 * element_math.c — the arithmetic of one element, per dtype.
 * ---------------------------------------------------------------------- */

/* ADD..MINIMUM, FLOOR_DIVIDE, REMAINDER, BITWISE_* */
ref_value ref_binary(int32_t op, int32_t dtype, ref_value a, ref_value b);
int ref_compare(int32_t op, int32_t dtype, ref_value a, ref_value b);      /* EQ..GE: 0/1 */
ref_value ref_unary(int32_t op, int32_t dtype, ref_value x);               /* NEG..SIGN; ISNAN, ISINF: bool */

/* ------------------------------------------------------------------------
 * accumulate.c — float sums with (almost) no rounding error.
 * ---------------------------------------------------------------------- */

typedef struct ref_sum {
  double sum;   /* running float64 sum */
  double error; /* what rounding has lost from `sum` so far */
} ref_sum;

void ref_sum_start(ref_sum *s);
void ref_sum_start_with(ref_sum *s, double first); /* a sum whose first term is `first` */
void ref_sum_add(ref_sum *s, double x);
double ref_sum_result(const ref_sum *s);

/* ------------------------------------------------------------------------
 * elementwise.c, reduce.c, matmul.c, creation.c — the operators.
 * ---------------------------------------------------------------------- */

/* Binary and comparison ops; n_inputs is 1 in a scalar mode, else 2. */
void ref_run_binary(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                    const bp_plugin_tensor *output);
void ref_run_where(const bp_plugin_tensor *inputs, const bp_plugin_tensor *output);
void ref_run_unary(int32_t op, const bp_plugin_tensor *input, const bp_plugin_tensor *output);
void ref_run_copy(const bp_plugin_tensor *input, const bp_plugin_tensor *output);

/* Fails (BP_ERR_SHAPE) only for MAX/MIN/ARGMAX/ARGMIN over an empty set.
 * VAR's correction is attrs->scalar. */
bp_status ref_run_reduce(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *input,
                         const bp_plugin_tensor *output);

/* LAYER_NORM and RMS_NORM (normalize.c): output[0] is y, output[1] and
 * output[2] the mean and rstd, either of them possibly absent; inputs 1
 * and 2 (weight, bias) too. eps is attrs->scalar. */
void ref_run_normalize(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                       const bp_plugin_tensor *output);

void ref_run_matmul(const bp_plugin_tensor *a, const bp_plugin_tensor *b,
                    const bp_plugin_tensor *output);

void ref_run_create(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * scan.c, gather.c — running sums along the last axis; rows named by an
 * index (GATHER_ND reads them, SCATTER_ND writes them, SCATTER_ADD_ND adds
 * into them). The gather and scatter families fail (BP_ERR_INDEX) for an
 * index value outside its axis, before any element is written;
 * SCATTER_ADD_ND on floats also fails (BP_ERR_OUT_OF_MEMORY) when its
 * per-element sums cannot be allocated.
 * ---------------------------------------------------------------------- */

void ref_run_scan(const bp_plugin_tensor *input, const bp_plugin_tensor *output);
bp_status ref_run_gather(const bp_plugin_tensor *data, const bp_plugin_tensor *index,
                         const bp_plugin_tensor *output);
bp_status ref_run_scatter(int32_t op, const bp_plugin_tensor *index, const bp_plugin_tensor *values,
                          const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * softmax.c — SOFTMAX and LOG_SOFTMAX along the last axis (since 1.6).
 * ---------------------------------------------------------------------- */

void ref_run_softmax(int32_t op, const bp_plugin_tensor *input, const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * topk.c — TOPK (since 1.6): each row along the last axis sorted by a
 * stable merge sort, its first k values and positions written (outputs[0]
 * and outputs[1]). Fails (BP_ERR_OUT_OF_MEMORY) only when a row's positions
 * cannot be allocated, before anything is written.
 * ---------------------------------------------------------------------- */

bp_status ref_run_topk(const bp_op_attrs *attrs, const bp_plugin_tensor *input, const bp_plugin_tensor *outputs);

/* ------------------------------------------------------------------------
 * attention.c — ATTENTION (since 1.6): softmax(scale q k^T + mask) v per
 * query row, in float64. Fails (BP_ERR_OUT_OF_MEMORY) only when a row's
 * scores cannot be allocated.
 * ---------------------------------------------------------------------- */

bp_status ref_run_attention(const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                            const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * conv.c — CONV, CONV_TRANSPOSE and CONV_WEIGHT_GRAD (since 1.6): the
 * window is attrs->params (backplane/sdk/conv.h reads it).
 * ---------------------------------------------------------------------- */

bp_status ref_run_conv(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                       const bp_plugin_tensor *output);

/* ------------------------------------------------------------------------
 * pool.c — MAX_POOL and AVG_POOL (outputs[0] the pooled values, outputs[1]
 * MAX_POOL's indices or absent) and their gradients over [N, C, spatial...]
 * views, windows as bp_window_params says (since 1.6). The gradients fail
 * with BP_ERR_INDEX for an index outside its plane (before writing) and
 * BP_ERR_OUT_OF_MEMORY when their per-element sums cannot be allocated.
 * ---------------------------------------------------------------------- */

void ref_run_pool(int32_t op, const bp_window_params *window, const bp_plugin_tensor *x,
                  const bp_plugin_tensor *outputs);
bp_status ref_run_pool_grad(int32_t op, const bp_window_params *window, const bp_plugin_tensor *dy,
                            const bp_plugin_tensor *indices, const bp_plugin_tensor *dx);

#endif /* BP_REFERENCE_H */
