// The symbols an ELF64 shared object exports, read from its file (no
// loading): a plugin should export nothing but its entry symbol.
#pragma once

#include <string>
#include <vector>

namespace bpcheck {

// Defined, exported symbols of an ELF64 shared object other than the entry
// symbol; *error is set when the file cannot be read as ELF64.
std::vector<std::string> extra_exports(const std::string &path, std::string *error);

}  // namespace bpcheck
