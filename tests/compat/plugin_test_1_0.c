/*
 * plugin_test_1_0.c — loads the 1.0 plugin (plugin_1_0.c, built against the
 * frozen 1.0 headers) through the current core, beside the in-tree reference
 * plugin (built against the current headers), and runs operators on it.
 * Itself a 1.0 client: compiled against the frozen headers only.
 *
 *   compat-plugin-1.0 <directory holding libbackplane-example.so>
 */
#include "compat_check.h"

#define REPORT_END_1_0 (offsetof(bp_plugin_report, device_count) + sizeof(int32_t))

static bp_device g_dev = -1; /* example:0 */
static bp_device g_ref = -1; /* reference:0 */

static void start(const char *plugin_dir) {
  char config[4096];
  int n = snprintf(config, sizeof config,
                   "[devices]\n"
                   "default = \"reference\"\n"
                   "fallback = [\"reference\", \"cpu\"]\n"
                   "[plugins]\n"
                   "disabled = [\"opencl\", \"cuda\"]\n"
                   "paths = [\"%s\"]\n"
                   /* a plugin that fails to load fails bp_init, with the reason */
                   "required = [\"example\", \"reference\"]\n"
                   "[backend.cpu-openblas]\n"
                   "threads = 1\n",
                   plugin_dir);
  if (n <= 0 || (size_t)n >= sizeof config) {
    fprintf(stderr, "plugin directory too long\n");
    exit(1);
  }
  REQUIRE_OK(bp_init_from_string(config, "compat-plugin-1.0.toml"));
}

/* Both plugins loaded side by side: the 1.0 one and one built against the
 * current headers (reference). */
static void test_reports(void) {
  int32_t i, n = bp_plugin_report_count(), compat = 0, reference = 0;
  for (i = 0; i < n; ++i) {
    union { bp_plugin_report r; unsigned char bytes[128]; uint64_t align; } b;
    size_t k;
    memset(b.bytes, 0xA5, sizeof b.bytes);
    memset(b.bytes, 0, sizeof b.r);
    b.r.struct_size = (uint32_t)sizeof b.r;
    CHECK_OK(bp_plugin_report_get(i, 1, &b.r));
    for (k = sizeof b.r; k < sizeof b.bytes; ++k)
      if (b.bytes[k] != 0xA5) break;
    CHECK_INT(k, sizeof b.bytes); /* nothing written past the 1.0 struct */
    printf("plugin %-12s loaded=%d devices=%d version=%s %s%s\n", b.r.name, (int)b.r.loaded, (int)b.r.device_count,
           b.r.version, b.r.path, b.r.reason[0] ? " -- " : "");
    if (b.r.reason[0]) printf("    %s\n", b.r.reason);
    if (strcmp(b.r.name, "example") == 0) {
      ++compat;
      CHECK_INT(b.r.loaded, 1);
      CHECK_INT(b.r.device_count, 1);
      CHECK_STR(b.r.version, "0.1.0");
      CHECK_STR(b.r.reason, "");
      CHECK_CONTAINS(b.r.path, "libbackplane-example.so");
    } else if (strcmp(b.r.name, "reference") == 0) {
      ++reference;
      CHECK_INT(b.r.loaded, 1);
      CHECK(b.r.device_count >= 1);
      CHECK_CONTAINS(b.r.path, "libbackplane-reference.so");
    }
  }
  CHECK_INT(compat, 1);
  CHECK_INT(reference, 1);
  {
    /* the tight 1.0 size too */
    union { bp_plugin_report r; unsigned char bytes[128]; uint64_t align; } b;
    size_t k;
    memset(b.bytes, 0xA5, sizeof b.bytes);
    memset(b.bytes, 0, REPORT_END_1_0);
    b.r.struct_size = (uint32_t)REPORT_END_1_0;
    CHECK_OK(bp_plugin_report_get(0, 0, &b.r));
    for (k = REPORT_END_1_0; k < sizeof b.bytes; ++k)
      if (b.bytes[k] != 0xA5) break;
    CHECK_INT(k, sizeof b.bytes);
  }
}

