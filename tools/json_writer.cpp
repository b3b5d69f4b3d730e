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

JsonWriter &JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  has_items_.push_back(false);
  return *this;
}

JsonWriter &JsonWriter::close(char bracket) {
  bool items = has_items_.back();
  has_items_.pop_back();
  if (items) newline();
  out_ += bracket;
  return *this;
}

JsonWriter &JsonWriter::begin_object() { return open('{'); }
JsonWriter &JsonWriter::end_object() { return close('}'); }
JsonWriter &JsonWriter::begin_array() { return open('['); }
JsonWriter &JsonWriter::end_array() { return close(']'); }

JsonWriter &JsonWriter::key(const std::string &k) {
  before_value();
  out_ += escape(k);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter &JsonWriter::raw(const std::string &text) {
  before_value();
  out_ += text;
  return *this;
}

JsonWriter &JsonWriter::value(const std::string &s) { return raw(escape(s)); }

JsonWriter &JsonWriter::value(const char *s) { return s ? value(std::string(s)) : null(); }

JsonWriter &JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", d);
  return raw(buf);
}

JsonWriter &JsonWriter::value(int64_t i) { return raw(std::to_string(i)); }
JsonWriter &JsonWriter::value(uint64_t u) { return raw(std::to_string(u)); }
JsonWriter &JsonWriter::boolean(bool b) { return raw(b ? "true" : "false"); }
JsonWriter &JsonWriter::null() { return raw("null"); }

}  // namespace bptool
