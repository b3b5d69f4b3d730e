// The routing trace: when on, every operator records where it ran and why.
// Off by default; checking it costs one relaxed load per operator.
#pragma once

#include <atomic>
#include <string>

namespace bp::core::trace {

extern std::atomic<bool> enabled;

inline bool on() { return enabled.load(std::memory_order_relaxed); }
void record(std::string line);
int32_t count();
bool line(int32_t i, std::string &out);
void clear();

}  // namespace bp::core::trace
