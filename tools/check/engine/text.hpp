// Small text helpers of the kit: printf-style formatting, one-line messages,
// shapes and signal names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bpcheck {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string one_line(std::string text);                       // newlines -> " / "
// A string from the plugin (last_error, a reason) as a report shows it: one
// line of at most kShownBytes, a longer one cut with a note of its length,
// so a plugin's 64 MiB message costs a line, not the report.
constexpr size_t kShownBytes = 1024;
std::string plugin_text(const char *text);
std::string shape_text(int32_t rank, const int64_t *shape);  // "[2, 3]"
std::string signal_name(int sig);                             // "SIGSEGV"

}  // namespace bpcheck
