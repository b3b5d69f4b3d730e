#include "json_writer.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace bptool {

std::string JsonWriter::escape(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += char(c);
        }
    }
  }
  return o + "\"";
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(has_items_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
    newline();
  }
}

JsonWriter &JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

JsonWriter &JsonWriter::end_object() {
  bool items = has_items_.back();
  has_items_.pop_back();
  if (items) newline();
  out_ += '}';
  return *this;
}

JsonWriter &JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

JsonWriter &JsonWriter::end_array() {
  bool items = has_items_.back();
  has_items_.pop_back();
  if (items) newline();
  out_ += ']';
  return *this;
}

JsonWriter &JsonWriter::key(const std::string &k) {
  before_value();
  out_ += escape(k);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter &JsonWriter::value(const std::string &s) {
  before_value();
  out_ += escape(s);
  return *this;
}

JsonWriter &JsonWriter::value(const char *s) { return s ? value(std::string(s)) : null(); }

JsonWriter &JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  before_value();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", d);
  out_ += buf;
  return *this;
}

JsonWriter &JsonWriter::value(int64_t i) {
  before_value();
  out_ += std::to_string(i);
  return *this;
}

JsonWriter &JsonWriter::value(uint64_t u) {
  before_value();
  out_ += std::to_string(u);
  return *this;
}

JsonWriter &JsonWriter::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter &JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

}  // namespace bptool
