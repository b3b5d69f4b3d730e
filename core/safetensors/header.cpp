#include "safetensors/header.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "errors/error.hpp"
#include "tensors/view.hpp"

namespace bp::core::safetensors {

namespace {

using json = nlohmann::json;

// Containers may nest three deep (the root object, an entry, its shape):
// anything deeper is no safetensors header, and is refused while parsing,
// before it costs memory.
constexpr int kMaxDepth = 3;

class Checker {
 public:
  explicit Checker(const Source &src) : src_(src), file_(shown(src.name(), 4096)) {}

  [[noreturn]] void bad(const std::string &what) const { fail(BP_ERR_FORMAT, file_ + ": " + what); }

  uint64_t header_length() const {
    if (src_.size() < kLengthBytes)
      bad("the file is " + std::to_string(src_.size()) +
          " bytes, too short for the 8-byte header length at offset 0");
    unsigned char le[kLengthBytes];
    src_.read(0, kLengthBytes, le, "the header length");
    uint64_t n = 0;
    for (int i = int(kLengthBytes) - 1; i >= 0; --i) n = n << 8 | le[i];
    if (n > kMaxHeaderBytes)
      bad("the header length at offset 0 is " + std::to_string(n) + " bytes, more than the format's limit of " +
          std::to_string(kMaxHeaderBytes));
    if (n > src_.size() - kLengthBytes)
      bad("the header length at offset 0 is " + std::to_string(n) + " bytes, but only " +
          std::to_string(src_.size() - kLengthBytes) + " bytes follow it (the file is " +
          std::to_string(src_.size()) + " bytes)");
    return n;
  }

  json parse(const std::string &text) const {
    if (text.empty() || text[0] != '{')
      bad("at offset 8: the header does not start with '{' (a JSON object), but with " +
          (text.empty() ? std::string("nothing (its length is 0)") : byte_at(text, 0)));
    // nlohmann's lexer takes a NUL byte for the end of the input; JSON text
    // never holds one (control characters in strings are escaped).
    const size_t nul = text.find('\0');
    if (nul != std::string::npos)
      bad("at offset " + std::to_string(kLengthBytes + nul) + " (header byte " + std::to_string(nul) +
          "): the header is not valid JSON: a NUL byte");
    std::vector<std::set<std::string>> keys;  // of each object being parsed
    std::string entry;                        // the name of the entry being parsed
    auto callback = [&](int depth, json::parse_event_t event, json &parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          if (depth >= kMaxDepth)
            bad("the header nests JSON deeper than the format's entries do (an object of objects, "
                "whose shape and data_offsets are arrays of numbers)");
          if (event == json::parse_event_t::object_start) keys.emplace_back();
          break;
        case json::parse_event_t::object_end: keys.pop_back(); break;
        case json::parse_event_t::key: {
          const std::string &k = parsed.get_ref<const std::string &>();
          if (!keys.back().insert(k).second)
            bad(depth == 1 ? "the header names '" + shown(k) + "' twice"
                           : "the entry of '" + shown(entry) + "' has the key '" + shown(k) + "' twice");
          if (depth == 1) entry = k;
          break;
        }
        default: break;
      }
      return true;
    };
    try {
      return json::parse(text.begin(), text.end(), callback);
    } catch (const json::parse_error &e) {
      // e.byte counts the bytes read, the last of them the offending one.
      const size_t at = e.byte ? size_t(e.byte) - 1 : 0;
      bad("at offset " + std::to_string(kLengthBytes + at) + " (header byte " + std::to_string(at) +
          "): the header is not valid JSON: " + reason(e.what()) +
          (at < text.size() ? " (the byte there is " + byte_at(text, at) + ")" : ""));
    } catch (const json::out_of_range &e) {
      // A number past a double's range (1e999): nlohmann gives no position,
      // only the number, which is found again to give one.
      const std::string what = e.what();
      const size_t quote = what.find('\'');
      const std::string number =
          quote == std::string::npos ? std::string() : what.substr(quote + 1, what.find('\'', quote + 1) - quote - 1);
      const size_t at = number.empty() ? std::string::npos : text.find(number);
      bad((at == std::string::npos ? std::string("in the header")
                                   : "at offset " + std::to_string(kLengthBytes + at) + " (header byte " +
                                         std::to_string(at) + ")") +
          ": the header is not valid JSON: the number " + shown(number) + " is out of a double's range");
    }
  }

