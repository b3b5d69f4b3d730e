// Limits on a configuration's text, checked before toml++ sees it: toml++
// recurses once per part of a dotted key and per level of nested arrays and
// inline tables, so a hostile file could otherwise overflow the stack, and a
// file that never ends (/dev/zero) would be read until memory runs out.
#pragma once

#include <cstddef>
#include <string_view>

namespace bp::config::detail {

constexpr std::size_t kMaxConfigBytes = std::size_t(1) << 20;  // 1 MiB
constexpr int kMaxKeyParts = 32;   // a.b.c = 1 has 3; [x.y] 2
constexpr int kMaxNesting = 32;    // arrays and inline tables inside one another

// Throws ConfigError(source, line, column, "", reason) at the first excess.
void check_input_bounds(std::string_view text, std::string_view source);

}  // namespace bp::config::detail
