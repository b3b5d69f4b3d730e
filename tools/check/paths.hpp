// File paths as the kit needs them.
#pragma once

#include <string>

namespace bpcheck {

std::string absolute(const std::string &path);   // realpath, else made absolute by hand
std::string real_path(const std::string &path);  // realpath, else the path as given
bool file_exists(const std::string &path);       // a regular file
// Why path is not a regular file ("no such file", "a FIFO, not a plugin file"), or "".
std::string file_problem(const std::string &path);
std::string dir_of(const std::string &path);     // "." when there is no slash
std::string base_name(const std::string &path);

}  // namespace bpcheck