  Entry entry(const std::string &name, const json &value) const {
    Entry e;
    e.name = name;
    const std::string what = "tensor '" + shown(name) + "'";
    if (name.find('\0') != std::string::npos) bad(what + ": the name holds a NUL character, which C strings cannot");
    if (!value.is_object()) bad(what + ": its entry is " + shown(value.dump()) + ", not an object");
    const json *dtype = field(value, "dtype"), *shape = field(value, "shape"),
               *offsets = field(value, "data_offsets");
    if (!dtype || !shape || !offsets)
      bad(what + ": its entry lacks \"" + (!dtype ? "dtype" : !shape ? "shape" : "data_offsets") + "\"");
    if (!dtype->is_string()) bad(what + ": its dtype is " + shown(dtype->dump()) + ", not a string");
    const std::string &code = dtype->get_ref<const std::string &>();
    e.dtype = dtype_of(code);
    if (e.dtype == BP_DTYPE_INVALID)
      bad(what + ": " +
          (defined_elsewhere(code) ? "its dtype " + code + " is one Backplane has no dtype for"
                                   : "its dtype '" + shown(code) + "' is no dtype of the format") +
          " (Backplane reads " + codes_read() + ")");
    if (!shape->is_array()) bad(what + ": its shape is " + shown(shape->dump()) + ", not an array");
    if (shape->size() > BP_MAX_RANK)
      bad(what + ": its shape has " + std::to_string(shape->size()) + " axes, more than Backplane's " +
          std::to_string(BP_MAX_RANK));
    e.rank = int32_t(shape->size());
    uint64_t numel = 1;
    for (int32_t d = 0; d < e.rank; ++d) {
      const json &x = (*shape)[size_t(d)];
      if (!x.is_number_unsigned())
        bad(what + ": extent " + std::to_string(d) + " of its shape is " + shown(x.dump()) +
            ", not an unsigned integer");
      const uint64_t extent = x.get<uint64_t>();
      if (extent > uint64_t(kMaxElements) || __builtin_mul_overflow(numel, extent, &numel) ||
          numel > uint64_t(kMaxElements))
        bad(what + ": its shape " + shown(shape->dump()) + " has more than 2^56 elements, Backplane's limit");
      e.shape[d] = int64_t(extent);
    }
    if (!offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned())
      bad(what + ": its data_offsets are " + shown(offsets->dump()) + ", not two unsigned integers");
    e.begin = (*offsets)[0].get<uint64_t>();
    e.end = (*offsets)[1].get<uint64_t>();
    if (e.begin > e.end)
      bad(what + ": its data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
          "] end before they begin");
    const uint64_t bytes = numel * uint64_t(bp_vocab_dtype_size(e.dtype));
    if (bytes != e.end - e.begin)
      bad(what + ": its shape " + shown(shape->dump()) + " of " + code + " is " + std::to_string(bytes) +
          " bytes, but its data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
          "] hold " + std::to_string(e.end - e.begin));
    return e;
  }

  std::vector<std::pair<std::string, std::string>> metadata(const json &value) const {
    if (!value.is_object())
      bad("its __metadata__ is " + shown(value.dump()) + ", not an object of strings");
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto &[key, v] : value.items()) {
      if (!v.is_string())
        bad("__metadata__ entry '" + shown(key) + "' is " + shown(v.dump()) + ", not a string");
      const std::string &s = v.get_ref<const std::string &>();
      if (key.find('\0') != std::string::npos || s.find('\0') != std::string::npos)
        bad("__metadata__ entry '" + shown(key) + "' holds a NUL character, which C strings cannot");
      out.emplace_back(key, s);
    }
    return out;
  }

