#include "trace/trace.hpp"

#include <deque>
#include <mutex>

namespace bp::core::trace {

std::atomic<bool> enabled{false};

namespace {
constexpr size_t kKept = 4096;
std::mutex mutex;
std::deque<std::string> &lines() {
  static auto *kept = new std::deque<std::string>();
  return *kept;
}
}  // namespace

void record(std::string line) {
  std::lock_guard<std::mutex> lock(mutex);
  auto &l = lines();
  if (l.size() == kKept) l.pop_front();
  l.push_back(std::move(line));
}

int32_t count() {
  std::lock_guard<std::mutex> lock(mutex);
  return int32_t(lines().size());
}

bool line(int32_t i, std::string &out) {
  std::lock_guard<std::mutex> lock(mutex);
  auto &l = lines();
  if (i < 0 || size_t(i) >= l.size()) return false;
  out = l[size_t(i)];
  return true;
}

void clear() {
  std::lock_guard<std::mutex> lock(mutex);
  lines().clear();
}

}  // namespace bp::core::trace
