// libFuzzer target: any bytes as a configuration file. Every input must end in
// a Config or a ConfigError that names the source; nothing else may escape,
// and no input may crash, overflow the stack or exhaust memory.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    bp::config::Config c = bp::config::load_string(text, "fuzz.toml");
    if (c.entries.empty()) {
      std::fprintf(stderr, "a loaded configuration lists no effective entries\n");
      std::abort();
    }
  } catch (const bp::config::ConfigError &e) {
    if (e.source() != "fuzz.toml" || std::string_view(e.what()).substr(0, 9) != "fuzz.toml") {
      std::fprintf(stderr, "an error that does not name its source: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
