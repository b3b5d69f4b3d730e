// bp-bench-isolation PLUGIN.so: what running an untrusted plugin in a process
// of its own would cost per call, measured rather than guessed
// (docs/writing-a-plugin.md, "What the host protects itself against").
//
// The plugin's own execute (a float32 ADD of n elements, n = 1 and 1e6) is
// called five ways: directly, as the core calls a plugin today; and from
// another process over a Unix socket, (1) with the buffers living in the
// plugin's process so that only the call crosses, (2) with the operands and
// the result copied through the socket, (3) with them in memory shared by
// both processes, which the plugin's process copies in and out of its
// buffers with write and read, or (4) borrows with wrap_host (no copies).
// Next to (2) and (3), the same copies made in process. Each figure is the median of batches (timing.hpp); the program
// prints them and asserts nothing.
//
// The plugin's process is forked before the plugin is loaded and loads and
// starts it itself, as a plugin host process would: a plugin with threads
// must not be used across a fork.
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backplane/plugin.h"
#include "timing.hpp"

namespace {

using bptool::bench::measure;
using bptool::bench::Work;

// What crosses the socket for one call.
enum class Mode : int32_t { kCall, kCopied, kShared, kWrapped, kQuit };
struct Request {
  Mode mode;
  int32_t pad;
  int64_t n;
};

void send_all(int fd, const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    const ssize_t k = send(fd, c, n, MSG_NOSIGNAL);  // a dead peer is an error, not SIGPIPE
    if (k <= 0) throw std::runtime_error(std::string("socket write: ") + std::strerror(errno));
    c += k;
    n -= size_t(k);
  }
}

bool receive_all(int fd, void *p, size_t n) {
  char *c = static_cast<char *>(p);
  while (n) {
    const ssize_t k = read(fd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= size_t(k);
  }
  return true;
}

// A plugin loaded and started in this process.
const bp_plugin_api &load(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error(std::string("cannot load ") + path + ": " + dlerror());
  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(handle, BP_PLUGIN_ENTRY_SYMBOL));
  const bp_plugin_api *api = get ? get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) : nullptr;
  if (!api) throw std::runtime_error(path + " has no plugin table");
  if (api->init(nullptr, nullptr, 0) != BP_OK) throw std::runtime_error(std::string("init failed: ") + api->last_error());
  return *api;
}

bool can_wrap(const bp_plugin_api &api) { return api.struct_size >= BP_PLUGIN_API_SIZE_1_4 && api.wrap_host; }

// Three float32 buffers of n elements on device 0 of a started plugin: a,
// b and out = a + b. Its own (alloc), or, given `host` (3n floats), that
// memory borrowed with wrap_host.
class Adder {
 public:
  Adder(const bp_plugin_api &api, int64_t n, float *host = nullptr) : api_(api), n_(n) {
    attrs_.struct_size = sizeof attrs_;
    std::vector<float> ones(size_t(n), 1.0f);
    int k = 0;
    for (bp_plugin_tensor *v : {&in_[0], &in_[1], &out_}) {
      bp_buffer b = nullptr;
      if (host)
        check(api_.wrap_host(0, host + n * k++, bytes(), nullptr, nullptr, &b), "wrap_host");
      else
        check(api_.alloc(0, bytes(), &b), "alloc");
      check(api_.write(b, 0, ones.data(), bytes()), "write");
      v->buffer = b;
      v->dtype = BP_FLOAT32;
      v->rank = 1;
      v->shape[0] = n;
      v->strides[0] = 1;
    }
  }
  ~Adder() {
    for (const bp_plugin_tensor *v : {&in_[0], &in_[1], &out_}) api_.free(v->buffer);
  }
  Adder(const Adder &) = delete;
  Adder &operator=(const Adder &) = delete;

  uint64_t bytes() const { return uint64_t(n_) * sizeof(float); }

  void add() const {
    check(api_.execute(0, BP_OP_ADD, &attrs_, in_, 2, &out_), "execute");
    check(api_.synchronize(0), "synchronize");
  }

  // Operands in from a and b, the sum out into out: host memory.
  void add_through(const float *a, const float *b, float *out) const {
    check(api_.write(in_[0].buffer, 0, a, bytes()), "write");
    check(api_.write(in_[1].buffer, 0, b, bytes()), "write");
    add();
    check(api_.read(out_.buffer, 0, out, bytes()), "read");
  }

 private:
  void check(bp_status s, const char *call) const {
    if (s != BP_OK) throw std::runtime_error(std::string(call) + " failed: " + api_.last_error());
  }

  const bp_plugin_api &api_;
  int64_t n_;
  bp_op_attrs attrs_{};
  bp_plugin_tensor in_[2]{}, out_{};
};

