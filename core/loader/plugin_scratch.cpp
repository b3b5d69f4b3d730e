#include "loader/plugin_scratch.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "errors/error.hpp"
#include "loader/backend.hpp"

namespace bp::core {

namespace {

constexpr unsigned char kPattern = 0xA5;

}  // namespace

PluginScratch::PluginScratch(size_t bytes) : size_(bytes), bytes_(new unsigned char[bytes + kGuardBytes]) {
  std::memset(bytes_.get(), 0, size_);
  std::memset(bytes_.get() + size_, kPattern, kGuardBytes);
}

void PluginScratch::check(const Backend &b, const char *call) const {
  const unsigned char *guard = bytes_.get() + size_;
  const unsigned char *end = guard + kGuardBytes;
  const unsigned char *first = std::find_if(guard, end, [](unsigned char c) { return c != kPattern; });
  if (first == end) return;
  const unsigned char *last = std::find_if(std::make_reverse_iterator(end), std::make_reverse_iterator(first),
                                           [](unsigned char c) { return c != kPattern; })
                                  .base();
  fail(BP_ERR_PLUGIN, "backend " + b.name() + ": " + call + " wrote past the " +
                          std::to_string(size_) + " bytes it was given (bytes " + std::to_string(first - guard) +
                          " to " + std::to_string(last - guard - 1) + " after them changed)");
}

}  // namespace bp::core
