// load_string: the only file of the library that includes toml++ (slow to
// compile). It walks the document against the schema, so a misspelt key, a
// wrong type or a bad value is an error at its position, never a default.
#include <toml++/toml.h>

#include <charconv>
#include <filesystem>
#include <iterator>

#include "config/config.hpp"
#include "input_bounds.hpp"
#include "rules.hpp"

namespace bp::config {
namespace {

namespace fs = std::filesystem;
using detail::dotted_key;
using detail::Problem;
using detail::record;
using detail::toml_array;
using detail::toml_bool;
using detail::toml_string;

// Indexed by toml::node_type, whose order toml++ fixes: none first.
constexpr const char *kTypeNames[] = {"nothing", "table",   "array", "string", "integer",
                                      "float",   "boolean", "date",  "time",   "date-time"};
static_assert(size_t(toml::node_type::none) == 0 && size_t(toml::node_type::floating_point) == 5 &&
                  size_t(toml::node_type::date_time) == std::size(kTypeNames) - 1,
              "toml::node_type's order changed: update kTypeNames");

std::string type_name(const toml::node &node) { return kTypeNames[size_t(node.type())]; }

// Shortest text that reads back the same ("0.1", not "0.10000000000000001"),
// still a TOML float ("1.0", not "1").
std::string float_text(double d) {
  char buf[64];
  std::string s(buf, std::to_chars(buf, buf + sizeof buf, d).ptr);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";  // not 1e5, inf, nan
  return s;
}

class Reader {
 public:
  Reader(std::string_view source, fs::path dir) : source_(source), dir_(std::move(dir)) {}

  void read(const toml::table &root, Config &c) const {
    for (auto &&[k, node] : root) {
      std::string key = dotted_key({k.str()});
      if (k == "devices") {
        devices(table(node, key), c);
      } else if (k == "plugins") {
        plugins(table(node, key), c);
      } else if (k == "dispatch") {
        dispatch(table(node, key), c);
      } else if (k == "backend") {
        backends(table(node, key), c);
      } else {
        unknown(k, key, "devices, plugins, dispatch, backend");
      }
    }
  }

 private:
  [[noreturn]] void fail(const toml::source_region &at, const std::string &key,
                         std::string reason) const {
    throw ConfigError(source_, static_cast<int>(at.begin.line), static_cast<int>(at.begin.column),
                      key, std::move(reason));
  }

  [[noreturn]] void unknown(const toml::key &k, const std::string &key,
                            std::string_view valid) const {
    fail(k.source(), key, "unknown key; valid keys here: " + std::string(valid));
  }

  std::string origin(const toml::key &k) const {
    return source_ + ':' + std::to_string(k.source().begin.line) + ':' +
           std::to_string(k.source().begin.column);
  }

  // The list of strings at `node` into `field`, recorded for `bp config`
  // with where the key stands.
  void read_list(std::vector<std::string> &field, const toml::key &k, const toml::node &node,
                 const std::string &key, Problem (*check)(std::string_view), Config &c) const {
    field = string_list(node, key, check);
    record(c, key, toml_array(field), origin(k));
  }

  // The boolean at `node` into `field`, recorded likewise.
  void read_bool(bool &field, const toml::key &k, const toml::node &node, const std::string &key,
                 Config &c) const {
    field = bool_value(node, key);
    record(c, key, toml_bool(field), origin(k));
  }

  const toml::table &table(const toml::node &node, const std::string &key) const {
    if (!node.is_table()) fail(node.source(), key, "expected a table, found " + type_name(node));
    return *node.as_table();
  }

  std::string string_value(const toml::node &node, const std::string &key,
                           Problem (*check)(std::string_view)) const {
    if (!node.is_string()) fail(node.source(), key, "expected a string, found " + type_name(node));
    std::string s = node.as_string()->get();
    if (Problem p = check(s)) fail(node.source(), key, *p);
    return s;
  }

  bool bool_value(const toml::node &node, const std::string &key) const {
    if (!node.is_boolean())
      fail(node.source(), key, "expected a boolean, found " + type_name(node));
    return node.as_boolean()->get();
  }

  std::vector<std::string> string_list(const toml::node &node, const std::string &key,
                                       Problem (*check)(std::string_view)) const {
    const toml::array *array = node.as_array();
    if (!array) fail(node.source(), key, "expected an array of strings, found " + type_name(node));
    std::vector<std::string> items;
    for (const toml::node &item : *array) {
      if (!item.is_string())
        fail(item.source(), key,
             "expected an array of strings, found " + type_name(item) + " at index " +
                 std::to_string(items.size()));
      items.push_back(item.as_string()->get());
    }
    if (auto p = detail::check_list(items, check))
      fail((*array)[p->index].source(), key, p->reason);
    return items;
  }