// The plugin's process: loads and starts the plugin, then answers requests
// on fd until kQuit. `shared` holds a, b and out (3n floats) for kShared.
[[noreturn]] void serve(const std::string &path, int fd, float *shared) {
  try {
    const bp_plugin_api &api = load(path);
    std::unique_ptr<Adder> adder, wrapped;
    std::vector<float> staging;
    for (Request r; receive_all(fd, &r, sizeof r) && r.mode != Mode::kQuit;) {
      if (!adder || adder->bytes() != uint64_t(r.n) * sizeof(float)) {
        adder.reset();
        wrapped.reset();
        adder = std::make_unique<Adder>(api, r.n);
        if (can_wrap(api)) wrapped = std::make_unique<Adder>(api, r.n, shared);
        staging.assign(size_t(3 * r.n), 0.0f);
      }
      float *a = staging.data(), *b = a + r.n, *out = b + r.n;
      if (r.mode == Mode::kCall) {
        adder->add();
      } else if (r.mode == Mode::kCopied) {
        if (!receive_all(fd, a, 2 * adder->bytes())) break;
        adder->add_through(a, b, out);
        send_all(fd, out, adder->bytes());
      } else if (r.mode == Mode::kShared) {
        adder->add_through(shared, shared + r.n, shared + 2 * r.n);
      } else {
        wrapped->add();
      }
      const int32_t done = BP_OK;
      send_all(fd, &done, sizeof done);
    }
    _exit(0);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "plugin process: %s\n", e.what());
    _exit(1);
  }
}

struct Figures {
  double direct, call, copied, in_process_copies, shared, wrapped;
};

Figures measure_at(const bp_plugin_api &api, int fd, float *shared, int64_t n, int trials, double target_s) {
  Adder here(api, n);
  std::fill(shared, shared + 2 * n, 1.0f);
  std::vector<float> a(static_cast<size_t>(n), 1.0f), b(static_cast<size_t>(n), 2.0f), out(static_cast<size_t>(n));
  auto round_trip = [&](Mode mode) {
    const Request r{mode, 0, n};
    send_all(fd, &r, sizeof r);
    if (mode == Mode::kCopied) {
      send_all(fd, a.data(), here.bytes());
      send_all(fd, b.data(), here.bytes());
      if (!receive_all(fd, out.data(), here.bytes())) throw std::runtime_error("the plugin process ended");
    }
    int32_t status = -1;
    if (!receive_all(fd, &status, sizeof status) || status != BP_OK) throw std::runtime_error("the plugin process failed");
  };
  auto repeat = [](auto f) -> Work {
    return [f](int64_t k) {
      for (int64_t i = 0; i < k; ++i) f();
    };
  };
  Figures f{};
  f.direct = measure(repeat([&] { here.add(); }), trials, target_s);
  f.call = measure(repeat([&] { round_trip(Mode::kCall); }), trials, target_s);
  f.copied = measure(repeat([&] { round_trip(Mode::kCopied); }), trials, target_s);
  f.in_process_copies = measure(repeat([&] { here.add_through(a.data(), b.data(), out.data()); }), trials, target_s);
  f.shared = measure(repeat([&] { round_trip(Mode::kShared); }), trials, target_s);
  f.wrapped = can_wrap(api) ? measure(repeat([&] { round_trip(Mode::kWrapped); }), trials, target_s)
                            : bptool::bench::kNaN;
  return f;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bp-bench-isolation PLUGIN.so (e.g. lib/backplane/plugins/libbackplane-cpu-openblas.so)\n");
    return 2;
  }
  const std::string path = argv[1];
  const int64_t largest = 1000000;
  const size_t shared_bytes = size_t(3 * largest) * sizeof(float);
  auto *shared = static_cast<float *>(mmap(nullptr, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  int fds[2];
  if (shared == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::perror("bp-bench-isolation: shared memory or socket");
    return 1;
  }
  // Before this process loads the plugin: see the top of the file.
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("bp-bench-isolation: fork");
    return 1;
  }
  if (pid == 0) {
    close(fds[0]);
    serve(path, fds[1], shared);
  }
  close(fds[1]);
  int rc = 0;
  try {
    const bp_plugin_api &api = load(path);
    std::printf("microseconds per call, median of 11 batches\n%-10s %14s %14s %14s %14s %14s %14s\n", "elements",
                "in process", "other: call", "other: copied", "in: +copies", "other: shared", "other: wrapped");
    for (int64_t n : {int64_t(1), largest}) {
      const Figures f = measure_at(api, fds[0], shared, n, 11, n == 1 ? 0.05 : 0.3);
      std::printf("%-10lld %14.3f %14.3f %14.3f %14.3f %14.3f %14.3f\n", static_cast<long long>(n), f.direct * 1e6,
                  f.call * 1e6, f.copied * 1e6, f.in_process_copies * 1e6, f.shared * 1e6, f.wrapped * 1e6);
    }
    std::printf(
        "in process:    execute() called directly, buffers in this process\n"
        "other: call    execute() in the plugin's process, buffers there; only the call crosses the socket\n"
        "other: copied  as above, plus both operands sent and the result returned through the socket\n"
        "in: +copies    in process, with write() of both operands and read() of the result around execute()\n"
        "other: shared  in the plugin's process, operands and result in shared memory, copied with write/read\n"
        "other: wrapped as above, the shared memory borrowed with wrap_host: no copies (nan: no wrap_host)\n");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bp-bench-isolation: %s\n", e.what());
    rc = 1;
  }
  const Request quit{Mode::kQuit, 0, 0};
  const ssize_t ignored = send(fds[0], &quit, sizeof quit, MSG_NOSIGNAL);  // the plugin process may be gone
  (void)ignored;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return rc;
}
