#include "input_bounds.hpp"

#include <string>

#include "config/config.hpp"

namespace bp::config::detail {

namespace {

// A small TOML lexer: enough to skip strings and comments and to see the
// dots and brackets outside them.
class Scanner {
 public:
  Scanner(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  void run() {
    if (text_.size() > kMaxConfigBytes)
      throw ConfigError(std::string(source_), 0, 0, "",
                        "the file is " + std::to_string(text_.size()) + " bytes; a configuration may have at most " +
                            std::to_string(kMaxConfigBytes));
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') advance();
      } else if (c == '"' || c == '\'') {
        skip_string(c);
      } else {
        if (c == '.' && ++dots_ >= kMaxKeyParts) fail("a key with more than " + std::to_string(kMaxKeyParts) + " parts");
        if (c == '[' || c == '{') {
          if (++depth_ > kMaxNesting)
            fail("arrays, tables or inline tables nested more than " + std::to_string(kMaxNesting) + " deep");
          dots_ = 0;
        } else if (c == ']' || c == '}') {
          if (depth_ > 0) --depth_;
          dots_ = 0;
        } else if (c == '=' || c == ',' || c == '\n') {
          dots_ = 0;
        }
        advance();
      }
    }
  }

 private:
  void skip_string(char quote) {
    const bool multi = text_.compare(i_, 3, std::string(3, quote)) == 0;
    for (int k = 0; k < (multi ? 3 : 1); ++k) advance();
    while (i_ < text_.size()) {
      if (quote == '"' && text_[i_] == '\\') {
        advance();
        if (i_ < text_.size()) advance();
      } else if (multi ? text_.compare(i_, 3, std::string(3, quote)) == 0 : text_[i_] == quote) {
        for (int k = 0; k < (multi ? 3 : 1); ++k) advance();
        return;
      } else if (!multi && text_[i_] == '\n') {
        return;  // unterminated: toml++ reports it
      } else {
        advance();
      }
    }
  }

  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++i_;
  }

  [[noreturn]] void fail(const std::string &reason) const {
    throw ConfigError(std::string(source_), line_, column_, "", reason);
  }

  std::string_view text_, source_;
  std::size_t i_ = 0;
  int line_ = 1, column_ = 1, dots_ = 0, depth_ = 0;
};

}  // namespace

void check_input_bounds(std::string_view text, std::string_view source) { Scanner(text, source).run(); }

}  // namespace bp::config::detail
