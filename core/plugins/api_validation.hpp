// The core's name for the shared plugin-table validator
// (core/plugins/validation, also linked into `bp check`).
#pragma once

#include "plugin_validation.hpp"

namespace bp::core {

using bp::plugin_validation::valid_backend_name;
using bp::plugin_validation::validate_plugin_api;

}  // namespace bp::core
