#include "bounded_read.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace bp::plugin_validation {

bool read_through_pipe(void *to, const void *from, size_t n) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < n;) {
    // At most a page at a time: well inside the pipe's capacity.
    const size_t k = std::min<size_t>(n - done, 4096);
    const ssize_t w = write(fds[1], static_cast<const char *>(from) + done, k);
    ok = w > 0 && read(fds[0], static_cast<char *>(to) + done, size_t(w)) == w;
    if (ok) done += size_t(w);
  }
  close(fds[0]);
  close(fds[1]);
  return ok;
}

bool read_own(void *to, const void *from, size_t n) {
  static std::atomic<bool> refused{false};
  if (!refused.load(std::memory_order_relaxed)) {
    iovec local{to, n}, remote{const_cast<void *>(from), n};
    const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (got == ssize_t(n)) return true;
    if (got >= 0 || (errno != ENOSYS && errno != EPERM)) return false;
    refused.store(true, std::memory_order_relaxed);
  }
  return read_through_pipe(to, from, n);
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
