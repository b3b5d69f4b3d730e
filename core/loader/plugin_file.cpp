#include "loader/plugin_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace bp::core {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device file";
  return "not a regular file";
}

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr const char *kMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr const char *kMachineName = "AArch64";
#else
#error "plugin_file.cpp: add this machine's ELF e_machine"
#endif

bool read_at(int fd, void *out, size_t bytes, uint64_t offset) {
  return ::pread(fd, out, bytes, off_t(offset)) == ssize_t(bytes);
}

}  // namespace

std::string plugin_file_problem(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return std::string("cannot read the file: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "only regular files are loaded; this is " + file_type(st.st_mode);
  // O_NONBLOCK: had the file been swapped for a FIFO since the stat, the open
  // still returns at once (and fstat below sees it).
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return std::string("cannot read the file: ") + std::strerror(errno);
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "only regular files are loaded";
  const uint64_t size = uint64_t(st.st_size);
  Elf64_Ehdr eh{};
  if (!read_at(fd.get(), &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF file (" + std::to_string(size) + " bytes)";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN || eh.e_machine != kMachine ||
      eh.e_phentsize != sizeof(Elf64_Phdr))
    return std::string("not a 64-bit ") + kMachineName + " shared object";
  const uint64_t ph_end = eh.e_phoff + uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
  if (eh.e_phnum == 0 || eh.e_phoff > size || ph_end > size)
    return "truncated: its program headers end past the file's " + std::to_string(size) + " bytes";
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read_at(fd.get(), ph.data(), ph.size() * sizeof(Elf64_Phdr), eh.e_phoff))
    return "cannot read its program headers";
  for (const Elf64_Phdr &p : ph)
    if (p.p_type == PT_LOAD && (p.p_offset > size || p.p_filesz > size - p.p_offset))
      return "truncated: a loadable segment ends at byte " + std::to_string(p.p_offset + p.p_filesz) +
             " of a " + std::to_string(size) + "-byte file";
  return {};
}

}  // namespace bp::core
