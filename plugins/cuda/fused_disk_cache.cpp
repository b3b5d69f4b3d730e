#include "fused_disk_cache.hpp"

#include <nvrtc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdlib.h>

#include "fused_headers.hpp"

namespace bp_cuda {

namespace {

constexpr const char *kMagic = "backplane cuda fused kernel 1\n";

// FNV-1a: names files; equality is decided by the identity stored inside.
uint64_t fnv1a(const std::string &text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

// mkdir -p; false when the directory cannot be made.
bool make_dirs(const std::string &path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at < path.size() && path[at] != '/') continue;
    const std::string prefix = path.substr(0, at);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

std::string entry_path(const std::string &dir, const std::string &identity) {
  return dir + "/" + hex(fnv1a(identity)) + ".kernel";
}

void put_size(std::string &out, uint64_t v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); }

bool get_size(const std::string &in, size_t &at, uint64_t &v) {
  if (in.size() - at < sizeof v) return false;
  in.copy(reinterpret_cast<char *>(&v), sizeof v, at);
  at += sizeof v;
  return true;
}

}  // namespace

std::string fused_cache_dir() {
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/backplane/cuda";
  const char *home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/backplane/cuda";
  return "";
}

std::string fused_identity(const std::string &source, const std::string &target) {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string headers;
  const FusedHeader *h = fused_headers();
  for (int i = 0; i < kFusedHeaderCount; ++i) headers += std::string(h[i].name) + '\n' + h[i].text + '\n';
  std::string flags;
  for (const char *flag : kFusedFlags) flags += std::string(" ") + flag;
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + "\ntarget " + target + "\nflags" + flags +
         "\nheaders " + hex(fnv1a(headers)) + "\n" + source;
}

bool load_fused_image(const std::string &dir, const std::string &identity, FusedImage &image) {
  if (dir.empty()) return false;
  std::ifstream file(entry_path(dir, identity), std::ios::binary);
  if (!file) return false;
  const std::string in((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string magic = kMagic;
  size_t at = magic.size();
  uint64_t identity_size = 0, cubin = 0, target_size = 0, code_size = 0;
  if (in.compare(0, magic.size(), magic) != 0 || !get_size(in, at, identity_size) || !get_size(in, at, cubin) ||
      !get_size(in, at, target_size) || !get_size(in, at, code_size) ||
      in.size() - at != identity_size + target_size + code_size || identity_size != identity.size() ||
      in.compare(at, identity_size, identity) != 0)
    return false;
  at += identity_size;
  image.cubin = cubin != 0;
  image.target = in.substr(at, target_size);
  at += target_size;
  image.code.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.end());
  return !image.code.empty();
}

void store_fused_image(const std::string &dir, const std::string &identity, const FusedImage &image) {
  if (dir.empty() || !make_dirs(dir)) return;
  std::string out = kMagic;
  put_size(out, identity.size());
  put_size(out, image.cubin ? 1 : 0);
  put_size(out, image.target.size());
  put_size(out, image.code.size());
  out += identity;
  out += image.target;
  out.append(image.code.data(), image.code.size());
  const std::string path = entry_path(dir, identity);
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(&temporary[0]);
  if (fd < 0) return;
  size_t written = 0;
  while (written < out.size()) {
    const ssize_t n = ::write(fd, out.data() + written, out.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const bool closed = ::close(fd) == 0;
  if (written != out.size() || !closed || std::rename(temporary.c_str(), path.c_str()) != 0)
    std::remove(temporary.c_str());
}

}  // namespace bp_cuda
