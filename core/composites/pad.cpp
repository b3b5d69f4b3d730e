// Padding as torch.nn.functional.pad does it, one axis at a time: output
// position j of an axis of extent S, padded by b before and a after (b + S
// + a positions), is element j - b of the original axis when that lies in
// [0, S); else the fill value (constant), its mirror image about the edge
// element (reflect: -t before, 2(S - 1) - t after) or the edge element
// itself (edge). A negative amount leaves out that many elements of the
// original, so the other side still reflects about the original's edge
// (torch's order). Constant padding concatenates filled blocks around the
// kept elements; reflect and edge gather the axis by a host-computed index,
// whose gradient adds up where one element is read several times.
#include <algorithm>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "composites/spatial.hpp"
#include "composites/take_along.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/function_errors.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

View filled(const View &x, int32_t axis, int64_t extent, double value) {
  int64_t shape[BP_MAX_RANK];
  std::copy(x.shape, x.shape + x.rank, shape);
  shape[axis] = extent;
  return fill(x.device(), x.dtype, x.rank, shape, value);
}

}  // namespace

View pad(const View &x, const int64_t *before, const int64_t *after, int32_t mode, double value) {
  const char *fn = "pad";
  if (mode != BP_PAD_CONSTANT && mode != BP_PAD_REFLECT && mode != BP_PAD_EDGE)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT,
                  "mode " + std::to_string(mode) + " is not BP_PAD_CONSTANT, BP_PAD_REFLECT or BP_PAD_EDGE");
  if (x.rank > 0 && (!before || !after)) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "before or after is NULL");
  // The result so far: a copied View would lose x's autograd identity.
  View result;
  const View *cur = &x;
  for (int32_t d = 0; d < x.rank; ++d) {
    const int64_t s = x.shape[d], b = before[d], a = after[d];
    if (b == 0 && a == 0) continue;
    const std::string where = "axis " + std::to_string(d) + " of extent " + std::to_string(s);
    if (s + std::min<int64_t>(b, 0) + std::min<int64_t>(a, 0) < 0 || s + b + a < 0)
      function_fail(fn, BP_ERR_SHAPE,
                    "padding " + std::to_string(b) + ", " + std::to_string(a) + " leaves less than nothing of " + where);
    if (mode == BP_PAD_REFLECT && (b >= s || a >= s))
      function_fail(fn, BP_ERR_SHAPE,
                    "reflect padding " + std::to_string(std::max(b, a)) + " must be less than the extent of " + where);
    if (mode == BP_PAD_EDGE && s == 0 && (b > 0 || a > 0))
      function_fail(fn, BP_ERR_SHAPE, "edge padding has no edge to repeat on empty " + where);
    if (mode == BP_PAD_CONSTANT) {
      View kept = ag::slice(*cur, d, std::max<int64_t>(-b, 0), s - std::max<int64_t>(-a, 0), 1);
      std::vector<View> parts;
      if (b > 0) parts.push_back(filled(*cur, d, b, value));
      parts.push_back(std::move(kept));
      if (a > 0) parts.push_back(filled(*cur, d, a, value));
      std::vector<const View *> ptrs;
      for (const View &p : parts) ptrs.push_back(&p);
      result = ptrs.size() == 1 ? std::move(parts[0]) : ag::concatenate(ptrs, d);
      cur = &result;
      continue;
    }
    std::vector<int64_t> index;
    for (int64_t j = 0; j < s + b + a; ++j) {
      const int64_t t = j - b;
      if (mode == BP_PAD_EDGE)
        index.push_back(std::clamp<int64_t>(t, 0, s - 1));
      else
        index.push_back(t < 0 ? -t : t >= s ? 2 * (s - 1) - t : t);
    }
    result = take_along(*cur, d, index);
    cur = &result;
  }
  // Nothing padded: a recorded view of x, not a copy that lost its gradient.
  return cur == &x ? ag::reshape(x, x.rank, x.shape) : std::move(result);
}

}  // namespace bp::core
