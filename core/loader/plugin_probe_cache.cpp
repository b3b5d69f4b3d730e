#include "loader/plugin_probe_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "backplane/plugin.h"

namespace fs = std::filesystem;

namespace bp::core {

namespace {

std::string cache_dir() {
  if (const char *d = std::getenv("BACKPLANE_CACHE_DIR"); d && *d) return d;
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/backplane";
  if (const char *d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/backplane";
  return {};
}

// Everything a verdict depends on, one line; empty when the file cannot be
// identified.
std::string identity(const std::string &path, const PluginOptions &options) {
  std::error_code ec;
  fs::path canonical = fs::canonical(path, ec);
  struct stat st {};
  if (ec || ::stat(canonical.c_str(), &st) != 0) return {};
  std::ostringstream id;
  id << "abi " << BP_PLUGIN_ABI_MAJOR << "." << BP_PLUGIN_ABI_MINOR << " file " << canonical.string() << " dev "
     << st.st_dev << " ino " << st.st_ino << " size " << st.st_size << " mtime " << st.st_mtim.tv_sec << "."
     << st.st_mtim.tv_nsec;
  for (const auto &[k, v] : options) id << " option " << k.size() << ":" << k << "=" << v.size() << ":" << v;
  return id.str();
}

fs::path entry_file(const std::string &dir, const std::string &id) {
  char name[40];
  std::snprintf(name, sizeof name, "probe-%016zx", std::hash<std::string>()(id));
  return fs::path(dir) / name;
}

}  // namespace

std::optional<std::string> cached_probe(const std::string &path, const PluginOptions &options) {
  const std::string dir = cache_dir(), id = identity(path, options);
  if (dir.empty() || id.empty()) return std::nullopt;
  const fs::path file = entry_file(dir, id);
  std::ifstream in(file);
  std::string stored_id, verdict;
  // Line 1 the identity (a hash collision reads as "never probed"), line 2
  // "passed" or "rejected", then the reason.
  if (!std::getline(in, stored_id) || stored_id != id || !std::getline(in, verdict)) return std::nullopt;
  if (verdict == "passed") return std::string();
  if (verdict != "rejected") return std::nullopt;
  std::string reason((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (reason.empty()) return std::nullopt;
  // A hang may have been the host's (a lock held across fork): say how to
  // have the plugin probed again.
  return reason + " (a cached verdict: delete " + file.string() + " to probe again)";
}

void store_probe(const std::string &path, const PluginOptions &options, const std::string &verdict) {
  const std::string dir = cache_dir(), id = identity(path, options);
  if (dir.empty() || id.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Written whole under a temporary name, then renamed: a reader in another
  // process sees the old entry or the new one, never half of one.
  const fs::path final_path = entry_file(dir, id);
  const fs::path tmp = final_path.string() + "." + std::to_string(getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << id << "\n" << (verdict.empty() ? "passed" : "rejected") << "\n" << verdict;
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace bp::core
