// Reading memory a plugin points at without trusting the pointer: through
// process_vm_readv on this process, so an unmapped or unreadable byte ends
// the read with an answer instead of a SIGSEGV. validate_plugin_api reads
// the table's strings this way (for the loader, its probe and `bp check`
// alike), and so do the core's copies of a plugin's messages
// (core/loader/plugin_strings.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace bp::plugin_validation {

// Copies n bytes from this process's own address `from` into `to`; false
// when any of them cannot be read.
bool read_own(void *to, const void *from, size_t n);

// read_own's way where a seccomp profile refuses process_vm_readv (which
// read_own notices once and then stays with this): write() into a pipe fails
// with EFAULT on a byte it cannot read, where a plain copy would fault.
// Without it every plugin's name would be unreadable there and every plugin
// refused.
bool read_through_pipe(void *to, const void *from, size_t n);

// How read_plugin_string ended.
enum class StringEnd { kNul, kUnreadable, kLimit };

// Appends to out the bytes of the string at p (not NULL) up to its NUL, at
// most `limit` of them: kNul when the NUL was found, kUnreadable when a byte
// before it cannot be read, kLimit when `limit` bytes held no NUL. Reads
// never cross into a page before the string reaches it.
StringEnd read_plugin_string(const char *p, size_t limit, std::string &out);

}  // namespace bp::plugin_validation
