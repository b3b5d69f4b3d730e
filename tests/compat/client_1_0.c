/*
 * client_1_0.c — a program written against the ABI 1.0 user API, compiled
 * only against the frozen 1.0 headers (tests/compat/abi-1.0/include) and
 * linked with the current libbackplane.so. It must keep working unchanged:
 * every published function, struct layout, value and name of 1.0.
 *
 * Runs on the reference backend (always built), plus cpu:0 where the
 * cpu-openblas backend exists (device mismatch, copies across backends).
 * Exits 1 with a line per failed check.
 */
#include "compat_check.h"

#include <stddef.h>

/* ---- structs written only as far as the caller's struct_size -------------- */

#define GUARD 0xA5

/* Room for any of the 1.0 structs plus a guard area after it. */
typedef union sized_buffer {
  bp_plugin_report report;
  bp_device_info info;
  bp_backend_counters counters;
  uint64_t align;
  unsigned char bytes[256];
} sized_buffer;

/* Guard bytes everywhere, then the first `size` bytes zeroed and struct_size
 * = size (struct_size is the first field of every such struct). */
static void prepare(sized_buffer *b, uint32_t size) {
  memset(b->bytes, GUARD, sizeof b->bytes);
  memset(b->bytes, 0, size);
  memcpy(b->bytes, &size, sizeof size);
}

/* Guard bytes everywhere but struct_size: a failed call must leave them. */
static void prepare_guarded(sized_buffer *b, uint32_t size) {
  memset(b->bytes, GUARD, sizeof b->bytes);
  memcpy(b->bytes, &size, sizeof size);
}

/* -1 when every byte from `from` on still holds the guard, else the first
 * byte that does not. */
static int first_touched(const sized_buffer *b, size_t from) {
  size_t i;
  for (i = from; i < sizeof b->bytes; ++i)
    if (b->bytes[i] != GUARD) return (int)i;
  return -1;
}

#define CHECK_GUARD(buf, size, what)                                                                \
  do {                                                                                            \
    int at_ = first_touched(buf, size);                                                           \
    ++g_checks;                                                                                   \
    if (at_ >= 0) COMPAT_FAIL("%s: byte %d written past struct_size %d", what, at_, (int)(size)); \
  } while (0)

/* End of the last field of each 1.0 struct (the 1.0 headers have no
 * *_SIZE_1_0 macros; 1.1 defines the same numbers). */
#define REPORT_END_1_0 (offsetof(bp_plugin_report, device_count) + sizeof(int32_t))
#define INFO_END_1_0 (offsetof(bp_device_info, memory_in_use) + sizeof(uint64_t))
#define COUNTERS_END_1_0 (offsetof(bp_backend_counters, staged_copies) + sizeof(uint64_t))

static bp_device g_ref = -1; /* reference:0 */
static bp_device g_cpu = -1; /* cpu:0, when cpu-openblas is built */

/* ---- runtime and names ---------------------------------------------------- */

static void test_runtime(void) {
  static const char config[] =
      "[devices]\n"
      "default = \"reference\"\n"
      "fallback = [\"reference\", \"cpu\"]\n"
      "[plugins]\n"
      "disabled = [\"opencl\", \"cuda\"]\n"
      "[backend.cpu-openblas]\n"
      "threads = 1\n";
  uint32_t version = bp_api_version();
  CHECK_INT(version >> 16, 1);          /* same major */
  printf("library API version %u.%u, client built against 1.0\n", version >> 16, version & 0xffffu);

  /* A bad configuration is refused with its source name and leaves the
   * runtime unstarted. */
  CHECK_STATUS(bp_init_from_string("[devices]\nno_such_key = 1\n", "bad-compat.toml"), BP_ERR_CONFIG);
  CHECK_CONTAINS(bp_last_error(), "bad-compat.toml");
  CHECK_INT(bp_last_error_status(), BP_ERR_CONFIG);

  REQUIRE_OK(bp_init_from_string(config, "compat-1.0.toml"));
  CHECK_STATUS(bp_init_from_string(config, "compat-1.0.toml"), BP_ERR_STATE);
  CHECK_STATUS(bp_init(NULL), BP_ERR_STATE);
  CHECK(bp_config_count() > 0);
  {
    const char *key = NULL, *value = NULL, *origin = NULL;
    int32_t i, found = 0;
    for (i = 0; i < bp_config_count(); ++i) {
      CHECK_OK(bp_config_entry(i, &key, &value, &origin));
      if (key && strcmp(key, "devices.default") == 0) {
        found = 1;
        CHECK_STR(value, "\"reference\"");
        CHECK_CONTAINS(origin, "compat-1.0.toml");
      }
    }
    CHECK(found);
    CHECK_STATUS(bp_config_entry(-1, &key, &value, &origin), BP_ERR_INVALID_ARGUMENT);
  }
}

/* Every 1.0 number keeps its 1.0 name: the values published in 1.0 kept
 * their meaning. */
