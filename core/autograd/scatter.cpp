// The differentiable scatter under bp_index_put: a copy of a with values
// written (or added) at the rows of an index, as torch.index_put records it.
#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"

namespace bp::core::autograd {

namespace {

// a's gradient is the output's, less what the write replaced; values' is
// the output's gradient at the rows they went to (the engine sums it over
// the axes broadcasting added, and converts it to values' dtype).
struct ScatterNode : Node {
  Saved index;
  bool accumulate;
  ScatterNode(const View &index_, bool accumulate_)
      : Node("index_put"), index(index_), accumulate(accumulate_) {
    saves(&index);
  }
  std::vector<View> apply(const View &g) override {
    const View &rows = index.get(name);
    View for_a, for_values;
    if (wants(0)) {
      if (accumulate) {
        for_a = g;
      } else {
        for_a = dispatch::contiguous_copy(g);
        dispatch::scatter_nd(for_a, rows, fill(g.device(), g.dtype, 0, nullptr, 0.0));
      }
    }
    if (wants(2)) for_values = dispatch::gather_nd(g, rows);
    return {for_a, View(), for_values};
  }
};

}  // namespace

View scatter_nd(const View &a, const View &index, const View &values, bool accumulate) {
  View out = dispatch::contiguous_copy(a);
  if (accumulate)
    dispatch::scatter_add_nd(out, index, values);
  else
    dispatch::scatter_nd(out, index, values);
  if (Edges edges = recording({&a, &index, &values}); !edges.empty())
    attach(out, std::make_shared<ScatterNode>(index, accumulate), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
