#include "json_output.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace bptool {

namespace {

bool canonical_integer(const std::string &t) {
  const size_t first = t.size() > 1 && t[0] == '-' ? 1 : 0;
  if (first == t.size()) return false;
  // "0" and "-0" alone; any other leading zero is an identifier ("007").
  if (t[first] == '0' && t.size() > first + 1) return false;
  for (size_t i = first; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

}  // namespace

Json json_document(const std::string &schema_name, int schema_version) {
  Json doc = Json::object();
  doc["schema"] = schema_name + "/" + std::to_string(schema_version);
  doc["schema_version"] = schema_version;
  return doc;
}

Json typed_value(const std::string &text) {
  if (text == "true" || text == "yes") return true;
  if (text == "false" || text == "no") return false;
  if (canonical_integer(text)) {
    errno = 0;
    char *end = nullptr;
    if (text[0] == '-') {
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno == 0 && *end == '\0') return int64_t(v);
    } else {
      const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
      if (errno == 0 && *end == '\0') return uint64_t(v);
    }
  }
  return text;
}

std::string json_text(const Json &doc, bool pretty) {
  const auto replace = Json::error_handler_t::replace;
  return pretty ? doc.dump(2, ' ', false, replace) + "\n" : doc.dump(-1, ' ', false, replace);
}

}  // namespace bptool
