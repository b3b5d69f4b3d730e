// tensor_text.hpp — printing a tensor's values ("[[1, 1, 1], [1, 1, 1]]").
#pragma once

#include <string>

#include "backplane.hpp"

namespace bptool {

// The values in nested brackets, at most max_elements of them ("..." after).
std::string tensor_values(const bp::Tensor &t, size_t max_elements = 24);

}  // namespace bptool
