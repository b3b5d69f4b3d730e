// What device_info and device_properties report about a device.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_cuda {

class Device;

void fill_device_info(Device &device, bp_plugin_device_info *info);
// Writes up to `capacity` properties; returns how many were written.
int32_t fill_device_properties(Device &device, bp_property *props, int32_t capacity);

}  // namespace bp_cuda