  void devices(const toml::table &t, Config &c) const {
    for (auto &&[k, node] : t) {
      std::string key = dotted_key({"devices", k.str()});
      if (k == "default") {
        c.default_device = string_value(node, key, detail::check_device);
        record(c, key, toml_string(c.default_device), origin(k));
      } else if (k == "fallback") {
        read_list(c.fallback, k, node, key, detail::check_name, c);
      } else if (k == "accelerator_kinds") {
        read_list(c.accelerator_kinds, k, node, key, detail::check_kind, c);
      } else {
        unknown(k, key, "default, fallback, accelerator_kinds");
      }
    }
  }

  void plugins(const toml::table &t, Config &c) const {
    for (auto &&[k, node] : t) {
      std::string key = dotted_key({"plugins", k.str()});
      if (k == "paths") {
        c.plugin_paths.clear();
        // Absolute now, so the file means the same whatever the current
        // directory is when the plugins are scanned.
        for (const std::string &p : string_list(node, key, detail::check_path))
          c.plugin_paths.push_back(fs::absolute(dir_ / p).lexically_normal().string());
        record(c, key, toml_array(c.plugin_paths), origin(k));
      } else if (k == "disabled") {
        read_list(c.plugins_disabled, k, node, key, detail::check_name, c);
      } else if (k == "required") {
        read_list(c.plugins_required, k, node, key, detail::check_name, c);
      } else if (node.is_table()) {
        if (Problem p = detail::check_name(k.str())) fail(k.source(), key, *p);
        plugin(std::string(k.str()), *node.as_table(), c);
      } else {
        unknown(k, key, "paths, disabled, required, or a table [plugins.<name>]");
      }
    }
  }

  void plugin(const std::string &name, const toml::table &t, Config &c) const {
    for (auto &&[k, node] : t) {
      std::string key = dotted_key({"plugins", name, k.str()});
      if (k == "probe_in_subprocess") {
        read_bool(c.probe_in_subprocess[name], k, node, key, c);
      } else if (k == "replace_builtin") {
        read_bool(c.replace_builtin[name], k, node, key, c);
      } else {
        unknown(k, key, "probe_in_subprocess, replace_builtin");
      }
    }
  }

  void dispatch(const toml::table &t, Config &c) const {
    for (auto &&[k, node] : t) {
      std::string key = dotted_key({"dispatch", k.str()});
      if (k == "host_fallback") {
        read_bool(c.host_fallback, k, node, key, c);
      } else if (k == "trace") {
        read_bool(c.trace, k, node, key, c);
      } else if (k == "fusion") {
        read_bool(c.fusion, k, node, key, c);
      } else {
        unknown(k, key, "fusion, host_fallback, trace");
      }
    }
  }

  // [backend.<name>]: options the core does not interpret, passed to the
  // backend as strings; so only their shape is checked here.
  void backends(const toml::table &t, Config &c) const {
    for (auto &&[name, options] : t) {
      std::string table_key = dotted_key({"backend", name.str()});
      if (Problem p = detail::check_name(name.str())) fail(name.source(), table_key, *p);
      for (auto &&[k, node] : table(options, table_key)) {
        std::string key = dotted_key({"backend", name.str(), k.str()});
        std::string value;  // as the backend gets it
        std::string text;   // as TOML writes it
        if (node.is_string()) {
          value = node.as_string()->get();
          text = toml_string(value);
        } else if (node.is_integer()) {
          value = text = std::to_string(node.as_integer()->get());
        } else if (node.is_floating_point()) {
          value = text = float_text(node.as_floating_point()->get());
        } else if (node.is_boolean()) {
          value = text = toml_bool(node.as_boolean()->get());
        } else {
          fail(node.source(), key,
               "expected a string, integer, float or boolean, found " + type_name(node));
        }
        c.backend_options[std::string(name.str())][std::string(k.str())] = value;
        record(c, key, text, origin(k));
      }
    }
  }

  std::string source_;
  fs::path dir_;
};

}  // namespace

Config load_string(std::string_view toml, std::string_view source_name) {
  detail::check_input_bounds(toml, source_name);
  toml::table root;
  try {
    root = toml::parse(toml, source_name);
  } catch (const toml::parse_error &e) {
    throw ConfigError(std::string(source_name), static_cast<int>(e.source().begin.line),
                      static_cast<int>(e.source().begin.column), "",
                      "syntax error: " + std::string(e.description()));
  }
  Config c = defaults();
  Reader(source_name, fs::path(source_name).parent_path()).read(root, c);
  return c;
}

}  // namespace bp::config
