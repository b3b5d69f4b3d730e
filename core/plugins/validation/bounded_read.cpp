#include "bounded_read.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace bp::plugin_validation {

bool read_own(void *to, const void *from, size_t n) {
  iovec local{to, n}, remote{const_cast<void *>(from), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(n);
}

StringEnd read_plugin_string(const char *p, size_t limit, std::string &out) {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  char chunk[512];
  for (size_t done = 0; done < limit;) {
    // Never across a page boundary: the next page may be unmapped.
    const uintptr_t at = reinterpret_cast<uintptr_t>(p) + done;
    const size_t n = std::min<size_t>({sizeof chunk, page - at % page, limit - done});
    if (!read_own(chunk, reinterpret_cast<const void *>(at), n)) return StringEnd::kUnreadable;
    if (const void *nul = std::memchr(chunk, '\0', n)) {
      out.append(chunk, size_t(static_cast<const char *>(nul) - chunk));
      return StringEnd::kNul;
    }
    out.append(chunk, n);
    done += n;
  }
  return StringEnd::kLimit;
}

}  // namespace bp::plugin_validation
