// Many threads on one runtime, through the C API only: `bp-stress <scenario>`
// runs one scenario in a fresh process (the first one is about first use) and
// exits 0 when every check held, 1 otherwise. Iteration counts are fixed, so
// the outcome never depends on timing; under ThreadSanitizer (the CI's TSan
// job) the same runs are checked for data races.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backplane/backplane.h"

namespace {

constexpr int kThreads = 4;
constexpr int64_t kN = 257;  // not a multiple of any vector width

std::atomic<int> g_failures{0};
std::mutex g_print;

#define EXPECT(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::lock_guard<std::mutex> lock_(g_print);                          \
      std::fprintf(stderr, "%s:%d: failed: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fprintf(stderr, " (last error: %s)\n", bp_last_error());        \
      g_failures.fetch_add(1);                                             \
    }                                                                      \
  } while (0)

// Runs body(i) on n threads that start together.
void run_threads(int n, const std::function<void(int)> &body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();
      body(i);
    });
  for (auto &t : threads) t.join();
}

std::vector<bp_device> all_devices() {
  bp_device ids[64];
  int32_t count = 0;
  EXPECT(bp_devices(ids, 64, &count) == BP_OK, "bp_devices");
  return {ids, ids + std::min<int32_t>(count, 64)};
}

bp_tensor full(bp_device d, float value, int64_t n = kN) {
  const int64_t shape[] = {n};
  bp_tensor t = 0;
  EXPECT(bp_full(d, BP_FLOAT32, 1, shape, value, &t) == BP_OK, "bp_full on %s", bp_device_name(d));
  return t;
}

// True when t has kN elements and each equals value.
bool holds(bp_tensor t, float value) {
  std::vector<float> host(kN);
  if (bp_to_host(t, host.data(), kN * sizeof(float)) != BP_OK) return false;
  for (float x : host)
    if (x != value) return false;
  return true;
}

void release(bp_tensor t) { EXPECT(bp_tensor_release(t) == BP_OK, "release %llu", (unsigned long long)t); }

// Every thread's first call races the runtime's own start (no bp_init).
void first_use(int iterations) {
  std::vector<int32_t> counts(kThreads, -1);
  run_threads(kThreads, [&](int i) {
    bp_device ids[64];
    EXPECT(bp_devices(ids, 64, &counts[size_t(i)]) == BP_OK, "bp_devices");
    for (int k = 0; k < iterations; ++k) {
      bp_device cpu = -1;
      EXPECT(bp_cpu(&cpu) == BP_OK, "bp_cpu");
      bp_tensor t = full(cpu, float(i));
      EXPECT(holds(t, float(i)), "a fresh tensor");
      release(t);
    }
  });
  for (int32_t c : counts) EXPECT(c == counts[0] && c > 0, "every thread sees %d devices, not %d", counts[0], c);
}

// Independent work on every device: each thread's own tensors.
void create_operate_release(int iterations) {
  std::vector<bp_device> devs = all_devices();
  run_threads(kThreads, [&](int i) {
    for (int k = 0; k < iterations; ++k) {
      bp_device d = devs[size_t(k + i) % devs.size()];
      bp_tensor a = full(d, float(i)), b = full(d, 2.0f), c = 0, s = 0, v = 0;
      EXPECT(bp_binary(BP_OP_ADD, a, b, &c) == BP_OK, "add on %s", bp_device_name(d));
      EXPECT(holds(c, float(i) + 2), "a + b on %s", bp_device_name(d));
      EXPECT(bp_reduce(BP_OP_SUM, c, -1, 0, &s) == BP_OK, "sum on %s", bp_device_name(d));
      float sum = -1;
      EXPECT(bp_to_host(s, &sum, sizeof sum) == BP_OK && sum == float(kN) * (float(i) + 2), "sum %g", sum);
      EXPECT(bp_slice(c, 0, 1, kN, 2, &v) == BP_OK, "slice");
      EXPECT(bp_binary_out(BP_OP_MUL, v, v, v) == BP_OK, "in-place multiply of a view");
      for (bp_tensor t : {a, b, c, s, v}) release(t);
    }
  });
}

