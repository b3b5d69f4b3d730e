#include "plugins/plugin_probe.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin_validation.hpp"

namespace bp::core {

namespace {

// Runs in the child: only async-signal-tolerant work, then _exit.
[[noreturn]] void child(const std::string &path, int fd) {
  auto report = [fd](const std::string &msg, int code) {
    ssize_t ignored = write(fd, msg.data(), msg.size());
    (void)ignored;
    _exit(code);
  };
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) report(std::string("cannot load: ") + dlerror(), 2);
  auto get = reinterpret_cast<const bp_plugin_api *(*)(uint32_t, uint32_t)>(
      dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  if (!get) report(std::string("missing entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL, 3);
  std::string problem = plugin_validation::validate_plugin_api(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR));
  if (!problem.empty()) report(problem, 4);
  _exit(0);
}

}  // namespace

// A plugin whose constructor hangs must not stall the host forever.
constexpr int kProbeTimeoutMs = 30000;

std::string probe_plugin(const std::string &path) {
  int fds[2];
  // O_CLOEXEC: a fork+exec in another thread must not keep the pipe open.
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("probe: pipe failed: ") + strerror(errno);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::string("probe: fork failed: ") + strerror(errno);
  }
  if (pid == 0) {
    close(fds[0]);
    child(path, fds[1]);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  bool timed_out = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    int ready = poll(&p, 1, kProbeTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    message.append(buf, size_t(n));
  }
  close(fds[0]);
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return "the plugin did not finish loading within " + std::to_string(kProbeTimeoutMs / 1000) +
           " s in a probe process";
  if (waited != pid)
    return std::string("probe: cannot learn how the probe process ended: ") + strerror(errno);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "the plugin crashed while loading in a probe process (signal " + std::to_string(sig) +
           ", " + (sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig) : "unknown") + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return message.empty() ? "the probe process failed with status " + std::to_string(status)
                         : message;
}

}  // namespace bp::core
