#include "paths.hpp"

#include <cerrno>
#include <cstring>

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bpcheck {

std::string absolute(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd)) return std::string(cwd) + "/" + path;
  return path;
}

std::string real_path(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  return path;
}

bool file_exists(const std::string &path) { return file_problem(path).empty(); }

std::string file_problem(const std::string &path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "no such file";
    if (errno == ELOOP) return "a loop of symbolic links";
    return std::strerror(errno);
  }
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return "a directory, not a plugin file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO, not a plugin file";
  return "not a regular file";
}

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string base_name(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace bpcheck
