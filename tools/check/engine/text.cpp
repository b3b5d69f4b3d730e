#include "text.hpp"

#include <string.h>

#include <cstdarg>
#include <cstdio>

namespace bpcheck {

std::string shape_text(int32_t rank, const int64_t *shape) {
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d) {
    if (d) text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

std::string one_line(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') continue;
    if (c == '\n') {
      if (i + 1 < text.size()) out += " / ";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = '?';
    out += c;
  }
  return out;
}

std::string plugin_text(const char *text) {
  // Measured up to a bound of its own: a string without its NUL ends there
  // (or at the page the plugin did not map, a crash of the group's child).
  constexpr size_t kMeasured = size_t(1) << 30;
  const size_t length = strnlen(text, kMeasured);
  if (length <= kShownBytes) return one_line(std::string(text, length));
  return one_line(std::string(text, kShownBytes)) +
         (length == kMeasured ? format(" [... truncated: the string is longer than %zu bytes]", kMeasured)
                              : format(" [... truncated: the string is %zu bytes]", length));
}

std::string format(const char *fmt, ...) {
  char buffer[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

}  // namespace bpcheck