static void test_names(void) {
  static const struct { int32_t value; const char *name; } statuses[] = {
      {BP_OK, "BP_OK"},
      {BP_ERR_INVALID_ARGUMENT, "BP_ERR_INVALID_ARGUMENT"},
      {BP_ERR_INVALID_HANDLE, "BP_ERR_INVALID_HANDLE"},
      {BP_ERR_DEVICE_MISMATCH, "BP_ERR_DEVICE_MISMATCH"},
      {BP_ERR_UNKNOWN_DEVICE, "BP_ERR_UNKNOWN_DEVICE"},
      {BP_ERR_UNSUPPORTED, "BP_ERR_UNSUPPORTED"},
      {BP_ERR_SHAPE, "BP_ERR_SHAPE"},
      {BP_ERR_DTYPE, "BP_ERR_DTYPE"},
      {BP_ERR_OUT_OF_MEMORY, "BP_ERR_OUT_OF_MEMORY"},
      {BP_ERR_CONFIG, "BP_ERR_CONFIG"},
      {BP_ERR_PLUGIN, "BP_ERR_PLUGIN"},
      {BP_ERR_BACKEND, "BP_ERR_BACKEND"},
      {BP_ERR_STATE, "BP_ERR_STATE"},
      {BP_ERR_INTERNAL, "BP_ERR_INTERNAL"},
  };
  static const struct { int32_t value; const char *name; int32_t size; } dtypes[] = {
      {BP_FLOAT32, "float32", 4}, {BP_FLOAT64, "float64", 8}, {BP_INT32, "int32", 4},
      {BP_INT64, "int64", 8},     {BP_BOOL, "bool", 1},
  };
  static const struct { int32_t value; const char *name; } ops[] = {
      {BP_OP_ADD, "add"},   {BP_OP_SUB, "sub"},         {BP_OP_MUL, "mul"},         {BP_OP_DIV, "div"},
      {BP_OP_POW, "pow"},   {BP_OP_MAXIMUM, "maximum"}, {BP_OP_MINIMUM, "minimum"}, {BP_OP_EQ, "eq"},
      {BP_OP_NE, "ne"},     {BP_OP_LT, "lt"},           {BP_OP_LE, "le"},           {BP_OP_GT, "gt"},
      {BP_OP_GE, "ge"},     {BP_OP_WHERE, "where"},     {BP_OP_NEG, "neg"},         {BP_OP_ABS, "abs"},
      {BP_OP_EXP, "exp"},   {BP_OP_LOG, "log"},         {BP_OP_SQRT, "sqrt"},       {BP_OP_TANH, "tanh"},
      {BP_OP_SIGMOID, "sigmoid"}, {BP_OP_RELU, "relu"}, {BP_OP_SUM, "sum"},         {BP_OP_MEAN, "mean"},
      {BP_OP_MAX, "max"},   {BP_OP_MIN, "min"},         {BP_OP_ARGMAX, "argmax"},   {BP_OP_NORM, "norm"},
      {BP_OP_MATMUL, "matmul"}, {BP_OP_COPY, "copy"},   {BP_OP_FILL, "fill"},       {BP_OP_ARANGE, "arange"},
      {BP_OP_RANDOM_UNIFORM, "random_uniform"},         {BP_OP_RANDOM_NORMAL, "random_normal"},
  };
  size_t i;
  /* The numbers themselves, as 1.0 published them. */
  CHECK_INT(BP_ERR_INTERNAL, 13);
  CHECK_INT(BP_BOOL, 5);
  CHECK_INT(BP_OP_WHERE, 14);
  CHECK_INT(BP_OP_RELU, 27);
  CHECK_INT(BP_OP_NORM, 45);
  CHECK_INT(BP_OP_MATMUL, 60);
  CHECK_INT(BP_OP_COPY, 70);
  CHECK_INT(BP_OP_RANDOM_NORMAL, 83);
  CHECK_INT(sizeof(ops) / sizeof(ops[0]), 34);
  for (i = 0; i < sizeof statuses / sizeof statuses[0]; ++i) CHECK_STR(bp_status_name(statuses[i].value), statuses[i].name);
  for (i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i) {
    CHECK_STR(bp_dtype_name(dtypes[i].value), dtypes[i].name);
    CHECK_INT(bp_dtype_size(dtypes[i].value), dtypes[i].size);
  }
  for (i = 0; i < sizeof ops / sizeof ops[0]; ++i) CHECK_STR(bp_op_name(ops[i].value), ops[i].name);
  /* Numbers no version has given out are unknown (later minor versions
   * append operators, so only those far beyond any are tested). */
  CHECK_STR(bp_dtype_name(BP_DTYPE_INVALID), "?");
  CHECK_INT(bp_dtype_size(BP_DTYPE_INVALID), 0);
  CHECK_STR(bp_dtype_name(9999), "?");
  CHECK_STR(bp_op_name(0), "?");
  CHECK_STR(bp_op_name(9999), "?");
  CHECK_STR(bp_op_name(-3), "?");
  CHECK_STR(bp_status_name(-1), "?");
  CHECK_STR(bp_status_name(9999), "?");
}

/* ---- plugins and devices with the 1.0 structs ------------------------------ */

