#include "safetensors/source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors/error.hpp"
#include "safetensors/format.hpp"

namespace bp::core::safetensors {

namespace {

class FileSource final : public Source {
 public:
  FileSource(std::string path, int fd, uint64_t size) : Source(std::move(path), size), fd_(fd) {}
  ~FileSource() override { ::close(fd_); }

  void read(uint64_t offset, uint64_t n, void *dst, const std::string &what) const override {
    auto *out = static_cast<char *>(dst);
    uint64_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, out + done, size_t(n - done), off_t(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0)
        fail(BP_ERR_IO, shown(name(), 4096) + ": reading " + what + " at offset " +
                            std::to_string(offset + done) + ": " + std::strerror(errno));
      if (got == 0)
        fail(BP_ERR_IO, shown(name(), 4096) + ": the file ends at offset " + std::to_string(offset + done) +
                            " while reading " + what + " (bytes " + std::to_string(offset) + ".." +
                            std::to_string(offset + n) + "): it changed after it was opened");
      done += uint64_t(got);
    }
  }

 private:
  int fd_;
};

class MemorySource final : public Source {
 public:
  MemorySource(const void *data, uint64_t n)
      : Source("<memory>", n), bytes_(static_cast<const char *>(data), static_cast<const char *>(data) + n) {}

  void read(uint64_t offset, uint64_t n, void *dst, const std::string &) const override {
    // The header's checks keep every read inside the bytes.
    if (offset > bytes_.size() || n > bytes_.size() - offset)
      fail(BP_ERR_INTERNAL, "safetensors: a read of bytes " + std::to_string(offset) + ".." +
                                std::to_string(offset + n) + " past the end of the memory");
    if (n) std::memcpy(dst, bytes_.data() + offset, size_t(n));
  }

 private:
  std::vector<char> bytes_;
};

}  // namespace

std::unique_ptr<Source> open_file(const char *fn, const std::string &path) {
  const std::string where = std::string(fn) + ": " + shown(path, 4096);
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) fail(BP_ERR_IO, where + ": cannot open it: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail(BP_ERR_IO, where + ": cannot stat it: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(BP_ERR_IO, where + ": not a regular file");
  }
  return std::make_unique<FileSource>(path, fd, uint64_t(st.st_size));
}

std::unique_ptr<Source> copy_of_memory(const void *data, uint64_t n) {
  return std::make_unique<MemorySource>(data, n);
}

}  // namespace bp::core::safetensors
