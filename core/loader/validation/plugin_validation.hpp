// The one check of a plugin's function table (bp_plugin_api) before a host
// trusts any pointer in it: used by the core's loader and probe process and
// by the conformance kit (`bp check`), so that both accept and reject the
// same tables for the same reasons, in the same words.
#pragma once

#include <string>

#include "backplane/plugin.h"

namespace bp::plugin_validation {

// "" when the table is usable by a host of this ABI (BP_PLUGIN_ABI_MAJOR),
// else the first reason it is not, in this order: a NULL table (the plugin
// refused the host), another ABI major, a struct_size below the 1.0 table,
// the backend name, the device prefix, a version string that cannot be read
// or has no NUL within 4096 bytes, then each required entry. The strings are
// read with a bound (bounded_read.hpp): an unterminated or wild one is a
// reason, never a fault. The core rejects such a plugin and the kit fails it.
std::string validate_plugin_api(const bp_plugin_api *api);

// For a usable table: "" or the first way it departs from plugin.h that a
// host can still live with: a NULL or empty version string. 1.0 cores loaded
// such plugins, so later cores do too (the version then reads ""); the kit
// fails them, since plugin.h says version is a string the plugin owns.
std::string conformance_problem(const bp_plugin_api &api);

// True for names made of [a-z0-9_-], 1..63 characters (backend names and
// device prefixes).
bool valid_backend_name(const char *name);

// "1.3": the ABI version the table says it was built for (abi_major and
// abi_minor exist in every table of every version).
std::string abi_version(const bp_plugin_api &api);

// "" unless the table was built for a newer minor version than this host;
// then a sentence saying so and that the fields past this host's minor are
// not used.
std::string newer_minor_note(const bp_plugin_api &api);

}  // namespace bp::plugin_validation
