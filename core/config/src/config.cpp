#include "config/config.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors/echo.hpp"
#include "input_bounds.hpp"
#include "rules.hpp"

namespace bp::config {
namespace {

// The source and the key are the caller's text too: bounded like values.
std::string compose(const std::string &source, int line, int column, const std::string &key,
                    const std::string &reason) {
  std::string out = core::echo(source, core::kEchoPathBytes);
  if (line > 0) out += ':' + std::to_string(line) + ':' + std::to_string(column);
  if (!key.empty()) out += ": " + core::echo(key);
  return out + ": " + reason;
}

}  // namespace

ConfigError::ConfigError(std::string source, int line, int column, std::string key,
                         std::string reason)
    : std::runtime_error(compose(source, line, column, key, reason)),
      source_(std::move(source)),
      line_(line),
      column_(column),
      key_(std::move(key)),
      reason_(std::move(reason)) {}

Config defaults() {
  using detail::record;
  using detail::toml_array;
  using detail::toml_bool;
  Config c;
  const std::string origin = "default";
  record(c, "devices.default", detail::toml_string(c.default_device), origin);
  record(c, "devices.fallback", toml_array(c.fallback), origin);
  record(c, "devices.accelerator_kinds", toml_array(c.accelerator_kinds), origin);
  record(c, "plugins.paths", toml_array(c.plugin_paths), origin);
  record(c, "plugins.disabled", toml_array(c.plugins_disabled), origin);
  record(c, "plugins.required", toml_array(c.plugins_required), origin);
  record(c, "dispatch.host_fallback", toml_bool(c.host_fallback), origin);
  record(c, "dispatch.trace", toml_bool(c.trace), origin);
  record(c, "dispatch.fusion", toml_bool(c.fusion), origin);
  // The backends' documented options (config/backplane.toml explains each),
  // so `bp config` lists them too.
  auto option = [&](const char *backend, const char *key, const char *value, std::string text) {
    c.backend_options[backend][key] = value;
    record(c, detail::dotted_key({"backend", backend, key}), std::move(text), origin);
  };
  option("cpu-openblas", "threads", "0", "0");
  option("opencl", "platform", "", "\"\"");
  option("opencl", "device_type", "all", "\"all\"");
  option("opencl", "fp64", "auto", "\"auto\"");
  option("opencl", "kernel_cache", "auto", "\"auto\"");
  option("cuda", "allow_tf32", "false", "false");
  return c;
}

Config load_file(const std::string &path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; only a regular
  // file is read, and never more than the size limit (/dev/zero ends nowhere).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ConfigError(path, 0, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(::fdopen(fd, "rb"), std::fclose);
  if (!file) {
    ::close(fd);
    throw ConfigError(path, 0, 0, "", std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw ConfigError(path, 0, 0, "", S_ISDIR(st.st_mode) ? "is a directory, not a file" : "is not a regular file");
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, file.get())) {
    text.append(buf, n);
    if (text.size() > detail::kMaxConfigBytes) break;  // load_string reports the size
  }
  if (std::ferror(file.get()))
    throw ConfigError(path, 0, 0, "", std::string("cannot read: ") + std::strerror(errno));
  return load_string(text, path);
}

}  // namespace bp::config
