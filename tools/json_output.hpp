// json_output.hpp — what the JSON documents of `bp` share (docs/json-output.md):
// nlohmann-json objects that keep their keys in insertion order (so that
// "schema" stays the first key), the schema header, the rule that types a
// property value written as text, and the text of a document.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bptool {

using Json = nlohmann::ordered_json;

// An object that starts with the schema's two keys:
//   {"schema": "<name>/<version>", "schema_version": <version>}
Json json_document(const std::string &schema_name, int schema_version);

// A value a plugin or a check reports as text, typed by the rule of
// docs/json-output.md: a canonical decimal integer ("0", "-3", "4096"; no
// sign "+", no leading zero, no dot, within 64 bits) becomes a number;
// exactly "true" or "yes" becomes true, "false" or "no" false; any other
// text ("8.9", "1.10", "007", "", "on") stays a string.
Json typed_value(const std::string &text);

// The document's text. Pretty: two-space indentation and a final newline;
// otherwise one line, without the newline. Bytes that are not UTF-8 (a
// plugin's model or reason may hold any) become U+FFFD, so the output is
// always valid JSON.
std::string json_text(const Json &doc, bool pretty);

}  // namespace bptool