  // The data must be the tensors' bytes packed one after another, from the
  // first byte after the header to the last of the file.
  void check_layout(const std::vector<Entry> &entries, uint64_t data_start) const {
    const uint64_t data_bytes = src_.size() - data_start;
    auto file_range = [&](uint64_t b, uint64_t e) {
      return "file offsets " + std::to_string(data_start + b) + ".." + std::to_string(data_start + e);
    };
    for (const Entry &e : entries)
      if (e.end > data_bytes)
        bad("tensor '" + shown(e.name) + "': its data_offsets [" + std::to_string(e.begin) + ", " +
            std::to_string(e.end) + "] reach past the end of the file: the data after the header holds " +
            std::to_string(data_bytes) + " bytes (" + file_range(0, data_bytes) + ")");
    std::vector<size_t> order(entries.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::pair(entries[a].begin, entries[a].end) < std::pair(entries[b].begin, entries[b].end);
    });
    uint64_t cursor = 0;
    const Entry *previous = nullptr;
    for (size_t i : order) {
      const Entry &e = entries[i];
      if (e.begin < cursor)
        bad("tensor '" + shown(e.name) + "' (data bytes " + std::to_string(e.begin) + ".." + std::to_string(e.end) +
            ", " + file_range(e.begin, e.end) + ") overlaps tensor '" + shown(previous->name) + "' (data bytes " +
            std::to_string(previous->begin) + ".." + std::to_string(previous->end) + ")");
      if (e.begin > cursor)
        bad("data bytes " + std::to_string(cursor) + ".." + std::to_string(e.begin) + " (" +
            file_range(cursor, e.begin) + ") belong to no tensor: the format packs the tensors without gaps");
      cursor = e.end;
      previous = &e;
    }
    if (cursor != data_bytes)
      bad("the file has " + std::to_string(data_bytes - cursor) + " bytes after the last tensor's data (" +
          file_range(cursor, data_bytes) + ") that belong to no tensor");
  }

 private:
  static const json *field(const json &object, const char *key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  // "0x7B '{'" or "0xFF".
  static std::string byte_at(const std::string &text, size_t at) {
    const auto c = static_cast<unsigned char>(text[at]);
    char buf[16];
    std::snprintf(buf, sizeof buf, c >= 0x20 && c < 0x7F ? "0x%02X '%c'" : "0x%02X", c, c);
    return buf;
  }

  // nlohmann's "[json.exception.parse_error.101] parse error at line 1,
  // column 5: syntax error while parsing value - invalid literal; last read:
  // '...'" without its position (the caller gives the offset) and without
  // the bytes it echoes, which need not be text.
  static std::string reason(const std::string &what) {
    std::string r = what;
    const size_t column = r.find("column ");
    const size_t colon = column == std::string::npos ? std::string::npos : r.find(": ", column);
    if (colon != std::string::npos) r.erase(0, colon + 2);
    const size_t echoed = r.find("; last read:");
    if (echoed != std::string::npos) {
      const size_t expected = r.find("; expected", echoed);
      r = r.substr(0, echoed) + (expected == std::string::npos ? "" : r.substr(expected));
    }
    return shown(r, 256);
  }

  const Source &src_;
  std::string file_;
};

}  // namespace

Contents read_header(const Source &src) {
  const Checker check(src);
  const uint64_t n = check.header_length();
  std::string text(size_t(n), '\0');
  src.read(kLengthBytes, n, text.data(), "the header");
  const json root = check.parse(text);
  Contents c;  // at most kMaxHeaderBytes / 40 entries: an int32_t counts them
  c.data_start = kLengthBytes + n;
  // A JSON object's members come in the byte order of their names.
  for (const auto &[name, value] : root.items()) {
    if (name == kMetadataKey)
      c.metadata = check.metadata(value);
    else
      c.entries.push_back(check.entry(name, value));
  }
  check.check_layout(c.entries, c.data_start);
  return c;
}

}  // namespace bp::core::safetensors
