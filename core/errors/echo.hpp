// A caller's text as a message shows it. Header-only because the config
// library (core/config), which libbackplane links, bounds its messages with
// the same rule and cannot link core/errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bp::core {

// Names, values and keys are shown up to this many bytes.
inline constexpr std::size_t kEchoBytes = 64;
// Paths are shown whole up to PATH_MAX, the longest the system opens: cut at
// 64 bytes, a real path would lose its file name.
inline constexpr std::size_t kEchoPathBytes = 4096;

// At most `max` bytes of the text (never half a UTF-8 character) followed by
// "... (N bytes)", so that a message never grows with what it echoes.
inline std::string echo(std::string_view text, std::size_t max = kEchoBytes) {
  if (text.size() <= max) return std::string(text);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace bp::core
