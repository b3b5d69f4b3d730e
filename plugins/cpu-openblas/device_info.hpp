// What device_info and device_properties report about cpu:0.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace cpu_backend {

// Fills the fields of *info that fit in info->struct_size.
void fill_device_info(bp_plugin_device_info *info);

// Writes up to `capacity` properties; returns how many it wrote.
int32_t fill_device_properties(bp_property *props, int32_t capacity);

}  // namespace cpu_backend
