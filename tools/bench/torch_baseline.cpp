#include "torch_baseline.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "json_output.hpp"

namespace bptool::bench {

namespace {

constexpr const char kProgram[] = "bp-bench-torch";

// The directory of the running executable, "" when /proc cannot tell.
std::string own_directory() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string path(buf, size_t(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// Runs argv, its standard output captured, its standard error left to ours;
// false with *why when it cannot be run or does not exit with status 0.
bool run_capturing(const std::vector<std::string> &argv, std::string *out, std::string *why) {
  int fds[2];
  if (pipe(fds) != 0) {
    *why = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    *why = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n > 0) out->append(buf, size_t(n));
    else if (errno != EINTR) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  *why = argv[0] + (WIFEXITED(status) ? " exited with status " + std::to_string(WEXITSTATUS(status))
                                      : " was killed by signal " + std::to_string(WTERMSIG(status)));
  return false;
}

}  // namespace

TorchBaseline run_torch_baseline(const std::string &what, int trials, double target_s, int threads) {
  TorchBaseline r;
  const std::string dir = own_directory();
  const std::string program = dir + "/" + kProgram;
  if (dir.empty() || access(program.c_str(), X_OK) != 0) {
    r.why_not = std::string(kProgram) + " is not beside bp (it is built only where libtorch is installed)";
    return r;
  }
  std::string out;
  char target[32];
  std::snprintf(target, sizeof target, "%g", target_s);
  if (!run_capturing({program, "--measure", what, "--threads", std::to_string(threads), "--trials",
                      std::to_string(trials), "--target", target},
                     &out, &r.why_not))
    return r;
  const Json doc = Json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ns_per_op") || !doc["ns_per_op"].is_number()) {
    r.why_not = program + " printed no JSON object with ns_per_op";
    return r;
  }
  r.ns_per_op = doc["ns_per_op"].get<double>();
  if (doc.contains("torch_version") && doc["torch_version"].is_string()) r.version = doc["torch_version"].get<std::string>();
  if (doc.contains("blas_threads") && doc["blas_threads"].is_string())
    r.blas_threads = doc["blas_threads"].get<std::string>();
  return r;
}

}  // namespace bptool::bench
