// fused_disk.cpp — the on-disk kernel cache's files. A file is
//   "BPOCLBIN1\n", identity size (8 bytes), identity, binary size (8 bytes),
//   FNV-1a hash of the binary (8 bytes), binary
// so a truncated or damaged file is recognised before the driver sees it.
#include "fused_disk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace bp_ocl {

namespace {

constexpr char kMagic[] = "BPOCLBIN1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;

uint64_t fnv1a(const void *data, size_t size, uint64_t h = 0xcbf29ce484222325ull) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void put_u64(std::string &out, uint64_t v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); }

bool get_u64(const std::string &in, size_t &at, uint64_t &v) {
  if (in.size() - at < sizeof v) return false;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return true;
}

// mkdir -p, with the mode the XDG spec asks for new cache directories.
bool make_dirs(const std::string &dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = dir.substr(0, slash);
    if (!part.empty() && ::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

bool write_all(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string default_kernel_cache_dir() {
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/backplane/opencl";  // the spec ignores relative ones
  const char *home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.cache/backplane/opencl";
  return "";
}

DiskEntry disk_entry(const std::string &dir, const std::string &identity) {
  // Two differently seeded hashes: 128 bits of name.
  const uint64_t a = fnv1a(identity.data(), identity.size());
  const uint64_t b = fnv1a(identity.data(), identity.size(), 0x84222325cbf29ce4ull);
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return {dir + "/" + name + ".clbin", identity};
}

std::optional<std::vector<unsigned char>> load_binary(const DiskEntry &entry) {
  std::ifstream file(entry.path, std::ios::binary);
  if (!file) return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad() || bytes.compare(0, kMagicSize, kMagic) != 0) return std::nullopt;
  size_t at = kMagicSize;
  uint64_t identity_size = 0, size = 0, hash = 0;
  if (!get_u64(bytes, at, identity_size) || bytes.size() - at < identity_size ||
      bytes.compare(at, identity_size, entry.identity) != 0 || identity_size != entry.identity.size())
    return std::nullopt;
  at += identity_size;
  if (!get_u64(bytes, at, size) || !get_u64(bytes, at, hash) || bytes.size() - at != size || size == 0 ||
      fnv1a(bytes.data() + at, size) != hash)
    return std::nullopt;
  return std::vector<unsigned char>(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
}

void store_binary(const DiskEntry &entry, const std::vector<unsigned char> &binary) noexcept {
  try {
    if (binary.empty()) return;
    const size_t slash = entry.path.rfind('/');
    if (slash != std::string::npos && slash > 0 && !make_dirs(entry.path.substr(0, slash))) return;
    std::string bytes(kMagic, kMagicSize);
    put_u64(bytes, entry.identity.size());
    bytes += entry.identity;
    put_u64(bytes, binary.size());
    put_u64(bytes, fnv1a(binary.data(), binary.size()));
    bytes.append(reinterpret_cast<const char *>(binary.data()), binary.size());
    // Unique among this process's threads and other processes.
    static std::atomic<uint64_t> counter{0};
    const std::string temp = entry.path + ".tmp." + std::to_string(::getpid()) + "." +
                             std::to_string(counter.fetch_add(1));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const bool written = write_all(fd, bytes);
    const bool closed = ::close(fd) == 0;
    if (!written || !closed || std::rename(temp.c_str(), entry.path.c_str()) != 0) ::unlink(temp.c_str());
  } catch (...) {
    // Out of memory composing the file: no file, as for any other failure.
  }
}

}  // namespace bp_ocl
