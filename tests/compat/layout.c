/*
 * layout.c — the offset and size of every field ABI 1.0 published, one line
 * each. Compiled twice, against the frozen 1.0 headers and against the
 * current ones; the test "compat.1.0 struct layouts are unchanged" requires
 * both outputs to be identical, which the *_SIZE_* checks alone cannot prove
 * (they are computed from the current layout).
 */
#include <stddef.h>
#include <stdio.h>

#include "backplane/backplane.h"
#include "backplane/plugin.h"

#define FIELD(type, field) \
  printf(#type "." #field " %zu %zu\n", offsetof(type, field), sizeof(((type *)0)->field))
#define SIZE(type) printf(#type " sizeof %zu\n", sizeof(type))

int main(void) {
  FIELD(bp_property, key);
  FIELD(bp_property, value);
  SIZE(bp_property);

  FIELD(bp_plugin_tensor, buffer);
  FIELD(bp_plugin_tensor, offset);
  FIELD(bp_plugin_tensor, dtype);
  FIELD(bp_plugin_tensor, rank);
  FIELD(bp_plugin_tensor, shape);
  FIELD(bp_plugin_tensor, strides);
  SIZE(bp_plugin_tensor);

  FIELD(bp_op_attrs, struct_size);
  FIELD(bp_op_attrs, scalar_mode);
  FIELD(bp_op_attrs, scalar);
  FIELD(bp_op_attrs, scalar2);
  FIELD(bp_op_attrs, seed);

  FIELD(bp_plugin_device_info, struct_size);
  FIELD(bp_plugin_device_info, kind);
  FIELD(bp_plugin_device_info, model);
  FIELD(bp_plugin_device_info, memory_total);
  FIELD(bp_plugin_device_info, memory_free);
  FIELD(bp_plugin_device_info, memory_in_use);

  FIELD(bp_plugin_api, struct_size);
  FIELD(bp_plugin_api, abi_major);
  FIELD(bp_plugin_api, abi_minor);
  FIELD(bp_plugin_api, flags);
  FIELD(bp_plugin_api, name);
  FIELD(bp_plugin_api, version);
  FIELD(bp_plugin_api, device_prefix);
  FIELD(bp_plugin_api, last_error);
  FIELD(bp_plugin_api, init);
  FIELD(bp_plugin_api, device_count);
  FIELD(bp_plugin_api, device_info);
  FIELD(bp_plugin_api, device_properties);
  FIELD(bp_plugin_api, alloc);
  FIELD(bp_plugin_api, free);
  FIELD(bp_plugin_api, write);
  FIELD(bp_plugin_api, read);
  FIELD(bp_plugin_api, copy);
  FIELD(bp_plugin_api, supports);
  FIELD(bp_plugin_api, execute);
  FIELD(bp_plugin_api, synchronize);
  FIELD(bp_plugin_api, host_address);

  FIELD(bp_plugin_report, struct_size);
  FIELD(bp_plugin_report, loaded);
  FIELD(bp_plugin_report, path);
  FIELD(bp_plugin_report, name);
  FIELD(bp_plugin_report, version);
  FIELD(bp_plugin_report, reason);
  FIELD(bp_plugin_report, device_count);

  FIELD(bp_device_info, struct_size);
  FIELD(bp_device_info, kind);
  FIELD(bp_device_info, is_accelerator);
  FIELD(bp_device_info, index);
  FIELD(bp_device_info, name);
  FIELD(bp_device_info, backend);
  FIELD(bp_device_info, model);
  FIELD(bp_device_info, plugin_path);
  FIELD(bp_device_info, memory_total);
  FIELD(bp_device_info, memory_free);
  FIELD(bp_device_info, memory_in_use);

  FIELD(bp_backend_counters, struct_size);
  FIELD(bp_backend_counters, ops);
  FIELD(bp_backend_counters, allocations);
  FIELD(bp_backend_counters, bytes_host_to_device);
  FIELD(bp_backend_counters, bytes_device_to_host);
  FIELD(bp_backend_counters, bytes_device_to_device);
  FIELD(bp_backend_counters, staged_copies);
  return 0;
}
