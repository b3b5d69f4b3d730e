#include "table.hpp"

#include <algorithm>

namespace bptool {

namespace {

// Display width of UTF-8 text (code points, not bytes).
size_t width(const std::string &s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xc0) != 0x80) ++n;
  return n;
}

}  // namespace

void Table::print(FILE *to, const std::string &indent) const {
  std::vector<size_t> w(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    w[c] = width(header_[c]);
    for (const auto &r : rows_) w[c] = std::max(w[c], width(r[c]));
  }
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = w[c] - width(cells[c]);
      const bool last = c + 1 == cells.size();
      if (right_[c]) out.append(pad, ' ');
      out += cells[c];
      if (!right_[c] && !last) out.append(pad, ' ');
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::fprintf(to, "%s\n", out.c_str());
  };
  line(header_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < w.size(); ++c) rule.push_back(std::string(w[c], '-'));
  line(rule);
  for (const auto &r : rows_) line(r);
}

}  // namespace bptool
