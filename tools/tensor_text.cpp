#include "tensor_text.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "backplane/half.h"

namespace bptool {

namespace {

// The elements in C order as stored (the 16-bit floats as their bits).
template <class Stored>
std::vector<Stored> stored(const bp::Tensor &t) {
  std::vector<Stored> v(static_cast<size_t>(t.numel()));
  bp::check(bp_to_host(t.handle(), v.data(), v.size() * sizeof(Stored)));
  return v;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

template <class Stored, class Show>
std::vector<std::string> texts(const bp::Tensor &t, Show show) {
  std::vector<std::string> out;
  for (Stored x : stored<Stored>(t)) out.push_back(show(x));
  return out;
}

std::string as_float(double x) { return number(x); }
std::string as_integer(int64_t x) { return std::to_string(x); }

}  // namespace

std::string tensor_values(const bp::Tensor &t, size_t max_elements) {
  std::vector<std::string> v;
  switch (t.dtype()) {
    case BP_FLOAT32: v = texts<float>(t, as_float); break;
    case BP_FLOAT64: v = texts<double>(t, as_float); break;
    case BP_FLOAT16: v = texts<uint16_t>(t, [](uint16_t h) { return number(bp_f32_from_f16(h)); }); break;
    case BP_BFLOAT16: v = texts<uint16_t>(t, [](uint16_t h) { return number(bp_f32_from_bf16(h)); }); break;
    case BP_INT32: v = texts<int32_t>(t, as_integer); break;
    case BP_INT64: v = texts<int64_t>(t, as_integer); break;
    case BP_INT8: v = texts<int8_t>(t, as_integer); break;
    case BP_UINT8: v = texts<uint8_t>(t, as_integer); break;
    case BP_INT16: v = texts<int16_t>(t, as_integer); break;
    case BP_BOOL: v = texts<uint8_t>(t, as_integer); break;
    default: return "(values of an unknown dtype)";
  }
  const bp::Shape shape = t.shape();
  if (shape.empty()) return v.empty() ? "[]" : v[0];
  // Opening brackets at the start of each row of each axis, closing ones at the end.
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    size_t span = 1;
    for (size_t a = shape.size(); a-- > 0;) {
      if (i % (span * size_t(shape[a])) == 0) out += "[";
      span *= size_t(shape[a]);
    }
    if (shown == max_elements) {
      out += "...";
      break;
    }
    out += v[i];
    ++shown;
    span = 1;
    std::string close;
    for (size_t a = shape.size(); a-- > 0;) {
      span *= size_t(shape[a]);
      if ((i + 1) % span == 0) close += "]";
    }
    out += close;
    if (i + 1 < v.size()) out += ", ";
  }
  if (v.empty()) out = std::string(shape.size(), '[') + std::string(shape.size(), ']');
  return out;
}

}  // namespace bptool
