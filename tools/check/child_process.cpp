#include "child_process.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "text.hpp"

namespace bpcheck {

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  buf[n] = 0;
  return buf;
}

void clear_cloexec(int fd) { fcntl(fd, F_SETFD, 0); }

// The lines of the result pipe as they arrive, each kept to kMaxEventBytes
// (the rest dropped, with a note of the line's length): whatever a plugin
// makes the child write, or writes to fd 3 itself, the parent holds a
// bounded line.
constexpr size_t kMaxEventBytes = 16384;

class EventLines {
 public:
  explicit EventLines(std::vector<std::pair<char, std::string>> &events) : events_(events) {}
  void add(const char *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (p[i] == '\n') {
        end_line();
      } else {
        if (line_.size() < kMaxEventBytes) line_ += p[i];
        ++length_;
      }
    }
  }
  // A last line without its newline (the child died while writing it).
  void finish() {
    if (length_) end_line();
  }

 private:
  void end_line() {
    if (length_ > line_.size()) line_ += format(" [... truncated: the line is %zu bytes]", length_);
    if (line_.size() >= 2) events_.emplace_back(line_[0], line_.substr(2));
    line_.clear();
    length_ = 0;
  }
  std::vector<std::pair<char, std::string>> &events_;
  std::string line_;
  size_t length_ = 0;
};

}  // namespace

ChildRun run_child(const std::vector<std::string> &args, int timeout_s) {
  ChildRun run;
  const double start = now();
  int result_pipe[2], output_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0 || pipe2(output_pipe, O_CLOEXEC) != 0) {
    run.output_tail = std::string("pipe failed: ") + std::strerror(errno);
    return run;
  }
  const std::string exe = self_exe();
  std::vector<std::string> argv_s = {exe, "check"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &s : argv_s) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    run.output_tail = std::string("fork failed: ") + std::strerror(errno);
    return run;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Its own process group keeps it out of the parent's signals: it dies
    // with the parent instead (a parent killed while a plugin hangs must not
    // leave the child running).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // Under AddressSanitizer the kit itself reports a plugin's crash by its
    // signal: let SIGSEGV and friends kill the child instead of being turned
    // into a sanitizer report and an abort (later options win). Leaks are
    // not checked at the child's exit: LeakSanitizer's tracer, run after
    // plugins were opened and closed again, can fault on their stale
    // thread-local storage (the crash use_tls=0 avoids in .ci/run), and
    // with handle_segv=0 that fault would be reported as the plugin's
    // crash. The parent still checks its own leaks at exit.
    for (const char *var : {"ASAN_OPTIONS", "UBSAN_OPTIONS"}) {
      const char *old = getenv(var);
      std::string value = old && *old ? std::string(old) + ":" : std::string();
      value += "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
      if (std::string(var) == "ASAN_OPTIONS") value += ":detect_leaks=0";
      setenv(var, value.c_str(), 1);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(output_pipe[1], 1);
    dup2(output_pipe[1], 2);
    int r = dup(result_pipe[1]);  // never 0..2, so dup2 to 3 always makes a new descriptor
    dup2(r, 3);
    clear_cloexec(0);
    clear_cloexec(1);
    clear_cloexec(2);
    clear_cloexec(3);
    execv(exe.c_str(), argv.data());
    const char msg[] = "bp check: exec of itself failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);
  close(result_pipe[1]);
  close(output_pipe[1]);
  EventLines results(run.events);
  std::string output;
  bool result_open = true, output_open = true;
  int status = 0;
  bool reaped = false;
  const double deadline = start + timeout_s;
  while (result_open || output_open) {
    pollfd fds[2];
    int nfds = 0;
    if (result_open) fds[nfds++] = {result_pipe[0], POLLIN, 0};
    if (output_open) fds[nfds++] = {output_pipe[0], POLLIN, 0};
    int ready = poll(fds, nfds_t(nfds), 200);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < nfds; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        if (fds[i].fd == result_pipe[0]) result_open = false;
        else output_open = false;
        continue;
      }
      if (fds[i].fd == result_pipe[0]) {
        results.add(buf, size_t(n));
      } else {
        output.append(buf, size_t(n));
        if (output.size() > 16384) output.erase(0, output.size() - 8192);
      }
    }
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (reaped && ready == 0) break;  // exited, and nothing more came (a grandchild may hold the pipes)
    if (!reaped && now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      run.timed_out = true;
      break;
    }
  }
  close(result_pipe[0]);
  close(output_pipe[0]);
  if (!reaped) {
    if (!run.timed_out && now() > deadline) {
      kill(-pid, SIGKILL);
      run.timed_out = true;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) {
    run.exited = true;
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  results.finish();
  run.output_tail = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  run.seconds = now() - start;
  return run;
}

}  // namespace bpcheck
