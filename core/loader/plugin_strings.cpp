#include "loader/plugin_strings.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>

#include "bounded_read.hpp"

namespace bp::core {

namespace {

size_t page_size() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

bool write_own(void *to, const void *from, size_t n) {
  iovec local{const_cast<void *>(from), n}, remote{to, n};
  return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

}  // namespace

std::string copy_plugin_string(const char *p) {
  using plugin_validation::StringEnd;
  if (!p) return {};
  std::string out;
  switch (plugin_validation::read_plugin_string(p, kMaxPluginString, out)) {
    case StringEnd::kNul: return out;
    case StringEnd::kUnreadable: return out + " [... unreadable]";
    case StringEnd::kLimit: break;
  }
  return out + " [... truncated]";
}

bool memory_accessible(void *p, size_t bytes, bool write) {
  if (bytes == 0) return true;
  auto *base = static_cast<unsigned char *>(p);
  if (!base || reinterpret_cast<uintptr_t>(base) + bytes < reinterpret_cast<uintptr_t>(base)) return false;
  auto probe = [write](unsigned char *at) {
    unsigned char byte;
    if (!plugin_validation::read_own(&byte, at, 1)) return false;
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
