#include "plugins/plugin_strings.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace bp::core {

namespace {

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

// Copies n bytes from this process's own address `from`; false on a fault.
bool read_own(void *to, const void *from, size_t n) {
  iovec local{to, n}, remote{const_cast<void *>(from), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

bool write_own(void *to, const void *from, size_t n) {
  iovec local{const_cast<void *>(from), n}, remote{to, n};
  return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

}  // namespace

std::string copy_plugin_string(const char *p) {
  if (!p) return {};
  std::string out;
  char chunk[512];
  while (out.size() < kMaxPluginString) {
    // Never across a page boundary: the next page may be unmapped.
    const uintptr_t at = reinterpret_cast<uintptr_t>(p) + out.size();
    size_t n = std::min<size_t>({sizeof chunk, page_size() - at % page_size(), kMaxPluginString - out.size()});
    if (!read_own(chunk, reinterpret_cast<const void *>(at), n)) return out + " [... unreadable]";
    const void *nul = std::memchr(chunk, '\0', n);
    if (nul) return out.append(chunk, size_t(static_cast<const char *>(nul) - chunk));
    out.append(chunk, n);
  }
  return out + " [... truncated]";
}

bool memory_accessible(void *p, size_t bytes, bool write) {
  if (bytes == 0) return true;
  auto *base = static_cast<unsigned char *>(p);
  if (!base || reinterpret_cast<uintptr_t>(base) + bytes < reinterpret_cast<uintptr_t>(base)) return false;
  auto probe = [write](unsigned char *at) {
    unsigned char byte;
    if (!read_own(&byte, at, 1)) return false;
    return !write || write_own(at, &byte, 1);  // writes back what is there
  };
  // The ends and up to 62 pages between them: a checked copy of gigabytes
  // must not cost a system call per page.
  const size_t pages = (bytes + page_size() - 1) / page_size();
  const size_t step = pages > 64 ? pages / 63 : 1;
  for (size_t k = 0; k < pages; k += step)
    if (!probe(base + k * page_size())) return false;
  return probe(base + bytes - 1);
}

}  // namespace bp::core
