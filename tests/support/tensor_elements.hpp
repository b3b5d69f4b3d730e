// Tensors filled and read as the elements are in memory, through the C API,
// which takes every dtype (the C++ header's from_vector/to_vector take only
// the types that have a C++ counterpart).
#pragma once

#include <cstdint>
#include <vector>

#include "backplane.hpp"

namespace bp_test {

// A one-dimensional tensor on d holding these elements as they are in
// memory (S is the element's host type, or its bits for the 16-bit floats).
template <class S>
bp::Tensor from_elements(bp_dtype dtype, const std::vector<S> &values, const bp::Device &d) {
  const int64_t shape[1] = {int64_t(values.size())};
  bp_tensor h = BP_NO_TENSOR;
  bp::check(bp_from_host(d.id(), dtype, 1, shape, values.data(), &h));
  return bp::Tensor::adopt(h);
}

// The elements of t as they are in memory (the inverse of from_elements).
template <class S>
std::vector<S> elements(const bp::Tensor &t) {
  std::vector<S> out(size_t(t.numel()));
  bp::check(bp_to_host(t.handle(), out.data(), out.size() * sizeof(S)));
  return out;
}

}  // namespace bp_test
