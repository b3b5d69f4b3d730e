// The BACKPLANE_* per-key overrides. They take the values the file takes,
// checked by the same rules, and each one shows up in the entries.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "config/config.hpp"
#include "rules.hpp"

namespace bp::config {
namespace {

using detail::Problem;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    std::size_t end = s.find(sep, start);
    items.emplace_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return items;
    start = end + 1;
  }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

class Environment {
 public:
  Environment(Config &c, const std::function<const char *(const char *)> &getenv_fn)
      : c_(c), getenv_(getenv_fn) {}

  // Comma-separated, spaces around items ignored, each item checked.
  void list(const char *var, const char *key, std::vector<std::string> &field,
            Problem (*check)(std::string_view)) const {
    std::optional<std::string> raw = get(var);
    if (!raw) return;
    std::vector<std::string> items;
    for (const std::string &item : split(*raw, ',')) items.emplace_back(trim(item));
    if (auto p = detail::check_list(items, check))
      fail(var, key,
           p->reason + " (item " + std::to_string(p->index + 1) + " of " +
               detail::quoted(*raw) + ")");
    field = std::move(items);
    set(var, key, detail::toml_array(field));
  }

  void flag(const char *var, const char *key, bool &field) const {
    std::optional<std::string> raw = get(var);
    if (!raw) return;
    if (*raw == "1" || equals_ignoring_case(*raw, "true")) {
      field = true;
    } else if (*raw == "0" || equals_ignoring_case(*raw, "false")) {
      field = false;
    } else {
      fail(var, key, "expected 1, 0, true or false, found " + detail::quoted(*raw));
    }
    set(var, key, detail::toml_bool(field));
  }

  void device(const char *var, const char *key, std::string &field) const {
    std::optional<std::string> raw = get(var);
    if (!raw) return;
    if (Problem p = detail::check_device(*raw)) fail(var, key, *p);
    field = *raw;
    set(var, key, detail::toml_string(field));
  }

  // Colon-separated like PATH, appended after the file's directories; empty
  // items (from "a::b" or "$OLD:new" with OLD empty) are skipped.
  void paths(const char *var, const char *key, std::vector<std::string> &field) const {
    std::optional<std::string> raw = get(var);
    if (!raw) return;
    for (const std::string &p : split(*raw, ':'))
      if (!p.empty()) field.push_back(std::filesystem::absolute(p).lexically_normal().string());
    // The value now comes from both places: say so.
    std::string origin = std::string("env ") + var;
    auto it = std::find_if(c_.entries.begin(), c_.entries.end(),
                           [&](const Entry &e) { return e.key == key; });
    if (it != c_.entries.end() && it->origin != "default") origin = it->origin + " + " + origin;
    detail::record(c_, key, detail::toml_array(field), std::move(origin));
  }

 private:
  // Unset and empty both mean "no override", so `BACKPLANE_TRACE= cmd` is harmless.
  std::optional<std::string> get(const char *var) const {
    const char *v = getenv_(var);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  }

  [[noreturn]] void fail(const char *var, const char *key, std::string reason) const {
    throw ConfigError(std::string("env ") + var, 0, 0, key, std::move(reason));
  }

  void set(const char *var, const char *key, std::string text) const {
    detail::record(c_, key, std::move(text), std::string("env ") + var);
  }

  Config &c_;
  const std::function<const char *(const char *)> &getenv_;
};

}  // namespace

void apply_environment(Config &c, const std::function<const char *(const char *)> &getenv_fn) {
  // On a bad variable, c stays as it was: apply to a copy.
  Config next = c;
  Environment env(next, getenv_fn);
  env.device("BACKPLANE_DEFAULT_DEVICE", "devices.default", next.default_device);
  env.list("BACKPLANE_FALLBACK", "devices.fallback", next.fallback, detail::check_name);
  env.list("BACKPLANE_ACCELERATOR_KINDS", "devices.accelerator_kinds", next.accelerator_kinds,
           detail::check_kind);
  env.paths("BACKPLANE_PLUGIN_PATH", "plugins.paths", next.plugin_paths);
  env.list("BACKPLANE_DISABLED_PLUGINS", "plugins.disabled", next.plugins_disabled,
           detail::check_name);
  env.flag("BACKPLANE_HOST_FALLBACK", "dispatch.host_fallback", next.host_fallback);
  env.flag("BACKPLANE_TRACE", "dispatch.trace", next.trace);
  env.flag("BACKPLANE_FUSION", "dispatch.fusion", next.fusion);
  c = std::move(next);
}

}  // namespace bp::config
