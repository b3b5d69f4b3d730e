// The plugins of the core's built-in directory (lib/backplane/plugins beside
// libbackplane.so), which take precedence over every other plugin: a plugin
// that reuses one's backend name or device prefix is rejected by the core
// wherever that built-in plugin is installed.
#pragma once

#include <string>
#include <vector>

namespace bpcheck {

// The built-in directory of the libbackplane.so this program runs with; ""
// when it cannot be told.
std::string builtin_plugin_dir();

struct BuiltinBackend {
  std::string path, name, prefix;
};

// The backend name and device prefix of every built-in plugin that is not
// the file `checked` (the same file, or a byte-identical copy of it), read
// from their tables in this process (dlopen and the entry point; no init).
// A built-in file that does not load is left out.
std::vector<BuiltinBackend> builtin_backends(const std::string &checked);

}  // namespace bpcheck