// One thread publishes and releases tensors while the others use whatever
// handle they last saw: each use either works on the right values or says the
// handle is not live.
void release_race(int iterations) {
  std::vector<bp_device> devs = all_devices();
  std::atomic<bp_tensor> shared{0};
  std::atomic<bool> done{false};
  run_threads(kThreads, [&](int i) {
    if (i == 0) {
      for (int k = 0; k < iterations; ++k) {
        shared.store(full(devs[size_t(k) % devs.size()], 3.0f));
        for (int spin = 0; spin < (k % 7) * 50; ++spin) std::this_thread::yield();
        release(shared.exchange(0));
      }
      done.store(true);
      return;
    }
    std::vector<bp_tensor> ones;
    for (bp_device d : devs) ones.push_back(full(d, 1.0f));
    for (int k = 0; !done.load(); ++k) {
      bp_tensor h = shared.load();
      if (h == 0) continue;
      bp_device d = -1;
      if (bp_tensor_device(h, &d) != BP_OK) {
        EXPECT(bp_last_error_status() == BP_ERR_INVALID_HANDLE, "bp_tensor_device");
        continue;
      }
      size_t di = 0;
      while (di < devs.size() && devs[di] != d) ++di;
      bp_tensor out = 0;
      bp_status s = BP_OK;
      switch ((k + i) % 5) {
        case 0:
          s = bp_binary(BP_OP_ADD, h, ones[di], &out);
          if (s == BP_OK) EXPECT(holds(out, 4.0f), "3 + 1");
          break;
        case 1:
          s = bp_binary_out(BP_OP_ADD, h, h, ones[di]);
          if (s == BP_OK) EXPECT(holds(ones[di], 6.0f), "3 + 3 written into ones");
          if (s == BP_OK) EXPECT(bp_full(d, BP_FLOAT32, 1, &kN, 1.0, &out) == BP_OK, "refill");
          if (s == BP_OK) std::swap(ones[di], out);
          break;
        case 2:
          s = bp_tensor_retain(h);
          if (s == BP_OK) {
            EXPECT(holds(h, 3.0f), "a retained tensor keeps its values");
            release(h);
          }
          break;
        case 3:
          s = bp_copy_to(h, devs[(di + 1) % devs.size()], &out);
          if (s == BP_OK) EXPECT(holds(out, 3.0f), "a copy");
          break;
        default: {
          std::vector<float> host(kN);
          s = bp_to_host(h, host.data(), kN * sizeof(float));
          if (s == BP_OK) EXPECT(host[0] == 3.0f && host[kN - 1] == 3.0f, "read back");
        }
      }
      EXPECT(s == BP_OK || s == BP_ERR_INVALID_HANDLE, "status %s", bp_status_name(s));
      if (out) release(out);
    }
    for (bp_tensor t : ones) release(t);
  });
}

// Copies around the ring of devices, every thread at once.
void cross_device(int iterations) {
  std::vector<bp_device> devs = all_devices();
  run_threads(kThreads, [&](int i) {
    bp_tensor t = full(devs[0], float(i + 1));
    for (int k = 0; k < iterations; ++k) {
      bp_tensor next = 0;
      bp_device to = devs[size_t(k + i + 1) % devs.size()];
      EXPECT(bp_copy_to(t, to, &next) == BP_OK, "copy to %s", bp_device_name(to));
      release(t);
      t = next;
    }
    EXPECT(holds(t, float(i + 1)), "values after %d copies", iterations);
    release(t);
  });
}

