// Strings a plugin hands the core while it runs (last_error, device_count's
// reason) are copied, never trusted: at most kMaxPluginString bytes, and
// through process_vm_readv (plugin_validation's bounded_read.hpp, which also
// reads the table's name, prefix and version), so an unterminated string or
// a wild pointer ends the copy instead of the process.
#pragma once

#include <cstddef>
#include <string>

namespace bp::core {

constexpr size_t kMaxPluginString = 4096;

// The string at p (empty for NULL), cut at kMaxPluginString bytes with
// " [... truncated]", or at the first byte the process cannot read with
// " [... unreadable]".
std::string copy_plugin_string(const char *p);

// Whether every byte of [p, p + bytes) can be read (and, with write, written)
// by this process; checked with process_vm_readv/writev at both ends and on
// pages spread between, so a bad range costs an error, not a crash.
bool memory_accessible(void *p, size_t bytes, bool write);

}  // namespace bp::core