static void test_device(void) {
  bp_device_info info;
  REQUIRE_OK(bp_device_get("example:0", &g_dev));
  REQUIRE_OK(bp_device_get("reference:0", &g_ref));
  CHECK_STR(bp_device_name(g_dev), "example:0");
  memset(&info, 0, sizeof info);
  info.struct_size = (uint32_t)sizeof info;
  CHECK_OK(bp_device_info_get(g_dev, &info));
  CHECK_STR(info.name, "example:0");
  CHECK_STR(info.backend, "example");
  CHECK_STR(info.model, "example (host memory)");
  CHECK_INT(info.kind, BP_DEVICE_CPU);
  CHECK_INT(info.index, 0);
  CHECK_INT(info.is_accelerator, 0);
  CHECK_CONTAINS(info.plugin_path, "libbackplane-example.so");
  {
    bp_property props[4];
    int32_t n = -1;
    CHECK_OK(bp_device_properties(g_dev, props, 4, &n)); /* no device_properties entry: none */
    CHECK_INT(n, 0);
  }
  CHECK_STATUS(bp_device_get("example:1", &g_ref), BP_ERR_UNKNOWN_DEVICE);
}

static void test_operators(void) {
  static const int64_t k23[2] = {2, 3};
  static const float ka[6] = {1, 2, 3, 4, 5, 6};
  static const float kb[6] = {0.5f, 0.25f, 2, -1, 10, 100};
  bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR, c = BP_NO_TENSOR, t = BP_NO_TENSOR, r = BP_NO_TENSOR;
  bp_device dev = -1;
  bp_device_info info;
  bp_backend_counters counters;
  int32_t contiguous = -1;

  /* write / read */
  REQUIRE_OK(bp_from_host(g_dev, BP_FLOAT32, 2, k23, ka, &a));
  REQUIRE_OK(bp_from_host(g_dev, BP_FLOAT32, 2, k23, kb, &b));
  CHECK_OK(bp_tensor_device(a, &dev));
  CHECK_INT(dev, g_dev);
  CHECK_F32("read back", a, 1, 2, 3, 4, 5, 6);
  memset(&info, 0, sizeof info);
  info.struct_size = (uint32_t)sizeof info;
  CHECK_OK(bp_device_info_get(g_dev, &info));
  CHECK(info.memory_in_use >= 2 * sizeof ka);

  /* FILL */
  REQUIRE_OK(bp_full(g_dev, BP_FLOAT32, 2, k23, -1.5, &c));
  CHECK_F32("fill", c, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f);
  CHECK_OK(bp_tensor_release(c));
  REQUIRE_OK(bp_zeros(g_dev, BP_FLOAT32, 2, k23, &c));
  CHECK_F32("zeros", c, 0, 0, 0, 0, 0, 0);
  CHECK_OK(bp_tensor_release(c));

  /* ADD, MUL, with broadcasting and scalars on either side */
  REQUIRE_OK(bp_add(a, b, &c));
  CHECK_F32("add", c, 1.5f, 2.25f, 5, 3, 15, 106);
  CHECK_OK(bp_tensor_release(c));
  REQUIRE_OK(bp_mul(a, b, &c));
  CHECK_F32("mul", c, 0.5f, 0.5f, 6, -4, 50, 600);
  CHECK_OK(bp_tensor_release(c));
  REQUIRE_OK(bp_binary_scalar(BP_OP_MUL, a, 3.0, 1, &c));
  CHECK_F32("3 * a", c, 3, 6, 9, 12, 15, 18);
  CHECK_OK(bp_add_out(c, a, c)); /* in place */
  CHECK_F32("add_out in place", c, 4, 8, 12, 16, 20, 24);
  CHECK_OK(bp_tensor_release(c));
  {
    const int64_t s3 = 3;
    const float row[3] = {10, 20, 30};
    REQUIRE_OK(bp_from_host(g_dev, BP_FLOAT32, 1, &s3, row, &r));
    REQUIRE_OK(bp_add(a, r, &c));
    CHECK_F32("add broadcast", c, 11, 22, 33, 14, 25, 36);
    CHECK_OK(bp_tensor_release(c));
    CHECK_OK(bp_tensor_release(r));
  }

  /* COPY: a strided view made dense, a cast to the same dtype, an assign */
  REQUIRE_OK(bp_transpose(a, &t));
  REQUIRE_OK(bp_contiguous(t, &c));
  CHECK_OK(bp_tensor_is_contiguous(c, &contiguous));
  CHECK_INT(contiguous, 1);
  CHECK_F32("contiguous(transpose)", c, 1, 4, 2, 5, 3, 6);
  CHECK_OK(bp_tensor_release(c));
  REQUIRE_OK(bp_mul(t, t, &c));
  CHECK_F32("mul of strided views", c, 1, 16, 4, 25, 9, 36);
  CHECK_OK(bp_tensor_release(c));
  CHECK_OK(bp_tensor_release(t));
  REQUIRE_OK(bp_cast(a, BP_FLOAT32, &c));
  CHECK(c != a);
  CHECK_F32("cast float32", c, 1, 2, 3, 4, 5, 6);
  {
    const int64_t s3 = 3;
    const float row[3] = {7, 8, 9};
    REQUIRE_OK(bp_from_host(g_dev, BP_FLOAT32, 1, &s3, row, &r));
    REQUIRE_OK(bp_select(c, 0, 1, &t));
    CHECK_OK(bp_assign(t, r)); /* c[1] = row: COPY into a view */
    CHECK_F32("assign into a view", c, 1, 2, 3, 7, 8, 9);
    CHECK_OK(bp_tensor_release(t));
    CHECK_OK(bp_tensor_release(r));
  }
  CHECK_F32("the source of the cast is untouched", a, 1, 2, 3, 4, 5, 6);
  CHECK_OK(bp_tensor_release(c));

  /* moving: within the backend (no copy entry: staged) and across backends */
  REQUIRE_OK(bp_copy_to(a, g_dev, &c));
  CHECK(c != a);
  CHECK_F32("copy_to example:0", c, 1, 2, 3, 4, 5, 6);
  CHECK_OK(bp_tensor_release(c));
  REQUIRE_OK(bp_copy_to(a, g_ref, &r));
  CHECK_OK(bp_tensor_device(r, &dev));
  CHECK_INT(dev, g_ref);
  CHECK_F32("copy_to reference:0", r, 1, 2, 3, 4, 5, 6);
  REQUIRE_OK(bp_unary(BP_OP_EXP, r, &t)); /* the reference does what example cannot */
  REQUIRE_OK(bp_to(t, g_dev, &c));
  CHECK_OK(bp_tensor_device(c, &dev));
  CHECK_INT(dev, g_dev);
  CHECK_F32("exp on reference, back on example", c, 2.718281828f, 7.389056099f, 20.08553692f, 54.59815003f,
            148.4131591f, 403.4287935f);
  CHECK_OK(bp_tensor_release(c));
  CHECK_OK(bp_tensor_release(t));

  /* what example does not implement is refused, naming it */
  c = (bp_tensor)4242;
  CHECK_STATUS(bp_sub(a, b, &c), BP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(bp_last_error(), "example");
  CHECK_STATUS(bp_unary(BP_OP_EXP, a, &c), BP_ERR_UNSUPPORTED);
  CHECK_STATUS(bp_zeros(g_dev, BP_FLOAT64, 2, k23, &c), BP_ERR_UNSUPPORTED);
  CHECK_STATUS(bp_matmul(a, b, 0, 1, &c), BP_ERR_UNSUPPORTED);
  CHECK_INT(c, 4242);
  {
    void *address = NULL;
    CHECK_OK(bp_tensor_host_address(a, &address)); /* its 1.0 host_address entry */
    CHECK(address != NULL);
  }
  /* inputs on two backends */
  CHECK_STATUS(bp_add(a, r, &c), BP_ERR_DEVICE_MISMATCH);
  CHECK_INT(bp_last_error_device_count(), 2);
  CHECK_INT(bp_last_error_device(0), g_dev);
  CHECK_INT(bp_last_error_device(1), g_ref);
  CHECK_OK(bp_tensor_release(r));

  memset(&counters, 0, sizeof counters);
  counters.struct_size = (uint32_t)sizeof counters;
  CHECK_OK(bp_backend_counters_get("example", &counters));
  CHECK(counters.ops >= 8);
  CHECK(counters.allocations >= 8);
  CHECK(counters.bytes_host_to_device >= 2 * sizeof ka);
  CHECK(counters.bytes_device_to_host > 0);

  CHECK_OK(bp_synchronize(g_dev));
  CHECK_OK(bp_tensor_release(a));
  CHECK_OK(bp_tensor_release(b));
}

int main(int argc, char **argv) {
  int64_t live;
  if (argc != 2) {
    fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
    return 2;
  }
  start(argv[1]);
  live = bp_live_tensor_count();
  test_reports();
  test_device();
  test_operators();
  CHECK_INT(bp_live_tensor_count(), live);
  return compat_finish("compat plugin 1.0 through the current core");
}
