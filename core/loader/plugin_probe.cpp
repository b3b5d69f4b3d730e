#include "loader/plugin_probe.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "devices/registry.hpp"
#include "plugin_validation.hpp"
#include "loader/plugin_scratch.hpp"

namespace bp::core {

namespace {

// What the child writes last when every step passed; a child that exits 0
// without it was ended by the plugin (exit() in init, say).
constexpr char kPassed[] = "\x01passed";

// Runs in the child, then _exits. The host's signal handlers (a test
// framework's, a language runtime's) must not run in here: a crash is the
// verdict, reported by the exit status.
[[noreturn]] void child(const std::string &path, const PluginOptions &options, int fd) {
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTERM, SIGPIPE}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  auto report = [fd](const std::string &msg, int code) {
    ssize_t ignored = write(fd, msg.data(), msg.size());
    (void)ignored;
    _exit(code);
  };
  // Every step that returns, with an error or not, passes: the host then
  // repeats it and reports the error itself. Only a crash, an exit or a hang
  // rejects the plugin.
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) report(kPassed, 0);
  auto get = reinterpret_cast<const bp_plugin_api *(*)(uint32_t, uint32_t)>(
      dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  if (!get) report(kPassed, 0);
  const bp_plugin_api *api = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  if (!plugin_validation::validate_plugin_api(api).empty()) report(kPassed, 0);
  std::vector<const char *> keys, values;
  for (const auto &kv : options) {
    keys.push_back(kv.first.c_str());
    values.push_back(kv.second.c_str());
  }
  if (api->init(keys.data(), values.data(), int32_t(keys.size())) != BP_OK) report(kPassed, 0);
  int32_t count = 0;
  const char *why = nullptr;
  if (api->device_count(&count, &why) != BP_OK) report(kPassed, 0);
  for (int32_t i = 0; i < count && i < Registry::kMaxDevicesPerBackend; ++i) {
    // Guarded as in the host (Backend::device_info), which then tells a
    // write past the struct from a crash.
    PluginScratch scratch(sizeof(bp_plugin_device_info));
    bp_plugin_device_info *info = scratch.as<bp_plugin_device_info>();
    info->struct_size = sizeof *info;
    if (api->device_info(i, info) != BP_OK) break;
  }
  report(kPassed, 0);
  _exit(0);  // not reached: report exits
}

}  // namespace

std::string probe_plugin(const std::string &path, const PluginOptions &options) {
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
    child(path, options, fds[1]);
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
    return "the plugin did not finish loading and starting within " + std::to_string(kProbeTimeoutMs / 1000) +
           " s in a probe process";
  if (waited != pid)
    return std::string("probe: cannot learn how the probe process ended: ") + strerror(errno);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "the plugin crashed while loading or starting in a probe process (signal " + std::to_string(sig) +
           ", " + (sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig) : "unknown") + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && message == kPassed) return {};
  if (WIFEXITED(status) && message.empty())
    return "the plugin ended the probe process (exit status " + std::to_string(WEXITSTATUS(status)) +
           ") while loading or starting";
  return message;
}

}  // namespace bp::core
