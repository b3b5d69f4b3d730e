// table.hpp — a plain-text table with aligned columns.
//
//   Table t({"device", "kind", "memory"});
//   t.align_right(2);
//   t.add({"cpu:0", "cpu", "15.6 GiB"});
//   t.print(stdout, "  ");
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace bptool {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)),
                                                    right_(header_.size(), false) {}
  void align_right(size_t column) {
    if (column < right_.size()) right_[column] = true;
  }
  void add(std::vector<std::string> row) {
    row.resize(header_.size());
    rows_.push_back(std::move(row));
  }
  bool empty() const { return rows_.empty(); }
  // Header, a rule of dashes, then the rows; every line starts with indent.
  void print(FILE *to, const std::string &indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace bptool
