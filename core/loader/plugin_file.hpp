// Checks a plugin file before anything maps it: dlopen blocks forever on a
// FIFO and dies of SIGBUS on an ELF file cut short, so both are refused here
// with a reason instead.
#pragma once

#include <string>

namespace bp::core {

// Empty when `path` (symbolic links followed) is a regular file holding a
// 64-bit ELF shared object for this machine whose program headers and
// loadable segments lie within the file; else why not.
std::string plugin_file_problem(const std::string &path);

}  // namespace bp::core
