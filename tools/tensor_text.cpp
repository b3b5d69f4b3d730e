#include "tensor_text.hpp"

#include <cstdio>
#include <vector>

namespace bptool {

namespace {

template <class T>
std::vector<double> as_doubles(const bp::Tensor &t) {
  std::vector<T> v = t.template to_vector<T>();
  return std::vector<double>(v.begin(), v.end());
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::string tensor_values(const bp::Tensor &t, size_t max_elements) {
  std::vector<double> v;
  switch (t.dtype()) {
    case BP_FLOAT32: v = as_doubles<float>(t); break;
    case BP_FLOAT64: v = as_doubles<double>(t); break;
    case BP_INT32: v = as_doubles<int32_t>(t); break;
    case BP_INT64: v = as_doubles<int64_t>(t); break;
    case BP_BOOL: v = as_doubles<bool>(t); break;
    default: return "(values of an unknown dtype)";
  }
  const bp::Shape shape = t.shape();
  if (shape.empty()) return v.empty() ? "[]" : number(v[0]);
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
    out += number(v[i]);
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
