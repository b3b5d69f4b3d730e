// Runtime configuration: built-in defaults, overridden per key by a TOML file
// (config/backplane.toml documents every key) and then by BACKPLANE_*
// environment variables. Every error names its source, line, column and key.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bp::config {

// One effective setting, as `bp config` and bp_config_entry show it.
struct Entry {
  std::string key;     // dotted key: "devices.default", "backend.opencl.platform"
  std::string value;   // TOML text: "\"auto\"", "[\"cuda\", \"cpu\"]", "false", "4"
  std::string origin;  // "default", "path/file.toml:3:1" (the key), "env BACKPLANE_TRACE"
};

struct Config {
  // [devices] default: "auto", "cpu", "gpu", "<prefix>" or "<prefix>:<index>".
  std::string default_device = "cpu";
  // [devices] fallback: backend names or device prefixes; the order for "auto" and gpu(i).
  std::vector<std::string> fallback{"cuda", "opencl", "cpu"};
  // [devices] accelerator_kinds: "gpu" | "accelerator" | "cpu", or "<prefix>:<kind>"
  // ("opencl:cpu": CPU-kind devices of the opencl backend only).
  std::vector<std::string> accelerator_kinds{"gpu", "accelerator"};
  // [plugins] paths: extra directories to scan, absolute (relative ones in a
  // file are resolved against its directory); BACKPLANE_PLUGIN_PATH appends.
  std::vector<std::string> plugin_paths;
  std::vector<std::string> plugins_disabled;  // [plugins] disabled: never loaded
  std::vector<std::string> plugins_required;  // [plugins] required: failing to load is an error
  // [plugins.<name>] probe_in_subprocess: dry-load in a child process first.
  std::map<std::string, bool> probe_in_subprocess;
  // [plugins.<name>] replace_builtin: the built-in libbackplane-<name>.so is
  // not loaded, so that a file of that name from [plugins] paths (another
  // build of the same plugin) takes its backend name and prefix.
  std::map<std::string, bool> replace_builtin;
  bool host_fallback = false;  // [dispatch] host_fallback
  bool trace = false;          // [dispatch] trace
  bool fusion = true;          // [dispatch] fusion
  // [backend.<name>] key = scalar, as text: strings raw ("gpu"), others as
  // TOML writes them ("4", "0.5", "true"). Passed to the backend's init.
  std::map<std::string, std::map<std::string, std::string>> backend_options;
  // Every effective key with its value and origin, sorted by key.
  std::vector<Entry> entries;
};

// what(): "<source>:<line>:<column>: <key>: <reason>"; the position is left
// out when there is none (environment, unreadable file), the key likewise.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string source, int line, int column, std::string key, std::string reason);
  const std::string &source() const noexcept { return source_; }  // file name or "env NAME"
  int line() const noexcept { return line_; }                     // 1-based, 0 if none
  int column() const noexcept { return column_; }                 // 1-based, 0 if none
  const std::string &key() const noexcept { return key_; }        // dotted key, "" if none
  const std::string &reason() const noexcept { return reason_; }  // the message alone

 private:
  std::string source_;
  int line_;
  int column_;
  std::string key_;
  std::string reason_;
};

// Built-in defaults, every entry with origin "default".
Config defaults();

// Defaults overridden by the file. Throws ConfigError (also when unreadable).
Config load_file(const std::string &path);

// Like load_file for TOML text; source_name appears in errors and origins, and
// relative plugin paths are resolved against its directory (if it has none:
// the current directory).
Config load_string(std::string_view toml, std::string_view source_name);

// Applies the BACKPLANE_* per-key overrides read through getenv_fn (unset or
// empty: no override); see config/backplane.toml for the variable of each key.
// Throws ConfigError naming the variable when a value is malformed.
void apply_environment(Config &config, const std::function<const char *(const char *)> &getenv_fn);

}  // namespace bp::config
