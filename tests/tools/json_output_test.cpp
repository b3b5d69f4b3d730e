// The typing rule of docs/json-output.md (tools/json_output.hpp), value by
// value, and the schema header every document starts with.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "json_output.hpp"

using bptool::Json;
using bptool::typed_value;

TEST_CASE("canonical decimal integers become numbers") {
  CHECK(typed_value("0") == Json(0));
  CHECK(typed_value("4096") == Json(4096));
  CHECK(typed_value("-3") == Json(-3));
  CHECK(typed_value("18446744073709551615") == Json(UINT64_MAX));
  CHECK(typed_value("-9223372036854775808") == Json(INT64_MIN));
  CHECK(typed_value("4096").is_number_integer());
}

TEST_CASE("text that only looks like a number stays a string") {
  for (const char *text : {"007", "+5", "1.5", "8.9", "1.10", "13.0", "1e3", "0x10", " 1", "1 ", "-", "",
                           "18446744073709551616", "-9223372036854775809", "3 GiB"}) {
    INFO(text);
    CHECK(typed_value(text) == Json(text));
  }
}

TEST_CASE("true/yes and false/no become booleans, nothing else does") {
  CHECK(typed_value("true") == Json(true));
  CHECK(typed_value("yes") == Json(true));
  CHECK(typed_value("false") == Json(false));
  CHECK(typed_value("no") == Json(false));
  for (const char *text : {"True", "YES", "on", "off", "1 (yes)", "none", "off (option fp64 = \"off\")"}) {
    INFO(text);
    CHECK(typed_value(text) == Json(text));
  }
}

TEST_CASE("a document starts with schema, then schema_version") {
  Json doc = bptool::json_document("bp-example", 3);
  doc["zeta"] = 1;
  doc["alpha"] = 2;
  const std::string text = bptool::json_text(doc, false);
  CHECK(text == R"({"schema":"bp-example/3","schema_version":3,"zeta":1,"alpha":2})");
}

TEST_CASE("bytes that are not UTF-8 still give valid JSON") {
  Json doc = Json::object();
  doc["model"] = std::string("GPU \xff\xfe");
  CHECK(bptool::json_text(doc, false) == "{\"model\":\"GPU \xEF\xBF\xBD\xEF\xBF\xBD\"}");
  CHECK(bptool::json_text(doc, true).back() == '\n');
}
