#include "builtin_plugins.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "backplane/backplane.h"
#include "backplane/plugin.h"
#include "paths.hpp"
#include "plugin_validation.hpp"

namespace fs = std::filesystem;

namespace bpcheck {

namespace {

bool same_bytes(const std::string &a, const std::string &b) {
  std::error_code ec;
  if (fs::file_size(a, ec) != fs::file_size(b, ec) || ec) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  return std::equal(std::istreambuf_iterator<char>(fa), std::istreambuf_iterator<char>(),
                    std::istreambuf_iterator<char>(fb), std::istreambuf_iterator<char>());
}

}  // namespace

std::string builtin_plugin_dir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&bp_api_version), &info) || !info.dli_fname) return {};
  return dir_of(absolute(info.dli_fname)) + "/backplane/plugins";
}

std::vector<BuiltinBackend> builtin_backends(const std::string &checked) {
  std::vector<BuiltinBackend> out;
  const std::string dir = builtin_plugin_dir();
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("libbackplane-", 0) == 0 && entry.path().extension() == ".so") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string &path : files) {
    if (!file_exists(path) || fs::equivalent(path, checked, ec) || same_bytes(path, checked)) continue;
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) continue;
    auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
    const bp_plugin_api *api = get ? get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) : nullptr;
    if (bp::plugin_validation::validate_plugin_api(api).empty()) out.push_back({path, api->name, api->device_prefix});
  }
  return out;
}

bool another_build(const BuiltinBackend &b, const std::string &checked, const std::string &name,
                   const std::string &prefix) {
  return b.name == name && b.prefix == prefix && base_name(b.path) == base_name(checked);
}

std::string builtin_namesake(const std::string &checked) {
  const std::string dir = builtin_plugin_dir();
  const std::string file = base_name(checked);
  if (dir.empty() || real_path(dir_of(real_path(checked))) == real_path(dir)) return {};
  if (file.size() <= 16 || file.rfind("libbackplane-", 0) != 0 || file.compare(file.size() - 3, 3, ".so") != 0)
    return {};
  const std::string namesake = dir + "/" + file;
  return file_exists(namesake) ? namesake : std::string();
}

std::string stand_in_toml(const std::string &checked) {
  const std::string file = base_name(checked);
  const std::string name = file.substr(13, file.size() - 16);  // libbackplane-<name>.so
  return "[plugins.\"" + name + "\"]\nreplace_builtin = true\n";
}

}  // namespace bpcheck
