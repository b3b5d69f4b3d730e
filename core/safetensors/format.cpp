#include "safetensors/format.hpp"

#include <cstdio>

#include "errors/echo.hpp"

namespace bp::core::safetensors {

namespace {

struct Code {
  const char *code;
  int32_t dtype;
};

// Every Backplane dtype has a code; the table's order is the messages'.
constexpr Code kCodes[] = {
    {"F64", BP_FLOAT64}, {"F32", BP_FLOAT32}, {"F16", BP_FLOAT16}, {"BF16", BP_BFLOAT16},
    {"I64", BP_INT64},   {"I32", BP_INT32},   {"I16", BP_INT16},   {"I8", BP_INT8},
    {"U8", BP_UINT8},    {"BOOL", BP_BOOL},
};

#define BP_SAFETENSORS_COUNT_(id, value, name, size, kind) +1
static_assert(sizeof kCodes / sizeof kCodes[0] == 0 BP_DTYPE_LIST(BP_SAFETENSORS_COUNT_),
              "every dtype of vocabulary.h needs its safetensors code here");
#undef BP_SAFETENSORS_COUNT_

// The format's other codes (the `safetensors` package's Dtype, 0.8).
constexpr const char *kElsewhere[] = {"U16",         "U32",     "U64",         "F8_E4M3",
                                      "F8_E4M3FNUZ", "F8_E5M2", "F8_E5M2FNUZ", "F8_E8M0",
                                      "F6_E2M3",     "F6_E3M2", "F4",          "C64"};

// Length of the UTF-8 sequence starting at p (at most n bytes there), or 0
// when it is not one: overlong forms, surrogates and code points past
// U+10FFFF are not UTF-8 (RFC 3629).
size_t utf8_length(const unsigned char *p, size_t n) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3F);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kSmallest[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

const char *code_of(int32_t dtype) {
  for (const Code &c : kCodes)
    if (c.dtype == dtype) return c.code;
  return nullptr;
}

int32_t dtype_of(std::string_view code) {
  for (const Code &c : kCodes)
    if (code == c.code) return c.dtype;
  return BP_DTYPE_INVALID;
}

bool defined_elsewhere(std::string_view code) {
  for (const char *c : kElsewhere)
    if (code == c) return true;
  return false;
}

std::string codes_read() {
  std::string s;
  for (const Code &c : kCodes) s += std::string(s.empty() ? "" : ", ") + c.code;
  return s;
}

bool valid_utf8(std::string_view text) {
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_length(p + i, text.size() - i);
    if (!len) return false;
    i += len;
  }
  return true;
}

std::string shown(std::string_view text, size_t max) {
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_length(p + i, text.size() - i);
    if (len && p[i] >= 0x20 && p[i] != 0x7F) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", p[i]);
      out += hex;
      ++i;
    }
  }
  return echo(out, max);
}

}  // namespace bp::core::safetensors