static void test_plugin_reports(void) {
  int32_t n = bp_plugin_report_count(), i, reference_found = 0;
  CHECK(n > 0);
  for (i = 0; i < n; ++i) {
    sized_buffer full, tight;
    /* What a 1.0 program passes: sizeof its struct (trailing padding included). */
    prepare(&full, (uint32_t)sizeof(bp_plugin_report));
    CHECK_OK(bp_plugin_report_get(i, 1, &full.report));
    CHECK_GUARD(&full, sizeof(bp_plugin_report), "bp_plugin_report_get with the 1.0 sizeof");
    CHECK_INT(full.report.struct_size, sizeof(bp_plugin_report));
    CHECK(full.report.path != NULL && strstr(full.report.path, "libbackplane-") != NULL);
    CHECK(full.report.name != NULL && full.report.version != NULL && full.report.reason != NULL);
    CHECK(full.report.loaded == 0 || full.report.loaded == 1);
    /* The 1.0 struct up to the end of its last field, no padding at all. */
    prepare(&tight, (uint32_t)REPORT_END_1_0);
    CHECK_OK(bp_plugin_report_get(i, 1, &tight.report));
    CHECK_GUARD(&tight, REPORT_END_1_0, "bp_plugin_report_get with the 1.0 fields' size");
    CHECK_INT(tight.report.struct_size, REPORT_END_1_0);
    CHECK_INT(tight.report.loaded, full.report.loaded);
    CHECK_INT(tight.report.device_count, full.report.device_count);
    CHECK(tight.report.path == full.report.path || (tight.report.path && strcmp(tight.report.path, full.report.path) == 0));
    if (full.report.loaded && full.report.name && strcmp(full.report.name, "reference") == 0) {
      reference_found = 1;
      CHECK(full.report.device_count >= 1);
      CHECK_STR(full.report.reason, "");
    }
  }
  CHECK(reference_found);
  {
    sized_buffer b;
    prepare_guarded(&b, (uint32_t)sizeof(bp_plugin_report));
    CHECK_STATUS(bp_plugin_report_get(n, 0, &b.report), BP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(bp_plugin_report_get(-1, 0, &b.report), BP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(bp_plugin_report_get(0, 0, NULL), BP_ERR_INVALID_ARGUMENT);
    CHECK_GUARD(&b, 4, "a failed bp_plugin_report_get"); /* written only on success */
  }
}

static void test_devices(void) {
  bp_device ids[32], d = -1;
  int32_t count = -1, i;
  REQUIRE_OK(bp_devices(ids, 32, &count));
  CHECK(count >= 1 && count <= 32);
  {
    int32_t again = -1;
    CHECK_OK(bp_devices(NULL, 0, &again));
    CHECK_INT(again, count);
  }
  REQUIRE_OK(bp_device_get("reference:0", &g_ref));
  CHECK_OK(bp_device_get("reference", &d));
  CHECK_INT(d, g_ref);
  CHECK_STR(bp_device_name(g_ref), "reference:0");
  CHECK_OK(bp_default_device(&d));
  CHECK_INT(d, g_ref);
  if (bp_device_get("cpu:0", &g_cpu) != BP_OK) {
    g_cpu = -1;
    printf("no cpu:0 (cpu-openblas not built): the checks that need two devices are skipped\n");
  } else {
    bp_device c = -1;
    CHECK_OK(bp_cpu(&c));
    CHECK_INT(c, g_cpu);
  }
  for (i = 0; i < count && i < 32; ++i) {
    sized_buffer b;
    const char *name = bp_device_name(ids[i]);
    prepare(&b, (uint32_t)sizeof(bp_device_info));
    CHECK_OK(bp_device_info_get(ids[i], &b.info));
    CHECK_GUARD(&b, sizeof(bp_device_info), "bp_device_info_get with the 1.0 size");
    CHECK_INT(b.info.struct_size, INFO_END_1_0);
    CHECK_INT(sizeof(bp_device_info), INFO_END_1_0);
    CHECK_STR(b.info.name, name ? name : "?");
    CHECK(b.info.kind >= BP_DEVICE_CPU && b.info.kind <= BP_DEVICE_ACCELERATOR);
    CHECK(b.info.backend != NULL && b.info.model != NULL);
    CHECK(b.info.plugin_path != NULL && strstr(b.info.plugin_path, "libbackplane-") != NULL);
    if (ids[i] == g_ref) {
      CHECK_STR(b.info.backend, "reference");
      CHECK_INT(b.info.index, 0);
      CHECK_CONTAINS(b.info.plugin_path, "libbackplane-reference.so");
    }
  }
  {
    sized_buffer b;
    prepare_guarded(&b, (uint32_t)sizeof(bp_device_info));
    CHECK_STATUS(bp_device_info_get(9999, &b.info), BP_ERR_INVALID_HANDLE);
    CHECK_GUARD(&b, 4, "a failed bp_device_info_get");
    CHECK(bp_device_name(9999) == NULL);
    CHECK_INT(bp_last_error_status(), BP_ERR_INVALID_HANDLE);
  }
  CHECK_STATUS(bp_device_get("no-such-backend:0", &d), BP_ERR_UNKNOWN_DEVICE);
  CHECK_STATUS(bp_device_get("reference:7", &d), BP_ERR_UNKNOWN_DEVICE);
  CHECK_INT(d, g_ref); /* untouched by the failures */
  {
    bp_property props[64];
    int32_t n = -1;
    CHECK_OK(bp_device_properties(g_ref, props, 64, &n));
    CHECK(n >= 0 && n <= 64);
  }
  CHECK(bp_num_gpus() >= 0);
  {
    bp_device t = -1;
    CHECK_OK(bp_try_gpu(0, &t));
    CHECK(t >= 0);
  }
  CHECK_OK(bp_synchronize(g_ref));
}

/* ---- tensors ---------------------------------------------------------------- */

static const int64_t k23[2] = {2, 3};
static const float kA[6] = {1, 2, 3, 4, 5, 6};
static const float kB[6] = {10, 20, 30, 40, 50, 60};

static bp_tensor upload(bp_device dev, int32_t rank, const int64_t *shape, const float *data) {
  bp_tensor t = BP_NO_TENSOR;
  REQUIRE_OK(bp_from_host(dev, BP_FLOAT32, rank, shape, data, &t));
  return t;
}

static void release(bp_tensor t) { CHECK_OK(bp_tensor_release(t)); }

/* A call that makes the tensor `out`: required to succeed, then its float32
 * values checked and `out` released. (A call with a macro in it is written
 * out instead, so that REQUIRE_OK's message shows the macro's name.) */
#define CHECK_OP_F32(call, what, out, ...) \
  do {                                     \
    REQUIRE_OK(call);                      \
    CHECK_F32(what, out, __VA_ARGS__);     \
    release(out);                          \
  } while (0)

static void test_creation_and_metadata(void) {
  bp_tensor t = BP_NO_TENSOR;
  int64_t shape[BP_MAX_RANK], strides[BP_MAX_RANK], numel = 0;
  int32_t rank = -1, dtype = 0, contiguous = -1;
  bp_device dev = -1;
  int64_t live = bp_live_tensor_count();

  REQUIRE_OK(bp_zeros(g_ref, BP_FLOAT32, 2, k23, &t));
  CHECK_F32("zeros", t, 0, 0, 0, 0, 0, 0);
  CHECK_OK(bp_tensor_rank(t, &rank));
  CHECK_INT(rank, 2);
  CHECK_OK(bp_tensor_shape(t, shape));
  CHECK(shape[0] == 2 && shape[1] == 3);
  CHECK_OK(bp_tensor_strides(t, strides));
  CHECK(strides[0] == 3 && strides[1] == 1);
  CHECK_OK(bp_tensor_numel(t, &numel));
  CHECK_INT(numel, 6);
  CHECK_OK(bp_tensor_dtype(t, &dtype));
  CHECK_INT(dtype, BP_FLOAT32);
  CHECK_OK(bp_tensor_device(t, &dev));
  CHECK_INT(dev, g_ref);
  CHECK_OK(bp_tensor_is_contiguous(t, &contiguous));
  CHECK_INT(contiguous, 1);
  CHECK_INT(bp_live_tensor_count(), live + 1);
  /* bp_from_host_into: the allocation-free upload */
  CHECK_OK(bp_from_host_into(t, kA, sizeof kA));
  CHECK_F32("from_host_into", t, 1, 2, 3, 4, 5, 6);
  CHECK_STATUS(bp_from_host_into(t, kA, 5), BP_ERR_INVALID_ARGUMENT);
  {
    void *address = NULL;
    CHECK_OK(bp_tensor_wait(t));
    CHECK_OK(bp_tensor_host_address(t, &address));
    CHECK(address != NULL && ((const float *)address)[5] == 6.0f);
  }
  /* retain / release: the handle lives until its last reference */
  CHECK_OK(bp_tensor_retain(t));
  release(t);
  CHECK_OK(bp_tensor_rank(t, &rank));
  release(t);
  CHECK_INT(bp_live_tensor_count(), live);

  CHECK_OP_F32(bp_ones(g_ref, BP_FLOAT32, 2, k23, &t), "ones", t, 1, 1, 1, 1, 1, 1);
  CHECK_OP_F32(bp_full(g_ref, BP_FLOAT32, 2, k23, 2.5, &t), "full", t, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f);
  CHECK_OP_F32(bp_arange(g_ref, BP_FLOAT32, 1, 3, 0.5, &t), "arange", t, 1, 1.5f, 2, 2.5f);
  REQUIRE_OK(bp_empty(g_ref, BP_FLOAT32, 0, NULL, &t));
  CHECK_OK(bp_tensor_numel(t, &numel));
  CHECK_INT(numel, 1);
  release(t);
  {
    /* int64 and bool round trips */
    const int64_t i64[3] = {-5, 0, (int64_t)1 << 40};
    const unsigned char flags[3] = {1, 0, 1};
    int64_t back64[3] = {0, 0, 0};
    unsigned char backb[3] = {9, 9, 9};
    const int64_t s3 = 3;
    REQUIRE_OK(bp_from_host(g_ref, BP_INT64, 1, &s3, i64, &t));
    CHECK_OK(bp_to_host(t, back64, sizeof back64));
    CHECK(memcmp(back64, i64, sizeof i64) == 0);
    release(t);
    REQUIRE_OK(bp_from_host(g_ref, BP_BOOL, 1, &s3, flags, &t));
    CHECK_OK(bp_to_host(t, backb, sizeof backb));
    CHECK(memcmp(backb, flags, sizeof flags) == 0);
    release(t);
  }
  {
    /* the same seed gives the same stream; values inside [low, high) */
    bp_tensor r1 = BP_NO_TENSOR, r2 = BP_NO_TENSOR;
    float v1[16], v2[16];
    const int64_t s16 = 16;
    int i, inside = 1;
    REQUIRE_OK(bp_random_uniform(g_ref, BP_FLOAT32, 1, &s16, -1.0, 1.0, 42, &r1));
    REQUIRE_OK(bp_random_uniform(g_ref, BP_FLOAT32, 1, &s16, -1.0, 1.0, 42, &r2));
    CHECK_OK(bp_to_host(r1, v1, sizeof v1));
    CHECK_OK(bp_to_host(r2, v2, sizeof v2));
    CHECK(memcmp(v1, v2, sizeof v1) == 0);
    for (i = 0; i < 16; ++i) inside = inside && v1[i] >= -1.0f && v1[i] < 1.0f;
    CHECK(inside);
    release(r1);
    release(r2);
    REQUIRE_OK(bp_random_normal(g_ref, BP_FLOAT64, 1, &s16, 0.0, 1.0, 7, &r1));
    release(r1);
    CHECK_STATUS(bp_random_uniform(g_ref, BP_INT32, 1, &s16, 0, 1, 1, &r1), BP_ERR_DTYPE);
  }
  CHECK_INT(bp_live_tensor_count(), live);
}

static void test_operators(void) {
  bp_tensor a = upload(g_ref, 2, k23, kA), b = upload(g_ref, 2, k23, kB), c = BP_NO_TENSOR, out = BP_NO_TENSOR;
  int32_t dtype = 0, rank = -1;
  int64_t shape[BP_MAX_RANK];

  /* binary, with the inline convenience forms of 1.0 */
  CHECK_OP_F32(bp_add(a, b, &c), "add", c, 11, 22, 33, 44, 55, 66);
  CHECK_OP_F32(bp_sub(b, a, &c), "sub", c, 9, 18, 27, 36, 45, 54);
  CHECK_OP_F32(bp_mul(a, b, &c), "mul", c, 10, 40, 90, 160, 250, 360);
  CHECK_OP_F32(bp_div(b, a, &c), "div", c, 10, 10, 10, 10, 10, 10);
  CHECK_OP_F32(bp_binary(BP_OP_POW, a, a, &c), "pow", c, 1, 4, 27, 256, 3125, 46656);
  CHECK_OP_F32(bp_binary(BP_OP_MINIMUM, a, b, &c), "minimum", c, 1, 2, 3, 4, 5, 6);
  {
    /* broadcasting a row */
    const int64_t s3 = 3;
    const float row[3] = {100, 200, 300};
    bp_tensor r = upload(g_ref, 1, &s3, row);
    CHECK_OP_F32(bp_binary(BP_OP_MAXIMUM, a, r, &c), "maximum broadcast", c, 100, 200, 300, 100, 200, 300);
    CHECK_OP_F32(bp_add(a, r, &c), "add broadcast", c, 101, 202, 303, 104, 205, 306);
    release(r);
  }
  /* comparisons give bool */
  REQUIRE_OK(bp_binary(BP_OP_GE, a, b, &c));
  CHECK_OK(bp_tensor_dtype(c, &dtype));
  CHECK_INT(dtype, BP_BOOL);
  {
    unsigned char v[6];
    CHECK_OK(bp_to_host(c, v, 6));
    CHECK(v[0] == 0 && v[5] == 0);
  }
  release(c);

  /* scalar operands, on either side */
  CHECK_OP_F32(bp_binary_scalar(BP_OP_MUL, a, 2.0, 0, &c), "mul scalar", c, 2, 4, 6, 8, 10, 12);
  CHECK_OP_F32(bp_binary_scalar(BP_OP_SUB, a, 10.0, 1, &c), "scalar - a", c, 9, 8, 7, 6, 5, 4);

  /* unary */
  REQUIRE_OK(bp_unary(BP_OP_NEG, a, &c));
  CHECK_F32("neg", c, -1, -2, -3, -4, -5, -6);
  CHECK_OP_F32(bp_unary(BP_OP_ABS, c, &out), "abs", out, 1, 2, 3, 4, 5, 6);
  CHECK_OP_F32(bp_unary(BP_OP_RELU, c, &out), "relu", out, 0, 0, 0, 0, 0, 0);
  release(c);
  REQUIRE_OK(bp_mul(a, a, &c));
  CHECK_OP_F32(bp_unary(BP_OP_SQRT, c, &out), "sqrt", out, 1, 2, 3, 4, 5, 6);
  release(c);
  REQUIRE_OK(bp_zeros(g_ref, BP_FLOAT32, 2, k23, &c));
  CHECK_OP_F32(bp_exp(c, &out), "exp", out, 1, 1, 1, 1, 1, 1);
  CHECK_OP_F32(bp_unary(BP_OP_SIGMOID, c, &out), "sigmoid", out, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f);
  release(c);

  /* reductions */
  REQUIRE_OK(bp_sum(a, &c));
  CHECK_F32("sum", c, 21);
  CHECK_OK(bp_tensor_rank(c, &rank));
  CHECK_INT(rank, 0);
  release(c);
  CHECK_OP_F32(bp_reduce(BP_OP_SUM, a, 1, 0, &c), "sum axis 1", c, 6, 15);
  REQUIRE_OK(bp_reduce(BP_OP_MEAN, a, BP_AXIS_ALL, 0, &c)); /* REQUIRE_OK names BP_AXIS_ALL */
  CHECK_F32("mean", c, 3.5f);
  release(c);
  REQUIRE_OK(bp_reduce(BP_OP_MAX, a, 0, 1, &c));
  CHECK_OK(bp_tensor_shape(c, shape));
  CHECK(shape[0] == 1 && shape[1] == 3);
  CHECK_F32("max axis 0 keepdims", c, 4, 5, 6);
  release(c);
  CHECK_OP_F32(bp_reduce(BP_OP_MIN, a, -1, 0, &c), "min axis -1", c, 1, 4);
  REQUIRE_OK(bp_reduce(BP_OP_ARGMAX, a, 1, 0, &c));
  CHECK_OK(bp_tensor_dtype(c, &dtype));
  CHECK_INT(dtype, BP_INT64);
  {
    int64_t idx[2] = {-1, -1};
    CHECK_OK(bp_to_host(c, idx, sizeof idx));
    CHECK(idx[0] == 2 && idx[1] == 2);
  }
  release(c);
  REQUIRE_OK(bp_norm(a, &c));
  CHECK_F32("norm", c, 9.539392014f); /* sqrt(91) */
  release(c);

  /* matmul */
  {
    const int64_t k32[2] = {3, 2};
    const float m[6] = {7, 8, 9, 10, 11, 12};
    bp_tensor mt = upload(g_ref, 2, k32, m);
    REQUIRE_OK(bp_matmul(a, mt, 0, 0, &c));
    CHECK_OK(bp_tensor_shape(c, shape));
    CHECK(shape[0] == 2 && shape[1] == 2);
    CHECK_F32("matmul", c, 58, 64, 139, 154);
    release(c);
    REQUIRE_OK(bp_matmul(a, a, 0, 1, &c)); /* a @ a.T */
    CHECK_F32("matmul transpose_b", c, 14, 32, 32, 77);
    release(c);
    CHECK_STATUS(bp_matmul(a, a, 0, 0, &c), BP_ERR_SHAPE);
    release(mt);
  }

  /* where */
  {
    bp_tensor cond = BP_NO_TENSOR;
    REQUIRE_OK(bp_binary_scalar(BP_OP_GT, a, 3.0, 0, &cond));
    CHECK_OP_F32(bp_where(cond, a, b, &c), "where", c, 10, 20, 30, 4, 5, 6);
    CHECK_STATUS(bp_where(a, a, b, &c), BP_ERR_DTYPE); /* the condition is not bool */
    release(cond);
  }

  /* cast and dtype rules */
  {
    const int64_t s4 = 4;
    const float f[4] = {1.75f, -2.25f, 0.0f, 3.0f};
    int32_t i32[4] = {0, 0, 0, 0};
    double f64[4] = {0, 0, 0, 0};
    unsigned char bools[4] = {9, 9, 9, 9};
    bp_tensor t = upload(g_ref, 1, &s4, f), ti = BP_NO_TENSOR, tb = BP_NO_TENSOR;
    REQUIRE_OK(bp_cast(t, BP_INT32, &ti));
    CHECK_OK(bp_to_host(ti, i32, sizeof i32));
    CHECK(i32[0] == 1 && i32[1] == -2 && i32[2] == 0 && i32[3] == 3);
    REQUIRE_OK(bp_cast(ti, BP_FLOAT64, &c));
    CHECK_OK(bp_to_host(c, f64, sizeof f64));
    CHECK(f64[0] == 1.0 && f64[1] == -2.0 && f64[3] == 3.0);
    release(c);
    REQUIRE_OK(bp_cast(t, BP_BOOL, &tb));
    CHECK_OK(bp_to_host(tb, bools, sizeof bools));
    CHECK(bools[0] == 1 && bools[1] == 1 && bools[2] == 0 && bools[3] == 1);
    release(tb);
    /* int32 + float32 promotes to float32; int32 / int32 computes in float64 */
    REQUIRE_OK(bp_add(ti, t, &c));
    CHECK_OK(bp_tensor_dtype(c, &dtype));
    CHECK_INT(dtype, BP_FLOAT32);
    CHECK_F32("int32 + float32", c, 2.75f, -4.25f, 0, 6);
    release(c);
    REQUIRE_OK(bp_div(ti, ti, &c));
    CHECK_OK(bp_tensor_dtype(c, &dtype));
    CHECK_INT(dtype, BP_FLOAT64);
    release(c);
    REQUIRE_OK(bp_sum(ti, &c));
    CHECK_OK(bp_tensor_dtype(c, &dtype));
    CHECK_INT(dtype, BP_INT64);
    {
      int64_t s = 0;
      CHECK_OK(bp_to_host(c, &s, sizeof s));
      CHECK_INT(s, 2);
    }
    release(c);
    CHECK_STATUS(bp_cast(t, 99, &c), BP_ERR_DTYPE);
    release(ti);
    release(t);
  }

  /* the _out forms write into an existing tensor */
  REQUIRE_OK(bp_empty(g_ref, BP_FLOAT32, 2, k23, &out));
  CHECK_OK(bp_add_out(a, b, out));
  CHECK_F32("add_out", out, 11, 22, 33, 44, 55, 66);
  CHECK_OK(bp_mul_out(out, a, out)); /* in place */
  CHECK_F32("mul_out in place", out, 11, 44, 99, 176, 275, 396);
  CHECK_OK(bp_binary_scalar_out(BP_OP_ADD, a, 0.5, 0, out));
  CHECK_F32("binary_scalar_out", out, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f);
  CHECK_OK(bp_unary_out(BP_OP_NEG, a, out));
  CHECK_F32("unary_out", out, -1, -2, -3, -4, -5, -6);
  CHECK_OK(bp_assign(out, a));
  CHECK_F32("assign", out, 1, 2, 3, 4, 5, 6);
  {
    bp_tensor cond = BP_NO_TENSOR;
    REQUIRE_OK(bp_binary_scalar(BP_OP_LT, a, 2.5, 0, &cond));
    CHECK_OK(bp_where_out(cond, b, a, out));
    CHECK_F32("where_out", out, 10, 20, 3, 4, 5, 6);
    release(cond);
  }
  {
    bp_tensor s = BP_NO_TENSOR, m = BP_NO_TENSOR;
    const int64_t k22[2] = {2, 2};
    REQUIRE_OK(bp_empty(g_ref, BP_FLOAT32, 0, NULL, &s));
    CHECK_OK(bp_reduce_out(BP_OP_SUM, a, BP_AXIS_ALL, 0, s));
    CHECK_F32("reduce_out", s, 21);
    CHECK_OK(bp_norm_out(a, s));
    CHECK_F32("norm_out", s, 9.539392014f);
    REQUIRE_OK(bp_empty(g_ref, BP_FLOAT32, 2, k22, &m));
    CHECK_OK(bp_matmul_out(a, b, 0, 1, m));
    CHECK_F32("matmul_out", m, 140, 320, 320, 770);
    /* a wrong output shape is refused */
    CHECK_STATUS(bp_add_out(a, b, m), BP_ERR_SHAPE);
    release(m);
    release(s);
  }
  release(out);
  release(a);
  release(b);
}

static void test_views(void) {
  bp_tensor a = upload(g_ref, 2, k23, kA), v = BP_NO_TENSOR, w = BP_NO_TENSOR;
  int64_t shape[BP_MAX_RANK], strides[BP_MAX_RANK];
  int32_t contiguous = -1;

  REQUIRE_OK(bp_transpose(a, &v));
  CHECK_OK(bp_tensor_shape(v, shape));
  CHECK(shape[0] == 3 && shape[1] == 2);
  CHECK_OK(bp_tensor_strides(v, strides));
  CHECK(strides[0] == 1 && strides[1] == 3);
  CHECK_OK(bp_tensor_is_contiguous(v, &contiguous));
  CHECK_INT(contiguous, 0);
  CHECK_F32("transpose", v, 1, 4, 2, 5, 3, 6);
  REQUIRE_OK(bp_add(v, v, &w)); /* an operator on a strided view */
  CHECK_F32("add of transposed views", w, 2, 8, 4, 10, 6, 12);
  release(w);
  REQUIRE_OK(bp_contiguous(v, &w));
  CHECK_OK(bp_tensor_is_contiguous(w, &contiguous));
  CHECK_INT(contiguous, 1);
  CHECK_F32("contiguous", w, 1, 4, 2, 5, 3, 6);
  release(w);
  release(v);
  {
    const int32_t axes[2] = {1, 0};
    CHECK_OP_F32(bp_permute(a, axes, &v), "permute", v, 1, 4, 2, 5, 3, 6);
  }
  {
    const int64_t k32[2] = {3, 2}, flat = -1;
    REQUIRE_OK(bp_reshape(a, 2, k32, &v));
    CHECK_OK(bp_tensor_shape(v, shape));
    CHECK(shape[0] == 3 && shape[1] == 2);
    CHECK_F32("reshape", v, 1, 2, 3, 4, 5, 6);
    release(v);
    REQUIRE_OK(bp_reshape(a, 1, &flat, &v));
    CHECK_OK(bp_tensor_shape(v, shape));
    CHECK_INT(shape[0], 6);
    release(v);
    {
      const int64_t bad[2] = {4, 2};
      CHECK_STATUS(bp_reshape(a, 2, bad, &v), BP_ERR_SHAPE);
    }
  }
  CHECK_OP_F32(bp_slice(a, 1, 1, 3, 1, &v), "slice", v, 2, 3, 5, 6);
  CHECK_OP_F32(bp_slice(a, 1, 0, 3, 2, &v), "slice step 2", v, 1, 3, 4, 6);
  CHECK_OP_F32(bp_slice(a, 1, -1, 100, 1, &v), "slice from -1, clamped", v, 3, 6);
  REQUIRE_OK(bp_select(a, 0, 1, &v));
  CHECK_F32("select", v, 4, 5, 6);
  /* a view shares its base's storage: writing through it changes the base */
  {
    bp_tensor nine = BP_NO_TENSOR;
    REQUIRE_OK(bp_full(g_ref, BP_FLOAT32, 0, NULL, 9.0, &nine));
    CHECK_OK(bp_assign(v, nine)); /* a[1] = 9, broadcast */
    release(nine);
  }
  release(v);
  CHECK_F32("base after assign into a view", a, 1, 2, 3, 9, 9, 9);
  REQUIRE_OK(bp_slice(a, 0, 0, 1, 1, &v));
  {
    const float row[3] = {-1, -2, -3};
    CHECK_OK(bp_from_host_into(v, row, sizeof row));
  }
  release(v);
  CHECK_F32("base after from_host_into a view", a, -1, -2, -3, 9, 9, 9);
  CHECK_STATUS(bp_select(a, 0, 2, &v), BP_ERR_SHAPE);
  CHECK_STATUS(bp_slice(a, 5, 0, 1, 1, &v), BP_ERR_SHAPE);
  release(a);
}

static void test_copies(void) {
  bp_tensor a = upload(g_ref, 2, k23, kA), c = BP_NO_TENSOR, d = BP_NO_TENSOR;
  bp_device dev = -1;
  REQUIRE_OK(bp_copy_to(a, g_ref, &c));
  CHECK(c != a);
  CHECK_F32("copy_to the same device", c, 1, 2, 3, 4, 5, 6);
  CHECK_OK(bp_binary_scalar_out(BP_OP_MUL, c, 0.0, 0, c));
  CHECK_F32("a copy is independent", a, 1, 2, 3, 4, 5, 6);
  release(c);
  REQUIRE_OK(bp_to(a, g_ref, &c));
  CHECK(c == a); /* the same handle, a new reference */
  release(c);
  CHECK_F32("still alive after releasing bp_to's reference", a, 1, 2, 3, 4, 5, 6);
  if (g_cpu >= 0) {
    REQUIRE_OK(bp_copy_to(a, g_cpu, &c));
    CHECK_OK(bp_tensor_device(c, &dev));
    CHECK_INT(dev, g_cpu);
    CHECK_F32("copy_to cpu:0", c, 1, 2, 3, 4, 5, 6);
    REQUIRE_OK(bp_to(c, g_ref, &d));
    CHECK(d != c);
    CHECK_OK(bp_tensor_device(d, &dev));
    CHECK_INT(dev, g_ref);
    CHECK_F32("back to reference:0", d, 1, 2, 3, 4, 5, 6);
    release(d);

    /* Device mismatch: an error naming the operator and both devices, never
     * a silent copy; out is not written. */
    d = (bp_tensor)12345;
    CHECK_STATUS(bp_add(a, c, &d), BP_ERR_DEVICE_MISMATCH);
    CHECK_INT(d, 12345);
    CHECK_INT(bp_last_error_status(), BP_ERR_DEVICE_MISMATCH);
    CHECK_STR(bp_last_error_op(), "add");
    CHECK_INT(bp_last_error_device_count(), 2);
    CHECK_INT(bp_last_error_device(0), g_ref);
    CHECK_INT(bp_last_error_device(1), g_cpu);
    CHECK_CONTAINS(bp_last_error(), "cpu:0");
    CHECK_CONTAINS(bp_last_error(), "reference:0");
    CHECK_STATUS(bp_matmul(a, c, 0, 1, &d), BP_ERR_DEVICE_MISMATCH);
    CHECK_STR(bp_last_error_op(), "matmul");
    release(c);
  }
  release(a);
}

static void test_errors(void) {
  bp_tensor a = upload(g_ref, 2, k23, kA), gone = upload(g_ref, 2, k23, kA), out = (bp_tensor)777;
  const bp_tensor invented = (bp_tensor)0x0000123400000042ull;
  int32_t rank = -1;
  release(gone);
  CHECK_STATUS(bp_tensor_release(BP_NO_TENSOR), BP_ERR_INVALID_HANDLE);
  CHECK_STATUS(bp_tensor_release(gone), BP_ERR_INVALID_HANDLE);
  CHECK_STATUS(bp_tensor_release(invented), BP_ERR_INVALID_HANDLE);
  CHECK_STATUS(bp_tensor_rank(gone, &rank), BP_ERR_INVALID_HANDLE);
  CHECK_INT(rank, -1);
  CHECK_STATUS(bp_add(a, gone, &out), BP_ERR_INVALID_HANDLE);
  CHECK_STATUS(bp_add(invented, a, &out), BP_ERR_INVALID_HANDLE);
  CHECK_INT(out, 777);
  CHECK_INT(bp_last_error_status(), BP_ERR_INVALID_HANDLE);
  CHECK(bp_last_error()[0] != '\0');
  /* bad enum values are errors, never undefined behaviour */
  CHECK_STATUS(bp_binary(9999, a, a, &out), BP_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(bp_binary(BP_OP_EXP, a, a, &out), BP_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(bp_unary(BP_OP_ADD, a, &out), BP_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(bp_reduce(BP_OP_MATMUL, a, 0, 0, &out), BP_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(bp_empty(g_ref, 42, 2, k23, &out), BP_ERR_DTYPE);
  CHECK_INT(out, 777);
  /* shapes */
  {
    const int64_t k22[2] = {2, 2};
    bp_tensor s = BP_NO_TENSOR;
    REQUIRE_OK(bp_zeros(g_ref, BP_FLOAT32, 2, k22, &s));
    CHECK_STATUS(bp_add(a, s, &out), BP_ERR_SHAPE);
    CHECK_STR(bp_last_error_op(), "add");
    release(s);
  }
  CHECK_STATUS(bp_reduce(BP_OP_SUM, a, 5, 0, &out), BP_ERR_SHAPE);
  {
    const int64_t too_deep[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(bp_zeros(g_ref, BP_FLOAT32, BP_MAX_RANK + 1, too_deep, &out), BP_ERR_SHAPE);
  }
  /* NULL out-pointers and wrong sizes */
  CHECK_STATUS(bp_add(a, a, NULL), BP_ERR_INVALID_ARGUMENT);
  {
    float small[2];
    CHECK_STATUS(bp_to_host(a, small, sizeof small), BP_ERR_INVALID_ARGUMENT);
  }
  CHECK_STATUS(bp_zeros(9999, BP_FLOAT32, 2, k23, &out), BP_ERR_INVALID_HANDLE);
  CHECK_INT(out, 777);
  release(a);
}

static void test_trace_and_counters(void) {
  sized_buffer before, after;
  bp_tensor a = upload(g_ref, 2, k23, kA), c = BP_NO_TENSOR;
  char line[512];
  prepare(&before, (uint32_t)sizeof(bp_backend_counters));
  CHECK_OK(bp_backend_counters_get("reference", &before.counters));
  CHECK_GUARD(&before, sizeof(bp_backend_counters), "bp_backend_counters_get with the 1.0 size");
  CHECK_INT(sizeof(bp_backend_counters), COUNTERS_END_1_0);
  CHECK(before.counters.ops > 0);
  CHECK(before.counters.allocations > 0);
  CHECK(before.counters.bytes_host_to_device > 0);
  CHECK(before.counters.bytes_device_to_host > 0);

  CHECK_OK(bp_trace_clear());
  CHECK_OK(bp_trace_enable(1));
  REQUIRE_OK(bp_add(a, a, &c));
  CHECK_OK(bp_tensor_wait(c));
  CHECK(bp_trace_count() >= 1);
  CHECK_OK(bp_trace_line(bp_trace_count() - 1, line, (int32_t)sizeof line));
  CHECK_CONTAINS(line, "add");
  CHECK_OK(bp_trace_enable(0));
  CHECK_OK(bp_trace_clear());
  CHECK_INT(bp_trace_count(), 0);

  prepare(&after, (uint32_t)sizeof(bp_backend_counters));
  CHECK_OK(bp_backend_counters_get("reference", &after.counters));
  CHECK_GUARD(&after, sizeof(bp_backend_counters), "bp_backend_counters_get with the 1.0 size");
  CHECK(after.counters.ops >= before.counters.ops + 1);
  CHECK(after.counters.allocations >= before.counters.allocations + 1);
  CHECK_STATUS(bp_backend_counters_get("no-such-backend", &after.counters), BP_ERR_INVALID_ARGUMENT);
  release(c);
  release(a);
}

int main(void) {
  int64_t live;
  test_runtime();
  test_names();
  test_plugin_reports();
  test_devices();
  live = bp_live_tensor_count();
  test_creation_and_metadata();
  test_operators();
  test_views();
  test_copies();
  test_errors();
  test_trace_and_counters();
  CHECK_INT(bp_live_tensor_count(), live); /* every handle released */
  return compat_finish("compat client 1.0");
}
