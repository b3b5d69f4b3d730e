/*
 * plugin_report_current.c — the other side of tests/compat: a client built
 * against the CURRENT headers (abi/include) with both plugins loaded, the
 * 1.0 one (plugin_1_0.c) and the in-tree reference plugin (built against the
 * current headers). The report tells their ABI versions apart; a current
 * client gets the whole current struct and still nothing past its size.
 *
 *   compat-plugin-report-current <directory holding libbackplane-example.so>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backplane/backplane.h>
#include <backplane/plugin.h>

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++g_failures;                                                            \
      fprintf(stderr, "FAILED %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              bp_last_error());                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  char config[4096];
  int32_t i, compat = 0, reference = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
    return 2;
  }
  snprintf(config, sizeof config,
           "[devices]\nfallback = [\"reference\", \"cpu\"]\n"
           "[plugins]\ndisabled = [\"opencl\", \"cuda\"]\npaths = [\"%s\"]\n"
           "required = [\"example\", \"reference\"]\n",
           argv[1]);
  if (bp_init_from_string(config, "compat-current.toml") != BP_OK) {
    fprintf(stderr, "bp_init_from_string: %s\n", bp_last_error());
    return 1;
  }
  for (i = 0; i < bp_plugin_report_count(); ++i) {
    union { bp_plugin_report r; unsigned char bytes[sizeof(bp_plugin_report) + 32]; } b;
    size_t k;
    memset(b.bytes, 0xA5, sizeof b.bytes);
    memset(b.bytes, 0, sizeof b.r);
    b.r.struct_size = (uint32_t)sizeof b.r;
    CHECK(bp_plugin_report_get(i, 1, &b.r) == BP_OK);
    for (k = sizeof b.r; k < sizeof b.bytes; ++k) CHECK(b.bytes[k] == 0xA5);
    printf("plugin %-12s loaded=%d ABI %u.%u\n", b.r.name, (int)b.r.loaded, (unsigned)b.r.abi_major,
           (unsigned)b.r.abi_minor);
    if (strcmp(b.r.name, "example") == 0) {
      ++compat;
      CHECK(b.r.loaded == 1);
      CHECK(b.r.abi_major == 1 && b.r.abi_minor == 0);
    } else if (strcmp(b.r.name, "reference") == 0) {
      ++reference;
      CHECK(b.r.loaded == 1);
      CHECK(b.r.abi_major == BP_PLUGIN_ABI_MAJOR && b.r.abi_minor == BP_PLUGIN_ABI_MINOR);
    }
  }
  CHECK(compat == 1 && reference == 1);
  {
    /* the two side by side in one computation: example adds, reference exps */
    bp_device c10 = -1, ref = -1;
    bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR, e = BP_NO_TENSOR;
    const int64_t n = 2;
    const float v[2] = {0.0f, 1.0f};
    float out[2] = {-1, -1};
    CHECK(bp_device_get("example:0", &c10) == BP_OK && bp_device_get("reference:0", &ref) == BP_OK);
    CHECK(bp_from_host(c10, BP_FLOAT32, 1, &n, v, &a) == BP_OK);
    CHECK(bp_add(a, a, &b) == BP_OK);
    CHECK(bp_to(b, ref, &e) == BP_OK);
    CHECK(bp_tensor_release(b) == BP_OK);
    CHECK(bp_exp(e, &b) == BP_OK);
    CHECK(bp_to_host(b, out, sizeof out) == BP_OK);
    CHECK(out[0] == 1.0f && out[1] > 7.389f && out[1] < 7.390f);
    bp_tensor_release(a);
    bp_tensor_release(b);
    bp_tensor_release(e);
  }
  if (g_failures) {
    fprintf(stderr, "compat plugin report (current headers): %d checks FAILED\n", g_failures);
    return 1;
  }
  printf("compat plugin report (current headers): passed\n");
  return 0;
}
