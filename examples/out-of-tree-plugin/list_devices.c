/* Lists every device Backplane finds, with its backend: a user of the C API.
 * Run with BACKPLANE_PLUGIN_PATH=<dir with libbackplane-example.so> to see example:0. */
#include <stdio.h>

#include <backplane/backplane.h>

int main(void) {
  bp_device ids[64];
  int32_t n = 0, i;
  if (bp_devices(ids, 64, &n) != BP_OK) {
    fprintf(stderr, "bp_devices: %s\n", bp_last_error());
    return 1;
  }
  for (i = 0; i < n && i < 64; ++i) {
    bp_device_info info = {0};
    info.struct_size = sizeof info;
    if (bp_device_info_get(ids[i], &info) == BP_OK)
      printf("%-12s %-14s %s\n", info.name, info.backend, info.model);
  }
  return 0;
}
