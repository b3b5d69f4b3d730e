// Checks a plugin's ABI table before the core trusts any pointer in it.
#pragma once

#include <string>

#include "backplane/plugin.h"

namespace bp::core {

// Empty when the table is usable by this core, else the reason it is not.
std::string validate_plugin_api(const bp_plugin_api *api);

// True for names made of [a-z0-9_-], 1..63 characters (file and device names).
bool valid_backend_name(const char *name);

}  // namespace bp::core
