#include "plugin_validation.hpp"

#include <cstring>

#include "bounded_read.hpp"

namespace bp::plugin_validation {

namespace {

const char kNameRule[] = "made of [a-z0-9_-], 1 to 63 characters";

// The longest version string a table may point at, NUL excluded.
constexpr size_t kMaxVersion = 4095;

// A plugin's string as it appears in a message: quoted, at most 64
// characters, control characters shown as '?', "..." when there is more.
std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (size_t n = 0; n < s.size() && n < 64; ++n) out += static_cast<unsigned char>(s[n]) < 0x20 ? '?' : s[n];
  return out + (s.size() > 64 ? "...\"" : "\"");
}

std::string host_abi() {
  return std::to_string(BP_PLUGIN_ABI_MAJOR) + "." + std::to_string(BP_PLUGIN_ABI_MINOR);
}

// Reads the table's string `field` into text with a bound; "" when it ends
// in a NUL within `limit` bytes, else why not, starting with `field`.
std::string read_field(const char *field, const char *value, size_t limit, std::string &text) {
  if (!value) return std::string(field) + " is NULL";
  switch (read_plugin_string(value, limit, text)) {
    case StringEnd::kNul: return {};
    case StringEnd::kUnreadable:
      return std::string(field) + " points to memory this process cannot read" +
             (text.empty() ? std::string() : " (after " + std::to_string(text.size()) + " bytes and no NUL)");
    case StringEnd::kLimit: break;
  }
  return std::string(field) + " " + quoted(text) + " has no NUL within its first " + std::to_string(limit) +
         " bytes";
}

// "" when `value` is a valid name, read into text; else why not, starting
// with `field`.
std::string check_name(const char *field, const char *value, std::string &text) {
  // 65 bytes: one past the longest name with its NUL, so that a longer
  // name is refused in the words of the rule.
  std::string bad = read_field(field, value, 65, text);
  if (!bad.empty() && !(value && text.size() == 65)) return bad;
  if (!valid_backend_name(text.c_str())) return std::string(field) + " " + quoted(text) + " is not " + kNameRule;
  return {};
}

}  // namespace

bool valid_backend_name(const char *name) {
  if (!name) return false;
  size_t n = std::strlen(name);
  if (n == 0 || n > 63) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

std::string abi_version(const bp_plugin_api &api) {
  return std::to_string(api.abi_major) + "." + std::to_string(api.abi_minor);
}

std::string newer_minor_note(const bp_plugin_api &api) {
  if (api.abi_major != BP_PLUGIN_ABI_MAJOR || api.abi_minor <= BP_PLUGIN_ABI_MINOR) return {};
  return "built for ABI " + abi_version(api) + ", newer than this host's " + host_abi() +
         ": the fields past " + host_abi() + " are not used";
}

std::string conformance_problem(const bp_plugin_api &api) {
  if (!api.version) return "version is NULL; it must point to the plugin's own version string (e.g. \"0.1.0\")";
  if (!*api.version) return "version is an empty string; it must be the plugin's own version (e.g. \"0.1.0\")";
  return {};
}

std::string validate_plugin_api(const bp_plugin_api *api) {
  if (!api) return "bp_plugin_get_api returned NULL (the plugin refused host ABI " + host_abi() + ")";
  if (api->abi_major != BP_PLUGIN_ABI_MAJOR)
    return "ABI major version " + std::to_string(api->abi_major) + " found, this core needs " +
           std::to_string(BP_PLUGIN_ABI_MAJOR);
  if (api->struct_size < BP_PLUGIN_API_SIZE_1_0)
    return "struct_size " + std::to_string(api->struct_size) +
           " is smaller than a version 1.0 table (" + std::to_string(BP_PLUGIN_API_SIZE_1_0) +
           " bytes); the table says ABI " + abi_version(*api);
  std::string name, prefix, version;
  std::string bad = check_name("backend name", api->name, name);
  if (!bad.empty()) return bad;
  bad = check_name("device_prefix", api->device_prefix, prefix);
  if (!bad.empty()) return bad;
  for (const char *reserved : {"gpu", "auto", "default"})
    if (prefix == reserved)
      return "device_prefix " + quoted(reserved) +
             " is reserved (gpu, auto and default name devices of any backend)";
  // A NULL version is conformance_problem's, not a reason to refuse.
  if (api->version && !(bad = read_field("version", api->version, kMaxVersion + 1, version)).empty()) return bad;
  struct Required {
    const void *fn;
    const char *name;
  };
  const Required required[] = {
      {reinterpret_cast<const void *>(api->last_error), "last_error"},
      {reinterpret_cast<const void *>(api->init), "init"},
      {reinterpret_cast<const void *>(api->device_count), "device_count"},
      {reinterpret_cast<const void *>(api->device_info), "device_info"},
      {reinterpret_cast<const void *>(api->alloc), "alloc"},
      {reinterpret_cast<const void *>(api->free), "free"},
      {reinterpret_cast<const void *>(api->write), "write"},
      {reinterpret_cast<const void *>(api->read), "read"},
      {reinterpret_cast<const void *>(api->supports), "supports"},
      {reinterpret_cast<const void *>(api->execute), "execute"},
      {reinterpret_cast<const void *>(api->synchronize), "synchronize"},
  };
  for (const Required &r : required)
    if (!r.fn) return std::string("required entry '") + r.name + "' is NULL";
  return {};
}

}  // namespace bp::plugin_validation
