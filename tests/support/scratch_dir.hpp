// A new empty directory for a test's lifetime, removed with what it holds
// at the end.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace bp_test {

class ScratchDir {
 public:
  // Under $TMPDIR (else /tmp), named <prefix>-XXXXXX.
  explicit ScratchDir(const std::string &prefix) {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + "-XXXXXX";
    REQUIRE(mkdtemp(&pattern[0]) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace bp_test