// One tensor per device read by every thread; each thread also holds and
// drops references of its own.
void shared_handles(int iterations) {
  std::vector<bp_device> devs = all_devices();
  std::vector<bp_tensor> shared;
  for (bp_device d : devs) shared.push_back(full(d, 5.0f));
  run_threads(kThreads, [&](int i) {
    for (int k = 0; k < iterations; ++k) {
      bp_tensor h = shared[size_t(k + i) % shared.size()], out = 0, view = 0;
      EXPECT(bp_tensor_retain(h) == BP_OK, "retain");
      EXPECT(bp_binary(BP_OP_MUL, h, h, &out) == BP_OK && holds(out, 25.0f), "5 * 5");
      EXPECT(bp_slice(h, 0, 0, kN, 3, &view) == BP_OK, "a view");
      release(out);
      release(view);
      release(h);
    }
  });
  for (bp_tensor t : shared) EXPECT(holds(t, 5.0f), "the shared tensor is unchanged");
  for (bp_tensor t : shared) release(t);
}

// The trace toggled, read and cleared while other threads route operators.
void tracing(int iterations) {
  std::vector<bp_device> devs = all_devices();
  std::atomic<bool> done{false};
  run_threads(kThreads, [&](int i) {
    if (i == 0) {
      char line[512];
      for (int k = 0; k < iterations; ++k) {
        EXPECT(bp_trace_enable(k % 2) == BP_OK, "trace on/off");
        int32_t n = bp_trace_count();
        for (int32_t j = 0; j < n && j < 8; ++j) bp_trace_line(j, line, sizeof line);
        if (k % 16 == 0) EXPECT(bp_trace_clear() == BP_OK, "clear");
      }
      done.store(true);
      return;
    }
    while (!done.load()) {
      bp_device d = devs[size_t(i) % devs.size()];
      bp_tensor a = full(d, 2.0f), out = 0;
      EXPECT(bp_binary(BP_OP_ADD, a, a, &out) == BP_OK && holds(out, 4.0f), "2 + 2");
      release(a);
      release(out);
    }
  });
  bp_trace_enable(0);
}

// Each thread's errors stay its own.
void per_thread_errors(int iterations) {
  std::vector<bp_device> devs = all_devices();
  run_threads(kThreads, [&](int i) {
    bp_device d = devs[size_t(i) % devs.size()];
    for (int k = 0; k < iterations; ++k) {
      const bp_tensor invented = (uint64_t(i + 1) << 40) | uint64_t(k + 1);
      EXPECT(bp_tensor_release(invented) == BP_ERR_INVALID_HANDLE, "an invented handle");
      std::string number = std::to_string(invented);
      bp_tensor ok = full(d, 1.0f);
      EXPECT(bp_last_error_status() == BP_ERR_INVALID_HANDLE &&
                 std::strstr(bp_last_error(), number.c_str()) != nullptr,
             "this thread's error names handle %s", number.c_str());
      const int64_t bad[] = {-1};
      bp_tensor t = 0;
      EXPECT(bp_full(d, BP_FLOAT32, 1, bad, 0.0, &t) == BP_ERR_SHAPE, "a negative extent");
      EXPECT(bp_last_error_status() == BP_ERR_SHAPE, "the latest error is the shape error");
      release(ok);
    }
  });
}

struct Scenario {
  void (*run)(int);
  int iterations;
};

const std::map<std::string, Scenario> &scenarios() {
  static const std::map<std::string, Scenario> all = {
      {"first-use", {first_use, 50}},
      {"create-operate-release", {create_operate_release, 200}},
      {"release-race", {release_race, 400}},
      {"cross-device", {cross_device, 100}},
      {"shared-handles", {shared_handles, 200}},
      {"tracing", {tracing, 400}},
      {"per-thread-errors", {per_thread_errors, 200}},
  };
  return all;
}

}  // namespace

int main(int argc, char **argv) {
  auto it = argc == 2 ? scenarios().find(argv[1]) : scenarios().end();
  if (it == scenarios().end()) {
    std::fprintf(stderr, "usage: bp-stress <scenario>; scenarios:");
    for (const auto &s : scenarios()) std::fprintf(stderr, " %s", s.first.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  it->second.run(it->second.iterations);
  int64_t live = bp_live_tensor_count();
  EXPECT(live == 0, "%lld tensors still live at the end", (long long)live);
  if (g_failures.load() == 0) std::printf("%s: every check held\n", argv[1]);
  return g_failures.load() == 0 ? 0 : 1;
}
