// Small text helpers of the kit: printf-style formatting, one-line messages,
// shapes and signal names.
#pragma once

#include <cstdint>
#include <string>

namespace bpcheck {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string one_line(std::string text);                       // newlines -> " / "
std::string shape_text(int32_t rank, const int64_t *shape);  // "[2, 3]"
std::string signal_name(int sig);                             // "SIGSEGV"

}  // namespace bpcheck
