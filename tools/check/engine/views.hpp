// Views and storages of a case: layouts (dense, transposed, broadcast,
// stepped, rotated), new storages with sentinel bytes around outputs, and
// walking a view's elements.
#pragma once

#include <cstdint>
#include <vector>

#include "case.hpp"

namespace bpcheck {

using Shape = std::vector<int64_t>;

// Bytes around every output (filled with kOutputPattern and checked after the
// call) and the filler of input storages outside their views.
constexpr uint8_t kOutputPattern = 0xA5;
constexpr uint8_t kInputPattern = 0x5A;
constexpr int64_t kGuardBytes = 64;

enum class Layout { dense, transposed, broadcast, stepped, rotated };

struct LayoutSpec {
  Layout kind = Layout::dense;
  int axis = 0;  // broadcast: the stride-0 axis
  int step = 2;  // stepped: every step-th element along the last axis
};

inline LayoutSpec dense() { return {}; }
inline LayoutSpec transposed() { return {Layout::transposed, 0, 2}; }
inline LayoutSpec broadcast(int axis) { return {Layout::broadcast, axis, 2}; }
inline LayoutSpec stepped() { return {Layout::stepped, 0, 2}; }
// The last axis outermost in memory, the others dense inside it: the views a
// scan gets when the core moves the caller's axis 0 to the end.
inline LayoutSpec rotated() { return {Layout::rotated, 0, 2}; }

// A new storage of `c` holding one view with the given layout. Outputs get
// kGuardBytes of sentinel on both sides.
ViewDesc add_view(Case &c, int32_t dtype, const Shape &shape, LayoutSpec layout, bool is_output);

// Calls f(index, i) for every element of v in C order (i counts from 0).
template <class F>
void for_each_index(const ViewDesc &v, F &&f) {
  const int64_t n = numel(v);
  int64_t idx[BP_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; ++i) {
    f(idx, i);
    for (int d = v.rank - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Byte offset of an element in its storage.
uint64_t byte_at(const ViewDesc &v, const int64_t *idx);
// Position of an element in C order.
int64_t c_position(const ViewDesc &v, const int64_t *idx);

}  // namespace bpcheck
