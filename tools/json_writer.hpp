// json_writer.hpp — a small streaming JSON writer (RFC 8259 output only).
//
//   JsonWriter j(/*pretty=*/true);
//   j.begin_object(); j.key("devices"); j.begin_array(); ... j.end_array(); j.end_object();
//   std::puts(j.str().c_str());
//
// Strings are escaped, non-finite numbers become null, and commas and
// indentation are handled by the writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bptool {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = false) : pretty_(pretty) {}

  JsonWriter &begin_object();
  JsonWriter &end_object();
  JsonWriter &begin_array();
  JsonWriter &end_array();
  JsonWriter &key(const std::string &k);

  JsonWriter &value(const std::string &s);
  JsonWriter &value(const char *s);
  JsonWriter &value(double d);
  JsonWriter &value(int64_t i);
  JsonWriter &value(uint64_t u);
  JsonWriter &value(int32_t i) { return value(int64_t(i)); }
  JsonWriter &boolean(bool b);
  JsonWriter &null();

  // key + value in one call.
  template <class T>
  JsonWriter &field(const std::string &k, const T &v) {
    key(k);
    return value(v);
  }

  const std::string &str() const { return out_; }
  static std::string escape(const std::string &s);

 private:
  void before_value();
  void newline();
  // A container's opening and closing bracket, with the comma and
  // indentation bookkeeping the two kinds share.
  JsonWriter &open(char bracket);
  JsonWriter &close(char bracket);
  // A value already written as JSON text.
  JsonWriter &raw(const std::string &text);
  std::string out_;
  std::vector<bool> has_items_;  // one per open container
  bool after_key_ = false;
  bool pretty_;
};

}  // namespace bptool
