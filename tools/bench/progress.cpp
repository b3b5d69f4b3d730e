#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "timing.hpp"

namespace bptool::bench::progress {

namespace {

constexpr double kSilence = 1.0;  // seconds without a line before the heartbeat speaks

struct State {
  std::mutex mutex;
  std::condition_variable wake;
  std::thread heartbeat;
  bool running = false;
  std::string step, phase;
  double phase_started = 0, last_line = 0;
};

State &state() {
  static State s;
  return s;
}

bool on_terminal() {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  return tty;
}

void write_all(const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

// One line for the current step and phase (the caller holds the mutex).
void print_locked(State &s, const std::string &suffix) {
  if (s.step.empty()) return;
  std::string text = "bp bench: " + s.step + (s.phase.empty() ? "" : ": " + s.phase) + suffix;
  write_all(on_terminal() ? "\r\033[K" + text : text + "\n");
  s.last_line = now_seconds();
}

void heartbeat() {
  State &s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  while (s.running) {
    s.wake.wait_for(lock, std::chrono::milliseconds(200));
    const double now = now_seconds();
    if (!s.running || s.step.empty() || now - s.last_line < kSilence) continue;
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, " (%.1f s so far)", now - s.phase_started);
    print_locked(s, suffix);
  }
}

void phase_hook(const std::string &what, double expected_s) { phase(what, expected_s); }

}  // namespace

Session::Session() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.running) return;
  s.running = true;
  s.last_line = now_seconds();
  s.heartbeat = std::thread(heartbeat);
  set_phase_hook(phase_hook);
}

Session::~Session() {
  State &s = state();
  set_phase_hook(nullptr);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.running) return;
    s.running = false;
  }
  s.wake.notify_all();
  s.heartbeat.join();
  clear();
}

void step(const std::string &what) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.step = what;
  s.phase.clear();
  s.phase_started = now_seconds();
  print_locked(s, "");
}

void phase(const std::string &what, double expected_s) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.phase = what;
  s.phase_started = now_seconds();
  if (expected_s >= 1) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, " (about %.0f s)", std::ceil(expected_s));
    print_locked(s, suffix);
  }
}

void hand_over() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.step.clear();
  s.phase.clear();
  if (on_terminal()) write_all("\r\033[K");
}

void clear() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (on_terminal()) write_all("\r\033[K");
}

}  // namespace bptool::bench::progress
