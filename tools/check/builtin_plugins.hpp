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

// Whether `b` is another build of the checked plugin rather than a plugin
// taking a built-in's place: the same file name, backend name and prefix.
bool another_build(const BuiltinBackend &b, const std::string &checked, const std::string &name,
                   const std::string &prefix);

// The built-in plugin file the checked one (from outside the built-in
// directory) has the file name of, or "": the core runs the checked file in
// its place when configured with stand_in_toml().
std::string builtin_namesake(const std::string &checked);
// The configuration that makes the checked file (libbackplane-<name>.so, with
// a builtin_namesake) stand in for the built-in: [plugins.<name>]
// replace_builtin = true.
std::string stand_in_toml(const std::string &checked);

}  // namespace bpcheck
