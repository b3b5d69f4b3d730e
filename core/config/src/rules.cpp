#include "rules.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "errors/echo.hpp"

namespace bp::config::detail {
namespace {

bool is_bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Problem check_name(std::string_view name) {
  if (name.empty()) return "empty name";
  bool letter_first = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z');
  if (!letter_first || !std::all_of(name.begin(), name.end(), is_bare_key_char))
    return quoted(name) +
           " is not a name (letters, digits, '-' and '_', starting with a letter)";
  return std::nullopt;
}

Problem check_device(std::string_view device) {
  if (device == "auto") return std::nullopt;
  // "default" is what bp_device_get resolves through this very key.
  if (device == "default")
    return std::string("\"default\" names this key itself; use \"auto\" or a device");
  std::string_view prefix = device.substr(0, device.find(':'));
  bool ok = prefix != "auto" && !check_name(prefix);
  if (ok && prefix.size() < device.size()) {
    std::string_view index = device.substr(prefix.size() + 1);
    // Digits only: no sign, no spaces; and the index must fit the C API's int32_t.
    ok = is_digits(index) && (index.size() < 10 || (index.size() == 10 && index <= "2147483647"));
  }
  if (ok) return std::nullopt;
  return quoted(device) +
         " is not a device: expected \"auto\", \"cpu\", \"gpu\", \"<prefix>\" or "
         "\"<prefix>:<index>\" with a non-negative integer index";
}

Problem check_kind(std::string_view kind) {
  auto colon = kind.rfind(':');
  std::string_view base = colon == std::string_view::npos ? kind : kind.substr(colon + 1);
  bool ok = base == "gpu" || base == "accelerator" || base == "cpu";
  if (ok && colon != std::string_view::npos) ok = !check_name(kind.substr(0, colon));
  if (ok) return std::nullopt;
  return quoted(kind) +
         " is not a device kind: expected \"gpu\", \"accelerator\", \"cpu\" or \"<prefix>:<kind>\"";
}

Problem check_path(std::string_view path) {
  if (path.empty()) return "empty path";
  return std::nullopt;
}

std::optional<ListProblem> check_list(const std::vector<std::string> &items,
                                      Problem (*check)(std::string_view)) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (Problem p = check(items[i])) return ListProblem{i, *p};
    if (std::find(items.begin(), items.begin() + i, items[i]) != items.begin() + i)
      return ListProblem{i, quoted(items[i]) + " appears twice"};
  }
  return std::nullopt;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;  // UTF-8 passes through as it is
        }
    }
  }
  return out + '"';
}

std::string quoted(std::string_view s) { return toml_string(core::echo(s)); }

std::string toml_array(const std::vector<std::string> &items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_string(items[i]);
  return out + ']';
}

std::string toml_bool(bool b) { return b ? "true" : "false"; }

std::string dotted_key(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts) {
    if (!out.empty()) out += '.';
    bool bare = !part.empty() && std::all_of(part.begin(), part.end(), is_bare_key_char);
    out += bare ? std::string(part) : toml_string(part);
  }
  return out;
}

void record(Config &config, std::string key, std::string value, std::string origin) {
  auto &entries = config.entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const Entry &e, const std::string &k) { return e.key < k; });
  if (it != entries.end() && it->key == key) {
    it->value = std::move(value);
    it->origin = std::move(origin);
  } else {
    entries.insert(it, Entry{std::move(key), std::move(value), std::move(origin)});
  }
}

}  // namespace bp::config::detail
