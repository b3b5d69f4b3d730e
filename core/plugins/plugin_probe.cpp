#include "plugins/plugin_probe.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugins/api_validation.hpp"

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
  std::string problem = validate_plugin_api(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR));
  if (!problem.empty()) report(problem, 4);
  _exit(0);
}

}  // namespace

std::string probe_plugin(const std::string &path) {
  int fds[2];
  if (pipe(fds) != 0) return std::string("probe: pipe failed: ") + strerror(errno);
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
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) message.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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
